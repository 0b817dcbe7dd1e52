"""The audit history of judgments: every accepted save of a task page, who and when.

Each save an annotator's task page accepts is kept as a :class:`DraftVersion` (its payload,
its author, its time, draft or submit) and never changed, so the history of a judgment is
the list of its versions. An annotator reads the versions of their own assignments; an
admin reads every version in a study. Payloads name reports by their public id; for the
annotator they are shown as the labels the task page uses ("Report A"), in the
assignment's report order, so the history reveals nothing the page did not.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from django.core.paginator import Paginator
from django.db.models import Exists, OuterRef

from annotation.models import Assignment, Draft, DraftVersion, Report
from annotation.permissions import visible_assignments
from annotation.rendering import report_label

PER_PAGE = 50


@dataclass
class Entry:
    version: DraftVersion
    text: str  # the payload, readable


def versions(qs, *, page_number=1, labels: bool = True):
    """One page of ``qs`` (DraftVersions), newest first, with readable payloads. Three
    queries whatever the page size (count, rows, the public ids of their reports)."""
    qs = qs.select_related("assignment__question", "assignment__study", "author").order_by(
        "-created_at", "-pk"
    )
    page = Paginator(qs, PER_PAGE).get_page(page_number)
    rows = list(page.object_list)
    names: dict[int, dict[str, str]] = {}
    if labels:
        report_ids = {r for v in rows for r in v.assignment.report_order or ()}
        public = dict(Report.objects.filter(pk__in=report_ids).values_list("pk", "public_id"))
        for v in rows:
            order = v.assignment.report_order or ()
            names[v.pk] = {public[r]: report_label(i) for i, r in enumerate(order) if r in public}
    page.entries = [Entry(v, readable(v.payload, names.get(v.pk, {}))) for v in rows]
    return page


def in_time_order(unopened: list, entries: list) -> list[tuple[str, object]]:
    """The rows of a history page, newest first: ("unopened", assignment) at its
    ``submitted_at`` and ("version", entry) at its ``created_at``. Listed apart, the unopened
    submissions came first whatever their dates, and a task opened since (its version
    stamped with its real submission time) dropped below older ones (a tester)."""
    rows = [(a.submitted_at, "unopened", a) for a in unopened]
    rows += [(e.version.created_at, "version", e) for e in entries]
    rows.sort(key=lambda r: (r[0] is not None, r[0]), reverse=True)
    return [(kind, item) for _, kind, item in rows]


def readable(payload, names: dict[str, str]) -> str:
    text = json.dumps(payload, indent=2, ensure_ascii=False, sort_keys=True)
    for public_id, label in names.items():
        text = text.replace(public_id, label)
    return text


def of_annotator(annotator, assignment_id=None):
    """The versions of the annotator's own work they may still see: none of an assignment
    a qualification round holds back or that was withdrawn from them (what the queue and
    the task page hide; ``visible_assignments``)."""
    qs = DraftVersion.objects.filter(assignment__in=visible_assignments(annotator))
    if assignment_id is not None:
        qs = qs.filter(assignment_id=assignment_id)
    return qs


def of_study(study, *, annotator_id=None, assignment_id=None):
    qs = DraftVersion.objects.filter(assignment__study=study)
    if annotator_id is not None:
        qs = qs.filter(assignment__annotator_id=annotator_id)
    if assignment_id is not None:
        qs = qs.filter(assignment_id=assignment_id)
    return qs


def unopened(assignments) -> list[Assignment]:
    """Of ``assignments``, the submitted ones whose submission has no version yet: written
    by the demo, an import or a release (judgment rows, the assignment marked submitted,
    no draft), their page never opened. Opening it adopts the stored answers as version 1,
    stamped with ``submitted_at`` (``annotation.annotate.drafts.adopt``); until then the
    history lists each as that submission, from the assignment alone.

    Why read, not adopt here: a history page is a GET that writes nothing, and adopting
    reads each task's stored answers with its reports rendered (a reader per task type,
    queries per assignment), where this is one query however many there are. Newest
    first."""
    submitted_version = Draft.objects.filter(
        assignment=OuterRef("pk"), submitted_version__isnull=False
    )
    return list(
        assignments.filter(status=Assignment.Status.SUBMITTED)
        .exclude(Exists(submitted_version))
        .select_related("question", "annotator")
        .order_by("-submitted_at", "-pk")
    )
