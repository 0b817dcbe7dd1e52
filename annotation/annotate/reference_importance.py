"""Reference importance (seed 002 §8.11): each reference of the human-written exemplar is
Important (a related-work section on the topic should cite it) or Not important (82 % in
Table 3). Units: the exemplar's references, shown in an order drawn for each annotator
(:func:`~annotation.annotate.deepscholar_labels.in_shown_order`), each titled by its number
in the exemplar's reference list (the ``[n]`` its text cites it by)."""

from __future__ import annotations

from annotation.models import ExemplarReference
from annotation.rendering import latex_text_html

from .base import Needs
from .deepscholar_labels import LabelTask, LabelUnit, make_form, source_title

OPTIONS = (("important", "Important", "i"), ("not_important", "Not important", "n"))


def units(page) -> list[LabelUnit]:
    refs = ExemplarReference.objects.filter(question_id=page.assignment.question_id).order_by(
        "position", "pk"
    )
    return [
        LabelUnit(
            id=ref.public_id,
            key=ref.key,
            title=f"Reference {n}",
            text=latex_text_html(source_title(ref.title, ref.key, ref.url)),  # "$A^3$"
            url=ref.url,
        )  # fmt: skip
        for n, ref in enumerate(refs, start=1)
    ]


class ReferenceImportanceTask(LabelTask):
    needs = Needs(references=True)
    key = "reference_importance"
    kind = "reference_importance"
    options = OPTIONS
    show_reports = False
    show_exemplar = True
    intro = "Should a related-work section on this topic cite each reference of the exemplar?"
    form = make_form("Reference importance", OPTIONS, "important or not important", units)
    build = staticmethod(units)
    qc_unit_text = "one reference of the exemplar, by its key in the imported file"
    qc_example = "ref1"

    def question_keys(self, question):
        keys = ExemplarReference.objects.filter(question=question).values_list("key", flat=True)
        return [(k, "") for k in keys]


TASK = ReferenceImportanceTask()
