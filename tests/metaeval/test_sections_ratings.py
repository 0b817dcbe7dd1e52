"""The ratings section (issue 16) on the page, in the API (typed), in `manage.py analysis
--kind ratings --json`, in a CSV download and in the offline HTML; its figure changes when a
judgment of its kind is added."""

import pytest

from tests.builders.analysis import analysis_world

from . import world_additions
from .section_checks import check_kind

pytestmark = pytest.mark.django_db


def test_ratings_section(client, researcher_user):
    study, _ = analysis_world(2)
    study.researchers.add(researcher_user)
    client.force_login(researcher_user)
    got = check_kind(client, study, "ratings", "ratings_by_system", "ratings", {"dimensions"},
                     lambda: world_additions.rating(study))  # fmt: skip
    info = next(d for d in got["dimensions"] if d["dimension"] == "informativeness")
    assert info["by_system"]["alpha"]["mean"] == 4.0 and info["by_system"]["beta"]["mean"] == 2.0
