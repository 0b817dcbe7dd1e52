"""Gold and qualification checks cannot be dodged by skipping (docs/QUALITY.md, "Skipped
known-answer items").

A tester opened the gold item, chose "Flag or skip" -> "Outside my expertise" -> "Flag and
skip this task", and submitted the rest: the quality page and quality.csv showed
gold_answered 0, accuracy "–", not flagged. Here the annotator skips through the task
page's own form: a skipped gold item is counted (``gold_skipped``), scores as not passed
and flags them; a skipped qualification item is an item not passed, so the round is
decided (never undecided forever, never passed by skipping).
"""

import csv
import io

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from annotation.models import Assignment, Draft, PairwisePreference, QualificationResult
from studio.studyadmin import quality
from tests.builders.content import make_assignment, make_question, make_study
from tests.builders.users import make_user

pytestmark = pytest.mark.django_db
S0, S1 = "SecretSystem0", "SecretSystem1"
SKIP = {"reason": "outside_expertise", "about": "question", "action": "skip"}


@pytest.fixture
def world():
    admin = make_user("gk_admin", "admin")
    user = make_user("gk_a", "annotator", annotator=True)
    study = make_study("Skipped gold", tasks=["pairwise"])
    questions = [make_question(study, n_reports=2, paragraphs=1) for _ in range(3)]
    for n, q in enumerate(questions[1:], start=1):
        make_assignment(user.annotator, q, "pairwise", position=n)
    return study, admin, user, questions


def _skip(user, assignment):
    client = Client()
    client.force_login(user)
    response = client.post(reverse("annotate:flag", args=[assignment.pk]), SKIP)
    assert response.status_code == 302
    return client


def _submit(assignment, choice):
    left, right = assignment.question.reports.order_by("system__name")
    PairwisePreference.objects.create(
        study=assignment.study, annotator=assignment.annotator, question=assignment.question,
        left=left, right=right, choice=choice, reason="r", assignment=assignment,
    )  # fmt: skip
    Assignment.objects.filter(pk=assignment.pk).update(
        status="submitted", submitted_at=timezone.now()
    )
    Draft.objects.create(assignment=assignment, submitted_version=1, version=1)


def assert_gold(study, task: str, *, answered: int, skipped: int, accuracy: float, flagged: bool):
    """The study's one annotator's gold columns on the quality table and in ``quality.csv``
    (``task``'s row and ``all``)."""
    (row,) = quality.quality_rows(study)
    q = row.quality
    assert (q.gold_n, q.gold_skipped, q.gold_rate, row.flagged) == (
        answered,
        skipped,
        accuracy,
        flagged,
    )
    table = list(csv.DictReader(io.StringIO(quality.quality_csv(study))))
    mine = {r["task"]: r for r in table}
    for name in (task, "all"):
        got = mine[name]
        assert (
            got["gold_answered"],
            got["gold_skipped"],
            got["gold_accuracy"],
            got["gold_flagged"],
        ) == (str(answered), str(skipped), str(accuracy), str(int(flagged)))


def assert_gold_not_passed(study, task: str, *, skipped: int) -> None:
    """The study's one annotator answered no gold unit and left ``skipped``: accuracy 0,
    flagged, on the quality table and in ``quality.csv`` (``task``'s row and ``all``)."""
    assert_gold(study, task, answered=0, skipped=skipped, accuracy=0.0, flagged=True)


def test_a_skipped_gold_item_is_counted_and_flags_the_annotator(world):
    study, admin, user, (q1, q2, q3) = world
    quality.mark_entered(study, task="pairwise", question="q1", answer=f"{S0}>{S1}",
                         purpose="gold", user=admin)  # fmt: skip
    quality.release(study, admin, seed=1)
    gold = Assignment.objects.get(annotator=user.annotator, question=q1)
    _skip(user, gold)
    for a in Assignment.objects.filter(annotator=user.annotator).exclude(pk=gold.pk):
        _submit(a, "left")
    assert_gold_not_passed(study, "pairwise", skipped=1)
    # the admin's page shows it
    client = Client()
    client.force_login(admin)
    page = client.get(reverse("studies:quality", args=[study.pk])).content.decode()
    assert 'class="num gold-skipped">1<' in page
    assert 'data-testid="gold-flag"' in page
    # done later after all, it is answered, no longer skipped
    _submit(gold, "left")
    (row,) = quality.quality_rows(study)
    assert (row.quality.gold_n, row.quality.gold_skipped, row.flagged) == (1, 0, False)


def test_a_skipped_qualification_item_decides_the_round_as_not_passed(
    world, django_capture_on_commit_callbacks
):
    study, admin, user, (q1, q2, q3) = world
    study.config = {**study.config, "qualification_required": True, "qualification_pass": 0.5}
    study.save(update_fields=["config"])
    for q in (q1, q2):
        quality.mark_entered(study, task="pairwise", question=q.external_id,
                             answer=f"{S0}>{S1}", purpose="qualification", user=admin)  # fmt: skip
    Assignment.objects.filter(annotator=user.annotator, question=q2).delete()  # not yet done
    quality.release(study, admin, seed=1)
    items = Assignment.objects.filter(annotator=user.annotator, question__in=[q1, q2])
    assert items.count() == 2
    with django_capture_on_commit_callbacks(execute=True):
        _skip(user, items.get(question=q1))
    result = QualificationResult.objects.filter(study=study, annotator=user.annotator).first()
    assert result is None or result.passed is None  # one item still open
    with django_capture_on_commit_callbacks(execute=True):
        _skip(user, items.get(question=q2))
    result = QualificationResult.objects.get(study=study, annotator=user.annotator)
    assert (result.passed, result.correct, result.items) == (False, 0, 2)
