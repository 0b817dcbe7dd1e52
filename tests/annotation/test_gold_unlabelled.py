"""A gold or qualification unit left unlabelled in a submitted task counts as not passed,
exactly as a skipped task does (docs/QUALITY.md, "Known-answer units left unlabelled in a
submitted task").

The claim check lets a submitted task skip single claims ("beyond my expertise"): a gold
claim skipped so was neither answered nor skipped — accuracy untouched, no flag. Here the
annotator submits through the task page's own submit route, skipping the gold claim and
answering the other one.
"""

import pytest
from django.test import Client
from django.urls import reverse

from annotation.models import Assignment, QualificationResult
from studio.studyadmin import quality
from tests.annotation.test_gold_skipped import assert_gold_not_passed
from tests.builders.content import make_assignment, make_claims, make_question, make_study
from tests.builders.users import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def world():
    admin = make_user("gu_admin", "admin")
    user = make_user("gu_a", "annotator", annotator=True)
    study = make_study("Unlabelled gold", tasks=["claim_check"])
    question = make_question(study, n_reports=2)
    claims = make_claims(question)
    assignment = make_assignment(user.annotator, question, "claim_check")
    return study, admin, user, question, claims, assignment


def _mark(study, admin, question, claim, purpose, cites=False):
    what = f"claim {claim.public_id}" + (f" cites {claim.citation_keys[0]}" if cites else "")
    quality.mark_entered(
        study, task="claim_check", question=question.external_id,
        unit=f"{what}@{claim.report.system.name}", answer="yes", purpose=purpose, user=admin,
    )  # fmt: skip


def _submit_skipping(user, assignment, skipped, answered):
    """The task page's submit: ``skipped`` left without a label, ``answered`` answered."""
    client = Client()
    client.force_login(user)
    data = {
        "version": "0",
        f"cc.{skipped.public_id}.skip": "on",
        f"cc.{answered.public_id}.fully": "yes",
        f"cc.{answered.public_id}.cite.0": "yes",
    }
    response = client.post(
        reverse("annotate:submit", args=[assignment.pk]), data, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 204, response.content.decode()[:500]
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.SUBMITTED


def test_a_gold_claim_skipped_in_a_submitted_task_is_not_passed(world):
    study, admin, user, question, (c1, c2), assignment = world
    _mark(study, admin, question, c1, "gold")
    _mark(study, admin, question, c1, "gold", cites=True)  # its citation too
    _submit_skipping(user, assignment, skipped=c1, answered=c2)
    assert_gold_not_passed(study, "claim_check", skipped=2)


def test_a_gold_claim_answered_is_not_counted_as_unlabelled(world):
    study, admin, user, question, (c1, c2), assignment = world
    _mark(study, admin, question, c2, "gold")
    _submit_skipping(user, assignment, skipped=c1, answered=c2)
    (row,) = quality.quality_rows(study)
    assert (row.quality.gold_n, row.quality.gold_skipped, row.flagged) == (1, 0, False)


def test_a_qualification_claim_left_unlabelled_decides_the_round_as_not_passed(
    world, django_capture_on_commit_callbacks
):
    study, admin, user, question, (c1, c2), assignment = world
    study.config = {**study.config, "qualification_required": True, "qualification_pass": 0.5}
    study.save(update_fields=["config"])
    _mark(study, admin, question, c1, "qualification")
    with django_capture_on_commit_callbacks(execute=True):
        _submit_skipping(user, assignment, skipped=c1, answered=c2)
    result = QualificationResult.objects.get(study=study, annotator=user.annotator)
    assert (result.passed, result.correct, result.items) == (False, 0, 1)
