"""The rubric_comparison section (issue 16) on the page, in the API (typed), in `manage.py analysis
--kind rubric_comparison --json`, in a CSV download and in the offline HTML; its figure changes when a
judgment of its kind is added."""

import pytest

from tests.builders.analysis import analysis_world

from . import world_additions
from .section_checks import check_kind

pytestmark = pytest.mark.django_db


def test_rubric_comparison_section(client, researcher_user):
    study, _ = analysis_world(2)
    study.researchers.add(researcher_user)
    client.force_login(researcher_user)
    got = check_kind(client, study, "rubric_comparison", "rubric_sources", "rubric-comparison", {"sources", "comparisons"},
                     lambda: world_additions.rubric_comparison(study))  # fmt: skip
    hybrid = next(s for s in got["sources"] if s["source"] == "hybrid")
    assert hybrid["win_rate"] == 1.0  # gold in every ranking
    assert got["comparisons"] and "pvalue" in got["comparisons"][0]
