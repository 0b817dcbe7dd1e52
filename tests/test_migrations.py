"""The migrations describe the models exactly: a model change without its migration fails
here. .ci/run's SQLite and browser passes create their test databases from the models
(pytest-django's ``--nomigrations``); this test is what keeps that equal to migrating."""

from io import StringIO

import pytest
from django.core.management import call_command


@pytest.mark.django_db
def test_no_model_change_lacks_its_migration():
    out = StringIO()
    try:
        call_command("makemigrations", "--check", "--dry-run", stdout=out, stderr=out)
    except SystemExit as exit_:
        pytest.fail(f"models changed without a migration (exit {exit_.code}):\n{out.getvalue()}")
