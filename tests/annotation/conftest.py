"""Fixtures shared by the annotation tests."""

import pytest


@pytest.fixture
def demo(db, demo_module):
    """The demo study, loaded once for the test module (``demo_module``): the export and
    Download panel tests read it, and what a test writes is rolled back after it."""
    from annotation.models import Study

    return Study.objects.get(pk=demo_module)
