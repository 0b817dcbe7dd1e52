"""Query quality (ResearchQA 3.1): clarity, naturalness, relevance to a researcher's need
(1–5 each) and the variability of valid answers (open-ended / semi-open / closed)."""

from __future__ import annotations

from annotation.models import QueryQuality

from ..quality import labels as ql
from . import qc
from .base import TaskSpec
from .form import Choices, Field, Form, optional_int
from .widgets import likert, radio_group

RATINGS = (
    ("clarity", "Clarity", "c", "Is the question clear and unambiguous?"),
    ("naturalness", "Naturalness", "n", "Would a researcher naturally ask it this way?"),
    ("relevance", "Relevance to a researcher's need", "r", "Does it reflect a real research need?"),
)
VARIABILITY = [(v, label, label[0].lower()) for v, label in QueryQuality.Variability.choices]


FORM = Form(
    title="Query quality",
    fields=(
        *(
            Field(
                f"q.{key}",
                key,
                convert=optional_int,
                default=None,
                choices=Choices((1, 2, 3, 4, 5), "a rating from 1 to 5"),
                invalid=f"{title}: {{value!r}} is not {{choices}}.",
                required=f"{title}: choose a rating from 1 to 5.",
            )
            for key, title, _, _ in RATINGS
        ),
        Field(
            "q.variability",
            "variability",
            default="",
            choices=Choices(QueryQuality.Variability.values, "open-ended, semi-open or closed"),
            invalid="Variability: {value!r} is not {choices}.",
            required="Variability of valid answers: choose open-ended, semi-open or closed.",
        ),
        Field("q.comment", "comment", default=""),
    ),
)


LIKERT = ql.Values(("1", "2", "3", "4", "5"), ordinal=True)
QC_UNITS = {
    **{key: LIKERT for key, *_ in RATINGS},
    "variability": ql.Values(tuple(QueryQuality.Variability.values)),
}


def stored(study, annotator=None):
    return QueryQuality.objects.filter(study=study, **qc.who(annotator))


def qc_rows(study, annotator=None):
    """Four units per question: each 1–5 rating and the variability; the comment is free
    text and no label."""
    for q in stored(study, annotator).select_related("assignment"):
        for key, *_ in RATINGS:
            yield q, key, str(getattr(q, key))
        yield q, "variability", q.variability


QC = ql.LabelSpec(
    unit="one of the question's ratings: clarity, naturalness, relevance (1–5) or variability",
    label="the rating 1–5 (ordinal; exact match) or open_ended / semi_open / closed",
    rows=qc_rows,
    held=qc.held(stored),
    units=lambda study, question: dict(QC_UNITS),
    notation="unit “clarity”, answer 4 · unit “variability”, answer closed",
)


class QueryQualityTask(TaskSpec):
    qc = QC
    key = "query_quality"
    form = FORM

    def persist(self, payload, page):
        a = page.assignment
        QueryQuality.objects.update_or_create(
            study=a.study,
            annotator=page.annotator,
            question=a.question,
            setting=a.setting,
            defaults={
                "assignment": a,
                **{key: payload[key] for key, *_ in RATINGS},
                "variability": payload["variability"],
                "comment": payload["comment"].strip(),
            },
        )

    def stored_answers(self, page):
        a = page.assignment
        q = QueryQuality.objects.filter(
            study=a.study, annotator=page.annotator, question=a.question, setting=a.setting
        ).first()
        if q is None:
            return None
        return {
            **{key: getattr(q, key) for key, *_ in RATINGS},
            "variability": q.variability,
            "comment": q.comment,
        }

    def context(self, payload, page):
        groups = [
            {
                "html": likert(f"q.{key}", payload.get(key), title, describedby=f"help-{key}"),
                "help": help_text,
                "key": key,
                "prefix": prefix,
                "title": title,
            }
            for key, title, prefix, help_text in RATINGS
        ]
        variability = radio_group(
            "q.variability", VARIABILITY, payload.get("variability"), "Variability of valid answers"
        )
        return {"groups": groups, "variability_html": variability}


TASK = QueryQualityTask()
