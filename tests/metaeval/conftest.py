"""Fixtures shared by the report-page tests."""

import pytest
from django.core.cache import cache


@pytest.fixture
def demo(demo_module, researcher_user, client):
    """The demo study (loaded once for the module) with the test researcher added, the test
    client signed in as them, and the report cache cleared before and after. A module that
    needs the study without the signed-in client defines its own ``demo``."""
    from annotation.models import Study

    study = Study.objects.get(pk=demo_module)
    study.researchers.add(researcher_user)
    client.force_login(researcher_user)
    cache.clear()
    yield study
    cache.clear()
