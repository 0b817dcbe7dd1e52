"""Retrieval relevance (seed 002 §8.11, METHODS §4: relevance rate = Σ rel(s) / 2|S|):
each source a report retrieved and cited is graded 0 (not relevant), 1 (somewhat) or 2
(highly relevant) to the query (70 % in Table 3, compared three-way). Units: each report's
citations, numbered in the order they first appear and shown in an order drawn for each
annotator (:func:`~annotation.annotate.deepscholar_labels.in_shown_order`); the judge's files
key them by citation key."""

from __future__ import annotations

from annotation.links import shown_snippet
from annotation.models import Report

from .base import Needs, reports_of
from .deepscholar_labels import LabelTask, LabelUnit, make_form, source_title

OPTIONS = (("0", "0 Not relevant", "0"), ("1", "1 Somewhat relevant", "1"),
           ("2", "2 Highly relevant", "2"))  # fmt: skip


def source_details(citation) -> list[tuple[str, str]]:
    """A source's first snippets as a report's citation tip shows them (a text fragment's
    shape as a quotation: :func:`annotation.links.shown_snippet`)."""
    snippets = [s for s in citation.snippets or [] if isinstance(s, str) and s.strip()]
    return [("Excerpt", shown_snippet(s)) for s in snippets[:3]]


def units(page) -> list[LabelUnit]:
    names = reports_of(page)
    return [
        LabelUnit(
            id=f"{r.public_id}~{i}",
            key=c.key,
            title=f"{names[r.public_id]}, source {i}",
            report_pk=r.report.pk,
            text=source_title(c.title, c.key, c.url),
            details=source_details(c),
            url=c.url,
        )
        for r in page.reports
        for i, c in enumerate(r.citations.values(), start=1)
    ]


class RetrievalRelevanceTask(LabelTask):
    needs = Needs(reports=1)
    key = "retrieval_relevance"
    kind = "retrieval_relevance"
    options = OPTIONS
    show_reports = False
    intro = "Grade each retrieved source against the query: 0 not, 1 somewhat, 2 highly relevant."
    form = make_form("Retrieval relevance", OPTIONS, "0, 1 or 2", units)
    build = staticmethod(units)
    ordinal = True
    qc_unit_text = "one source a report cites: <citation key>@System"
    qc_example = "[1]@SysA"

    def question_keys(self, question):
        rows = Report.objects.filter(question=question).order_by("pk")
        return [
            (c["key"], system)
            for system, cites in rows.values_list("system__name", "citations")
            for c in cites
        ]


TASK = RetrievalRelevanceTask()
