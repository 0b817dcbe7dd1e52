"""Question authoring (003 Setting 3): authoring slots for annotators, and the review of
the questions they submit.

An authoring slot is an :class:`~annotation.models.Assignment` of task
``question_authoring`` with no question (see the model's docstring). Submitting it creates
Questions of the study, origin expert-authored, ``authored_by`` the annotator and review
*pending*; a researcher accepts or rejects each one here. Only accepted questions are
planned (``planning`` reads accepted questions only), and the *authored* strategy then gives
each back to its author.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.db.models import Max

from annotation.models import Annotator, Assignment, Question, Setting, Study

from . import StudyAdminError

TASK = Study.Task.QUESTION_AUTHORING


@dataclass
class Opened:
    created: list[str]
    existing: list[str]


def open_slots(
    study: Study, annotators: list[Annotator], *, setting: str = Setting.DEEP_EXPERT
) -> Opened:
    """One authoring slot per annotator (those who have one keep it). All or nothing."""
    if study.tasks and TASK not in study.tasks:
        raise StudyAdminError(
            "annotators", "the study does not enable question authoring; enable it first"
        )
    if not annotators:
        raise StudyAdminError("annotators", "choose at least one annotator")
    if setting not in Setting.values:
        raise StudyAdminError("setting", f"unknown setting {setting!r}")
    have = set(
        Assignment.objects.filter(study=study, task=TASK, setting=setting).values_list(
            "annotator_id", flat=True
        )
    )
    new = [a for a in annotators if a.pk not in have]
    start = dict(
        Assignment.objects.filter(annotator__in=new)
        .values("annotator_id")
        .annotate(m=Max("position"))
        .values_list("annotator_id", "m")
    )
    try:
        with transaction.atomic():
            Assignment.objects.bulk_create(
                Assignment(
                    study=study,
                    annotator=a,
                    question=None,
                    task=TASK,
                    setting=setting,
                    position=(start.get(a.pk) or 0) + 1,
                )
                for a in new
            )
    except IntegrityError:
        raise StudyAdminError(
            "annotators", "another admin opened slots at the same time; try again"
        ) from None
    return Opened(
        created=[a.pseudonym for a in new],
        existing=[a.pseudonym for a in annotators if a.pk in have],
    )


def authored_questions(study: Study) -> list[Question]:
    """Questions annotators wrote for this study, pending first. One query."""
    order = {Question.Review.PENDING: 0, Question.Review.ACCEPTED: 1, Question.Review.REJECTED: 2}
    rows = Question.objects.filter(study=study, authored_by__isnull=False).select_related(
        "authored_by"
    )
    return sorted(rows, key=lambda q: (order.get(q.review, 3), q.pk))


def review(study: Study, question_id: int, decision: str) -> Question:
    """Accept or reject one authored question of the study (again, to change one's mind).

    Rejecting a question that already has assignments is refused: that work would be lost.
    """
    if decision not in (Question.Review.ACCEPTED, Question.Review.REJECTED):
        raise StudyAdminError("decision", f"{decision!r} is not accepted or rejected")
    with transaction.atomic():
        question = (
            Question.objects.select_for_update()
            .filter(study=study, pk=question_id, authored_by__isnull=False)
            .first()
        )
        if question is None:
            raise StudyAdminError(
                "question", f"question {question_id} is not an authored question of this study"
            )
        if decision == Question.Review.REJECTED and question.assignments.exists():
            raise StudyAdminError(
                "decision",
                f"question {question.external_id} already has assignments; "
                "it cannot be rejected now",
            )
        question.review = decision
        question.save(update_fields=["review"])
    return question
