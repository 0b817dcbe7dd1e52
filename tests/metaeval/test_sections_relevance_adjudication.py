"""The relevance_adjudication section (issue 16) on the page, in the API (typed), in `manage.py analysis
--kind relevance_adjudication --json`, in a CSV download and in the offline HTML; its figure changes when a
judgment of its kind is added."""

import pytest

from tests.builders.analysis import analysis_world

from . import world_additions
from .section_checks import check_kind

pytestmark = pytest.mark.django_db


def test_relevance_adjudication_section(client, researcher_user):
    study, _ = analysis_world(2)
    study.researchers.add(researcher_user)
    client.force_login(researcher_user)
    got = check_kind(client, study, "relevance_adjudication", "adjudication_rates", "relevance-adjudication", {"settings", "differences"},
                     lambda: world_additions.adjudication(study))  # fmt: skip
    rates = {s["setting"]: s for s in got["settings"]}
    assert rates["near_expert"]["switch"] == 1.0 and rates["deep_expert"]["subjective"] == 1.0
    assert got["differences"][0]["pvalue_all"] is not None
