"""Expertise triage (003 Setting 2): the annotator rates a candidate question against their
own expertise — within / near / outside — which feeds the near-expert assignment."""

from __future__ import annotations

from annotation.models import ExpertiseRating

from ..quality import labels as ql
from .base import TaskSpec
from .form import Choices, Field, Form
from .widgets import radio_group

LEVELS = [
    (ExpertiseRating.Level.WITHIN, "Within my expertise", "w"),
    (ExpertiseRating.Level.NEAR, "Near my expertise", "n"),
    (ExpertiseRating.Level.OUTSIDE, "Outside my expertise", "o"),
]


FORM = Form(
    title="Expertise",
    fields=(
        Field(
            "level",
            "level",
            default="",
            choices=Choices(ExpertiseRating.Level.values, "within, near or outside"),
            invalid="Expertise: {value!r} is not {choices}.",
            required="Expertise: choose within, near or outside.",
        ),
    ),
)


QC = ql.no_label(
    "a self-report: how the question relates to the annotator's own expertise. There is no "
    "correct answer and two annotators are expected to differ, so it has no gold, consensus "
    "or adjudication."
)


class ExpertiseTriageTask(TaskSpec):
    qc = QC
    key = "expertise_triage"
    form = FORM

    def persist(self, payload, page):
        ExpertiseRating.objects.update_or_create(
            annotator=page.annotator, question=page.question, defaults={"level": payload["level"]}
        )

    def stored_answers(self, page):
        level = (
            ExpertiseRating.objects.filter(annotator=page.annotator, question=page.question)
            .values_list("level", flat=True)
            .first()
        )
        return None if level is None else {"level": level}

    def context(self, payload, page):
        return {
            "level_html": radio_group(
                "level",
                [(str(v), label, k) for v, label, k in LEVELS],
                payload.get("level"),
                "How does this question relate to your expertise?",
            )
        }


TASK = ExpertiseTriageTask()
