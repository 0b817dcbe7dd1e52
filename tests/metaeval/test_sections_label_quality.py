"""The label_quality section (issue 16) on the page, in the API (typed), in `manage.py analysis
--kind label_quality --json`, in a CSV download and in the offline HTML; its figure changes when a
judgment of its kind is added."""

import pytest

from tests.builders.analysis import analysis_world

from . import world_additions
from .section_checks import check_kind

pytestmark = pytest.mark.django_db


def test_label_quality_section(client, researcher_user):
    study, _ = analysis_world(2)
    study.researchers.add(researcher_user)
    client.force_login(researcher_user)
    got = check_kind(client, study, "label_quality", "quality_agreement", "label-quality", {"kinds", "item_flags"},
                     lambda: world_additions.query_quality(study))  # fmt: skip
    clarity = next(k for k in got["kinds"] if k["kind"] == "clarity")
    assert sum(clarity["counts"]) == 4  # two experts on each of two questions
    assert clarity["paper_pa"] is not None
