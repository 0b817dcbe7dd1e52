"""A report's sources and a paragraph's citation anchors in tests: JSON on their rows
(:attr:`Report.citations`, :attr:`Paragraph.anchors`, issue 29), written and read here
so that a test says what it means ("this report cites X") rather than how it is stored."""

from __future__ import annotations

from annotation.models import Citation, Paragraph, Report, cited


def add_citation(
    report: Report, key: str, title: str = "", snippets=(), url: str = "", metadata=None
) -> Citation:
    """Add a source to ``report`` (stored at once; ``report.citations`` follows)."""
    c = Citation(key, title, list(snippets), url, dict(metadata or {}))
    stored = Report.objects.filter(pk=report.pk).values_list("citations", flat=True).get()
    report.citations = [*stored, c.as_json()]
    Report.objects.filter(pk=report.pk).update(citations=report.citations)
    return c


def set_citation(report: Report, key: str, /, **changes) -> Citation:
    """Change fields of one stored source of ``report``, found by key."""
    stored = Report.objects.filter(pk=report.pk).values_list("citations", flat=True).get()
    for item in stored:
        if item["key"] == key:
            item.update(changes)
    Report.objects.filter(pk=report.pk).update(citations=stored)
    report.citations = stored
    return cited(stored)[changes.get("key", key)]


def add_anchor(paragraph: Paragraph, citation, start: int, end: int) -> None:
    """Anchor ``citation`` (a :class:`Citation` or a key) at ``start:end`` of the text."""
    key = getattr(citation, "key", citation)
    stored = Paragraph.objects.filter(pk=paragraph.pk).values_list("anchors", flat=True).get()
    paragraph.anchors = sorted([*stored, [start, end, key]])
    Paragraph.objects.filter(pk=paragraph.pk).update(anchors=paragraph.anchors)


def citations(reports=None, **lookups) -> list[Citation]:
    """The stored sources of ``reports`` (a Report queryset, or ``Report.objects.filter
    (**lookups)``), report by report in id order."""
    rows = reports if reports is not None else Report.objects.filter(**lookups)
    return [
        Citation.from_json(item)
        for stored in rows.order_by("pk").values_list("citations", flat=True)
        for item in stored
    ]


def citation(report: Report, key: str) -> Citation:
    """One stored source of ``report`` by key (KeyError when it cites none)."""
    stored = Report.objects.filter(pk=report.pk).values_list("citations", flat=True).get()
    return cited(stored)[key]


def anchors(paragraphs=None, **lookups) -> list[tuple[int, int, str, Paragraph]]:
    """``(start, end, key, paragraph)`` of every anchor of ``paragraphs`` (a Paragraph
    queryset, or ``Paragraph.objects.filter(**lookups)``), in report and number order."""
    rows = paragraphs if paragraphs is not None else Paragraph.objects.filter(**lookups)
    return [
        (start, end, key, p)
        for p in rows.order_by("report_id", "number")
        for start, end, key in p.anchors
    ]
