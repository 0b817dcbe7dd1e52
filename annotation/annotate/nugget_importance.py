"""Nugget importance (seed 002 §8.11): each nugget of the question — a fact a good
related-work section contains — is Vital or Non-vital (72 % human–judge agreement in
Table 3). Units: the question's nuggets, in an order drawn for each annotator
(:func:`~annotation.annotate.deepscholar_labels.in_shown_order`; the nuggetizer releases its
vital nuggets first), numbered as shown."""

from __future__ import annotations

from annotation.models import Nugget

from .base import Needs
from .deepscholar_labels import LabelTask, LabelUnit, make_form

OPTIONS = (("vital", "Vital", "v"), ("non_vital", "Non-vital", "n"))


def nuggets_of(page) -> list[Nugget]:
    cached = getattr(page, "_nuggets", None)
    if cached is None:
        cached = page._nuggets = list(
            Nugget.objects.filter(question_id=page.assignment.question_id).order_by(
                "position", "pk"
            )
        )
    return cached


def numbered(n: int) -> str:
    return f"Nugget {n}"


def units(page) -> list[LabelUnit]:
    return [
        LabelUnit(id=g.public_id, key=g.key, title="Nugget", text=g.text, numbered=numbered)
        for g in nuggets_of(page)
    ]


class NuggetImportanceTask(LabelTask):
    needs = Needs(nuggets=True)
    key = "nugget_importance"
    kind = "nugget_importance"
    options = OPTIONS
    show_reports = False
    intro = (
        "Is each nugget vital (a related-work section on this topic must state it) or "
        "non-vital (useful but dispensable)?"
    )
    form = make_form("Nugget importance", OPTIONS, "vital or non-vital", units)
    build = staticmethod(units)
    qc_unit_text = "one nugget of the question, by its key in the imported file"
    qc_example = "n1"

    def question_keys(self, question):
        keys = Nugget.objects.filter(question=question).values_list("key", flat=True)
        return [(k, "") for k in keys]


TASK = NuggetImportanceTask()
