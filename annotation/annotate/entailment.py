"""Claim–source entailment (seed 002 §8.11; citation precision and claim coverage): for
each cited claim of a report — a paragraph with one of the sources it cites — is the claim
Entailed by the source or Not entailed (80 % in Table 3)? Units: (paragraph, citation)
pairs, report by report, shown in an order drawn for each annotator
(:func:`~annotation.annotate.deepscholar_labels.in_shown_order`); the judge's files key them
``"<paragraph number>:<citation key>"``."""

from __future__ import annotations

from annotation.models import Paragraph

from .base import Needs, reports_of
from .deepscholar_labels import LabelTask, LabelUnit, make_form, source_title
from .retrieval_relevance import source_details

OPTIONS = (("entailed", "Entailed", "e"), ("not_entailed", "Not entailed", "n"))


def units(page) -> list[LabelUnit]:
    names = reports_of(page)
    out = []
    for r in page.reports:
        order = {key: i for i, key in enumerate(r.citations, start=1)}
        for p in r.paragraphs:
            for key in dict.fromkeys(p.citation_keys):
                c = r.citations.get(key)
                if c is None:
                    continue
                out.append(
                    LabelUnit(
                        id=f"{r.public_id}~{p.number}~{order[key]}",
                        key=f"{p.number}:{key}",
                        title=f"{names[r.public_id]}, paragraph {p.number}, source {order[key]}",
                        report_pk=r.report.pk,
                        text=p.html,
                        details=[
                            ("Source", source_title(c.title, c.key, c.url)),
                            *source_details(c),
                        ],
                        url=c.url,
                    )
                )
    return out


class EntailmentTask(LabelTask):
    needs = Needs(reports=1)
    key = "entailment"
    kind = "entailment"
    options = OPTIONS
    show_reports = False
    intro = "Does the source entail (fully back) the claim it is cited for?"
    form = make_form("Entailment", OPTIONS, "entailed or not entailed", units)
    build = staticmethod(units)
    qc_unit_text = "one cited paragraph with one source: <paragraph>:<citation key>@System"
    qc_example = "3:[1]@SysA"

    def question_keys(self, question):
        rows = Paragraph.objects.filter(report__question=question).values_list(
            "number", "anchors", "report__system__name"
        )
        return sorted({(f"{n}:{a[2]}", s) for n, anchors, s in rows for a in anchors or ()})


TASK = EntailmentTask()
