"""Organization (seed 002 §8.11): each report compared pairwise with the human-written
exemplar of its question — does the report's organization and coherence Lose, Tie or Win
against it? The judge's counterpart is DeepScholar's pairwise organization judge (78 %
agreement in Table 3). Units: the assignment's reports, shown by letter (blinded)."""

from __future__ import annotations

from . import qc
from .base import Needs, reports_of
from .deepscholar_labels import LabelTask, LabelUnit, make_form

OPTIONS = (("lose", "Lose", "l"), ("tie", "Tie", "t"), ("win", "Win", "w"))


def units(page) -> list[LabelUnit]:
    names = reports_of(page)
    return [
        LabelUnit(id=r.public_id, key="", title=names[r.public_id], report_pk=r.report.pk)
        for r in page.reports
    ]


class OrganizationTask(LabelTask):
    needs = Needs(reports=1, exemplar=True)
    key = "organization"
    kind = "organization"
    options = OPTIONS
    show_exemplar = True
    intro = (
        "Compare the organization of each report with the exemplar (the human-written "
        "related-work section shown first): is the report's structure and flow worse "
        "(Lose), as good (Tie) or better (Win)?"
    )
    form = make_form("Organization", OPTIONS, "lose, tie or win", units)
    build = staticmethod(units)
    ordinal = True
    qc_unit_text = "one report against the exemplar: report@System"
    qc_example = "report@SysA"

    def question_keys(self, question):
        return [("", s) for s in qc.systems(question)]


TASK = OrganizationTask()
