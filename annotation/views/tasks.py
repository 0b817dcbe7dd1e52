"""The task page of one assignment, for its annotator only.

For now a reading page: the question and the assignment's reports in the annotator's order,
blinded (reports are labelled A, B, C…; no system name, no database id). The full task
interface will grow here.
"""

from django.contrib.auth.decorators import login_required
from django.db.models import Prefetch
from django.http import Http404
from django.shortcuts import render

from annotation import roles
from annotation.models import Assignment, CitationAnchor, Paragraph, Report, Section
from annotation.serializers import assignment_reports


@login_required
def task_page(request, assignment_id: int):
    """404 for anyone but the assignment's annotator (admins included: it is their task)."""
    if not roles.is_annotator(request.user):
        raise Http404("No such task.")
    reports = Report.objects.only("id", "public_id", "question_id").prefetch_related(
        Prefetch("sections", Section.objects.order_by("position")),
        Prefetch("sections__paragraphs", Paragraph.objects.order_by("number")),
        Prefetch(
            "sections__paragraphs__anchors",
            CitationAnchor.objects.select_related("citation").order_by("start", "id"),
        ),
        "citations",
    )
    try:
        assignment = (
            Assignment.objects.select_related("question", "study")
            .prefetch_related(Prefetch("question__reports", reports))
            .get(pk=assignment_id, annotator=request.user.annotator)
        )
    except Assignment.DoesNotExist:
        raise Http404("No such task.") from None
    shown = [
        {"label": _label(i), "report": r, "citations": _number_citations(r)}
        for i, r in enumerate(assignment_reports(assignment))
    ]
    return render(request, "annotation/task.html", {"assignment": assignment, "reports": shown})


def _label(index: int) -> str:
    return chr(ord("A") + index) if index < 26 else str(index + 1)


def _number_citations(report) -> list:
    """Citations in key order, numbered 1..n; anchors get the number to link to (the page
    shows no database id). Works on prefetched rows only."""
    citations = sorted(report.citations.all(), key=lambda c: c.key)
    numbers = {}
    for n, citation in enumerate(citations, start=1):
        citation.number = numbers[citation.pk] = n
    for section in report.sections.all():
        for paragraph in section.paragraphs.all():
            for anchor in paragraph.anchors.all():
                anchor.number = numbers.get(anchor.citation_id)
    return citations
