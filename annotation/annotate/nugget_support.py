"""Nugget support (seed 002 §8.11): for each report and each nugget of the question, does
the report state the nugget — Supported, Partially supported or Not supported (70 % in
Table 3, compared three-way)? Units: (report, nugget) pairs, report by report, each report's
nuggets in an order drawn for each annotator and numbered as shown (the nuggetizer releases
its vital nuggets first: :func:`~annotation.annotate.deepscholar_labels.in_shown_order`)."""

from __future__ import annotations

from annotation.models import Nugget

from . import qc
from .base import Needs, reports_of
from .deepscholar_labels import LabelTask, LabelUnit, make_form
from .nugget_importance import nuggets_of

OPTIONS = (
    ("supported", "Supported", "s"),
    ("partially_supported", "Partially supported", "p"),
    ("not_supported", "Not supported", "n"),
)


def units(page) -> list[LabelUnit]:
    names = reports_of(page)
    return [
        LabelUnit(
            id=f"{r.public_id}~{g.public_id}",
            key=g.key,
            title=f"{names[r.public_id]}, nugget",
            report_pk=r.report.pk,
            text=g.text,
            numbered=lambda n, name=names[r.public_id]: f"{name}, nugget {n}",
        )
        for r in page.reports
        for g in nuggets_of(page)
    ]


class NuggetSupportTask(LabelTask):
    needs = Needs(reports=1, nuggets=True)
    key = "nugget_support"
    kind = "nugget_support"
    options = OPTIONS
    intro = "Does the report state each nugget: fully (supported), in part, or not at all?"
    form = make_form(
        "Nugget support", OPTIONS, "supported, partially supported or not supported", units
    )
    build = staticmethod(units)
    ordinal = True
    qc_unit_text = "one nugget in one report: <nugget key>@System"
    qc_example = "n1@SysA"

    def question_keys(self, question):
        keys = list(Nugget.objects.filter(question=question).values_list("key", flat=True))
        return [(k, s) for s in qc.systems(question) for k in keys]


TASK = NuggetSupportTask()
