"""The claim_support section (issue 16) on the page, in the API (typed), in `manage.py analysis
--kind claim_support --json`, in a CSV download and in the offline HTML; its figure changes when a
judgment of its kind is added."""

import pytest

from tests.builders.analysis import analysis_world

from . import world_additions
from .section_checks import check_kind

pytestmark = pytest.mark.django_db


def test_claim_support_section(client, researcher_user):
    study, _ = analysis_world(2)
    study.researchers.add(researcher_user)
    client.force_login(researcher_user)
    got = check_kind(client, study, "claim_support", "claim_support", "claim-support", {"checks", "judges"},
                     lambda: world_additions.claim_check(study))  # fmt: skip
    assert got["checks"] == 2  # the skipped check is not one
    assert got["judges"][0]["all"]["claim_support"]["agreement"]["value"] == 0.0
