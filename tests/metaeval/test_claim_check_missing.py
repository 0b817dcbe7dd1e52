"""The controlled claim check (A.5) says what it is missing when no judge has a figure,
for each case, instead of an empty table reading "No data in this selection" (tester's
report): no submitted check, no judge claim verdict, no claim both the experts and a judge
judged, or only verdicts / answers that are left out. The page lists the section under
"Not shown" with that reason, the API's result carries it as ``note``, and the command's
text line says it."""

import re
from html import unescape

import pytest
from django.core.cache import cache
from django.test import Client

from annotation.models import Assignment, ClaimCheck, Question
from judges.models import JudgeClaimVerdict
from metaeval import sections
from metaeval.reports import ReportOptions
from metaeval.sections import claim_support
from tests.builders.analysis import analysis_world

pytestmark = pytest.mark.django_db


@pytest.fixture
def study(researcher_user):
    """Two questions; on each, one expert's check of alpha's claim (another's skipped) and
    the judge's verdict on the same claim text."""
    cache.clear()
    study, _ = analysis_world(2)
    study.researchers.add(researcher_user)
    yield study
    cache.clear()


def not_shown(study, user) -> dict[str, str]:
    client = Client()
    client.force_login(user)
    html = client.get(f"/reports/{study.pk}/").content.decode()
    out = {}
    for line in re.findall(r'<p class="note section-absent">Not shown: (.*?)</p>', html):
        names, reason = line.rsplit("</span>: ", 1)
        for key in re.findall(r'data-absent="([^"]+)"', names):
            out[key] = unescape(reason)
    assert ('id="section-claim_support"' in html) == ("claim_support" not in out)
    return out


def claim_result(study) -> dict:
    return sections.report(study.pk, ReportOptions())["claim_support"]


def test_with_a_figure_there_is_no_note(study, researcher_user):
    result = claim_result(study)
    assert "note" not in result and result["judges"][0]["all"]["claim_support"]["n"] == 2
    assert "claim_support" not in not_shown(study, researcher_user)


def test_no_judge_verdict_is_named(study, researcher_user):
    JudgeClaimVerdict.objects.filter(report__question__study=study).delete()
    result = claim_result(study)
    assert result["judges"] == [] and result["note"] == claim_support.NO_VERDICT
    assert not_shown(study, researcher_user)["claim_support"] == claim_support.NO_VERDICT
    assert claim_support._text(result) == f"claim check: 2 checks; {claim_support.NO_VERDICT}"


def test_no_overlapping_claim_is_named(study, researcher_user):
    JudgeClaimVerdict.objects.filter(report__question__study=study).update(text="Other claim.")
    result = claim_result(study)
    want = claim_support.NO_OVERLAP.format(checks=2)
    assert want.startswith("no claim the experts checked has a judge verdict (2 checked")
    assert result["unmatched_checks"] == 2 and result["note"] == want
    assert not_shown(study, researcher_user)["claim_support"] == want


def test_no_submitted_check_is_named(study, researcher_user):
    ClaimCheck.objects.filter(study=study).update(skipped=True)
    result = claim_result(study)
    assert result["checks"] == 0 and result["note"] == claim_support.NO_CHECK
    assert not_shown(study, researcher_user)["claim_support"] == claim_support.NO_CHECK


def test_only_unknown_verdicts_are_named(study):
    JudgeClaimVerdict.objects.filter(report__question__study=study).update(
        verdict="unknown", citations=[]
    )
    result = claim_result(study)
    assert result["unmatched_checks"] == 0 and result["note"] == claim_support.NO_DECIDED


def test_assigned_checks_not_yet_submitted_are_named(study, researcher_user):
    """No check at all: the section has no result; the study assigns the task, so the page
    says none is submitted yet instead of leaving the section out without a word."""
    ClaimCheck.objects.filter(study=study).delete()
    question = Question.objects.filter(study=study).first()
    annotator = ClaimCheck._meta.get_field("annotator").related_model.objects.first()
    Assignment.objects.create(study=study, annotator=annotator, question=question,
                              task="claim_check")  # fmt: skip
    assert claim_result_or_none(study) is None
    assert not_shown(study, researcher_user)["claim_support"] == claim_support.NOT_YET


def claim_result_or_none(study):
    return sections.report(study.pk, ReportOptions()).get("claim_support")
