"""The label_iaa section (issue 16) on the page, in the API (typed), in `manage.py analysis
--kind label_iaa --json`, in a CSV download and in the offline HTML; its figure changes when a
judgment of its kind is added."""

import pytest

from tests.builders.analysis import analysis_world

from . import world_additions
from .section_checks import check_kind

pytestmark = pytest.mark.django_db


def test_label_iaa_section(client, researcher_user):
    study, _ = analysis_world(2)
    study.researchers.add(researcher_user)
    client.force_login(researcher_user)
    got = check_kind(client, study, "label_iaa", "label_iaa", "label-iaa", {"kinds"},
                     lambda: world_additions.query_quality(study))  # fmt: skip
    kinds = {k["kind"]: k for k in got["kinds"]}
    assert kinds["preference"]["strict"] == 1.0  # both experts prefer beta everywhere
    assert {"coverage", "clarity", "claim_support"} <= set(kinds)
