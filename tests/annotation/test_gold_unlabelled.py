"""A gold or qualification unit left unlabelled in a submitted task counts as not passed,
exactly as a skipped task does (docs/QUALITY.md, "Known-answer units left unlabelled in a
submitted task").

The claim check lets a submitted task skip single claims ("beyond my expertise"): a gold
claim skipped so was neither answered nor skipped — accuracy untouched, no flag. Here the
annotator submits through the task page's own submit route, skipping the gold claim and
answering the other one.
"""

import csv
import io
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from annotation.models import Assignment, QualificationResult
from studio.studyadmin import quality
from tests.annotation.test_gold_skipped import assert_gold, assert_gold_not_passed
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


def _submit_skipping(user, assignment, skipped, answered, fully="yes"):
    """The task page's submit: ``skipped`` left without a label, ``answered`` answered
    (fully supported: ``fully``)."""
    client = Client()
    client.force_login(user)
    data = {
        "version": "0",
        f"cc.{skipped.public_id}.skip": "on",
        f"cc.{answered.public_id}.fully": fully,
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


# --- work done before the claim was a known answer (docs/QUALITY.md, "Work done before an
# item was a known answer") ---------------------------------------------------------------


def test_a_claim_skipped_before_it_was_a_qualification_item_is_no_attempt(world):
    """Skipped in a task submitted before the claim became a qualification item: no
    qualification attempt, as an answer then is none. It decided the round (failed, 0 of
    1) though the annotator never had the item as a qualification item."""
    study, admin, user, question, (c1, c2), assignment = world
    _submit_skipping(user, assignment, skipped=c1, answered=c2)
    # required after: an undecided annotator's queue shows only the round's items
    study.config = {**study.config, "qualification_required": True, "qualification_pass": 0.5}
    study.save(update_fields=["config"])
    _mark(study, admin, question, c1, "qualification")
    quality.refresh_qualification(study)
    (row,) = quality.quality_rows(study)
    assert (row.qualification.passed, row.qualification.answered) == (None, 0)  # pending
    table = list(csv.DictReader(io.StringIO(quality.quality_csv(study))))
    assert {r["task"]: r["qualification"] for r in table} == {"claim_check": "", "all": ""}


def test_a_claim_skipped_before_it_was_gold_is_a_gold_check_not_passed(world):
    """Gold reads every submitted task, before or after the item became gold (as a medal
    ranking or a coverage grade submitted before a known answer is marked from a judgment
    is scored against it): a skip then counts as not passed, as an answer then is scored."""
    study, admin, user, question, (c1, c2), assignment = world
    _submit_skipping(user, assignment, skipped=c1, answered=c2)
    _mark(study, admin, question, c1, "gold")
    assert_gold_not_passed(study, "claim_check", skipped=1)
    _mark(study, admin, question, c2, "gold")  # answered "yes" before: scored, correct
    assert_gold(study, "claim_check", answered=1, skipped=1, accuracy=0.5, flagged=True)


# --- one check per annotator and claim (docs/QUALITY.md, "One check per annotator and
# unit") -------------------------------------------------------------------------------


@pytest.mark.parametrize("answered_first", [False, True])
def test_a_claim_skipped_in_one_setting_and_answered_in_another_is_one_answer(
    world, answered_first
):
    """The same gold claim in claim checks of two settings, skipped in one and answered in
    the other, in either order: one check, answered (counted before as one answered and
    one not passed: accuracy 0.5, flagged)."""
    study, admin, user, question, (c1, c2), assignment = world
    other = make_assignment(user.annotator, question, "claim_check", setting="expertise_matched")
    _mark(study, admin, question, c1, "gold")
    submits = [
        lambda: _submit_skipping(user, assignment, skipped=c1, answered=c2),
        lambda: _submit_skipping(user, other, skipped=c2, answered=c1),
    ]
    for submit in reversed(submits) if answered_first else submits:
        submit()
    assert_gold(study, "claim_check", answered=1, skipped=0, accuracy=1.0, flagged=False)


def test_a_claim_answered_in_two_settings_scores_the_latest_answer(world):
    """Answered "no" (wrong) and an hour later "yes" in the other setting: one check, the
    answer submitted last, whatever the order the assignments were made in (counted twice
    before: 2 answered, accuracy 0.5, flagged)."""
    study, admin, user, question, (c1, c2), assignment = world
    other = make_assignment(user.annotator, question, "claim_check", setting="expertise_matched")
    _mark(study, admin, question, c1, "gold")
    _submit_skipping(user, other, skipped=c2, answered=c1, fully="no")
    Assignment.objects.filter(pk=other.pk).update(submitted_at=timezone.now() - timedelta(hours=1))
    _submit_skipping(user, assignment, skipped=c2, answered=c1, fully="yes")
    assert_gold(study, "claim_check", answered=1, skipped=0, accuracy=1.0, flagged=False)
