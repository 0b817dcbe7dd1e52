"""Database helpers the task modules' quality-control declarations share (``TaskSpec.qc``,
:class:`annotation.quality.labels.LabelSpec`): a question's systems, its rubric items, and
the filter that keeps one annotator's rows."""

from __future__ import annotations

from django.db.models import Q

from annotation.models import Paragraph, Report, RubricItem

from ..quality.labels import Values, item_unit, on_report

#: Rows read per database round trip when a declaration walks a whole study's labels.
CHUNK = 2000


def held(*stored):
    """``LabelSpec.held`` from the functions giving the querysets a task's ``rows`` read:
    whether the study holds any of them, one ``EXISTS`` query each (readiness asks this
    after every import; reading the first row of ``rows`` instead built every label of
    the study first, issue 29)."""

    def any_stored(study) -> bool:
        return any(fn(study).exists() for fn in stored)

    return any_stored


def who(annotator) -> dict:
    return {"annotator": annotator} if annotator is not None else {}


def of_task(task: str, *, unassigned: bool = False) -> Q:
    """Rows written by an assignment of ``task`` (and, with ``unassigned``, imported rows
    without an assignment): a model two task types write (a medal ranking is written by both
    medal ranking and metric-wise) is split by the assignment's task."""
    q = Q(assignment__task=task)
    return q | Q(assignment__isnull=True) if unassigned else q


def systems(question) -> list[str]:
    return sorted(Report.objects.filter(question=question).values_list("system__name", flat=True))


def per_report(question, what: dict[str, Values]) -> dict[str, Values]:
    """``what`` (unit name -> values) on every report of the question."""
    return {on_report(w, s): v for s in systems(question) for w, v in what.items()}


def paragraphs(question) -> dict[str, Values]:
    """``paragraph N@System`` for every paragraph of the question's reports, R/U/O."""
    values = Values(("R", "U", "O"))
    rows = Paragraph.objects.filter(report__question=question).values_list(
        "report__system__name", "number"
    )
    return {on_report(f"paragraph {n}", s): values for s, n in rows}


def rubric_items(study, question):
    """The items a rubric task shows (the page's rule: the study's ``rubric_kind``, else the
    question's first rubric)."""
    rubrics = question.rubrics.all()
    kind = study.setting("rubric_kind")
    if kind:
        rubrics = rubrics.filter(kind=kind)
    first = rubrics.order_by("pk").first()
    if first is None:
        return []
    return list(RubricItem.objects.filter(rubric=first).select_related("rubric"))


def item_name(item) -> str:
    return item_unit(item.rubric.kind, item.position)
