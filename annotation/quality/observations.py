"""The study's submitted judgments as :class:`~.labels.Observation` rows (the one DB reader
of quality control; everything it feeds is pure). Which rows of which model are a task's
labels is the task's own declaration (``TaskSpec.qc.rows``, via :mod:`.catalog`).

Only judgments whose assignment is submitted count (a draft is not an answer); judgments
imported without an assignment count as submitted when they were created.
"""

from __future__ import annotations

from collections import defaultdict

from django.db.models import Count

from annotation.models import AdjudicationRequest, Assignment, DeepScholarLabel, GoldItem
from annotation.models.quality import counted_decisions

from . import catalog
from .labels import Observation, Unit
from .pace import TaskPace
from .scoring import Gold

SUBMITTED = Assignment.Status.SUBMITTED


def _counts(row) -> bool:
    return row.assignment_id is None or row.assignment.status == SUBMITTED


def _when(row):
    return (row.assignment.submitted_at if row.assignment_id else None) or row.updated_at


def attempted(assignment_id, submitted_at, since) -> bool:
    """Whether work on a qualification unit is an attempt at the qualification item, which
    it became at ``since``: submitted in an assignment once it was one. Work submitted
    before (an ordinary assignment on the same question) or imported was no qualification
    attempt and neither passes nor fails anyone, whether it answered the unit or left it
    unlabelled (docs/QUALITY.md, "Work done before an item was a known answer")."""
    return assignment_id is not None and submitted_at is not None and submitted_at >= since


def load(study, annotator=None, tasks=None) -> list[Observation]:
    """Every submitted label of ``study`` (of one annotator; of ``tasks`` only), read through
    each task type's declaration (``TaskSpec.qc.rows``)."""
    out: list[Observation] = []
    for task, spec in catalog.specs().items():
        if not spec.has_label or (tasks is not None and task not in tasks):
            continue
        for row, unit, label in spec.rows(study, annotator):
            if _counts(row):
                out.append(
                    Observation(
                        row.annotator_id,
                        (task, row.question_id, unit),
                        label,
                        _when(row),
                        assignment=row.assignment_id,
                    )
                )
    return out


def gold_map(study, purpose=GoldItem.Purpose.GOLD) -> dict[Unit, Gold]:
    return {
        (g.task, g.question_id, g.unit): Gold(g.answer, g.source_annotator_id)
        for g in GoldItem.objects.filter(study=study, purpose=purpose)
    }


def skipped(study, purpose=GoldItem.Purpose.GOLD, annotator=None) -> dict[int, list[Unit]]:
    """Annotator -> the known-answer units (of ``purpose``) they skipped: their assignment
    of the unit's task on its question is unsubmitted and carries a skip flag ("Flag or
    skip" … "Flag and skip this task"), or they submitted the task leaving the unit itself
    without a label (a claim check lets a submitted task skip single claims: the task's
    ``LabelSpec.unlabelled``). Scored as not passed (docs/QUALITY.md): otherwise an
    annotator could dodge every gold check by skipping it. The item's source annotator is
    never counted (their own label is not scored either); a skipped task done later is
    answered, no longer skipped. A unit left unlabelled counts for gold whenever the task
    was submitted, as an answer does; for qualification only in a task submitted once the
    unit was a qualification item (:func:`attempted`). Two queries, and one per task type
    with known-answer units that declares ``unlabelled``."""
    items: dict[tuple[str, int], list[tuple[str, int | None, object]]] = defaultdict(list)
    for task, qid, unit, source, created in GoldItem.objects.filter(
        study=study, purpose=purpose
    ).values_list("task", "question_id", "unit", "source_annotator_id", "created_at"):
        items[task, qid].append((unit, source, created))
    if not items:
        return {}
    rows = Assignment.objects.filter(
        study=study,
        status__in=(Assignment.Status.NOT_STARTED, Assignment.Status.IN_PROGRESS),
        question_id__in={q for _, q in items},
        flags__skipped=True,
    )
    if annotator is not None:
        rows = rows.filter(annotator=annotator)
    out: dict[int, set[Unit]] = defaultdict(set)
    for aid, task, qid in set(rows.values_list("annotator_id", "task", "question_id")):
        out[aid].update(
            (task, qid, unit) for unit, source, _ in items.get((task, qid), ()) if source != aid
        )
    since = purpose == GoldItem.Purpose.QUALIFICATION
    for aid, unit in _unlabelled(study, items, annotator, since):
        out[aid].add(unit)
    return {aid: sorted(units) for aid, units in sorted(out.items()) if units}


def _unlabelled(study, items, annotator=None, since: bool = False):
    """(annotator, unit) of every known-answer unit in ``items`` ((task, question) -> [(unit,
    source annotator, created)]) left without a label in a task counted as submitted
    (``_counts``); with ``since``, only in a task submitted once the unit was a known answer
    (:func:`attempted`: the rule of qualification items)."""
    specs = catalog.specs()
    for task in sorted({t for t, _ in items}):
        spec = specs.get(task)
        if spec is None or spec.unlabelled is None:
            continue
        qids = {q for t, q in items if t == task}
        for row, unit, _ in spec.unlabelled(study, qids, annotator):
            known = {u: (source, created) for u, source, created in items[task, row.question_id]}
            if unit not in known or known[unit][0] == row.annotator_id or not _counts(row):
                continue
            if since and not attempted(row.assignment_id, _when(row), known[unit][1]):
                continue
            yield row.annotator_id, (task, row.question_id, unit)


def seconds_per_annotator(study, task: str | None = None) -> dict[int, list[int]]:
    out: dict[int, list[int]] = defaultdict(list)
    rows = Assignment.objects.filter(study=study, status=SUBMITTED)
    if task is not None:
        rows = rows.filter(task=task)
    rows = rows.values_list("annotator_id", "seconds_on_task")
    for aid, seconds in rows:
        out[aid].append(seconds)
    return dict(out)


def unit_paces(study, task: str | None = None) -> list[TaskPace]:
    """Each submitted DeepScholar label task of the study (of ``task`` only, if given) with
    its units labelled and its seconds on task (:mod:`.pace`). Only tasks worked on the
    task page (a draft: its clock ran) — labels imported under an annotator's name have no
    time to judge. One query."""
    rows = DeepScholarLabel.objects.filter(
        study=study, assignment__status=SUBMITTED, assignment__draft__isnull=False
    )
    if task is not None:
        rows = rows.filter(assignment__task=task)
    rows = (
        rows.values("assignment_id", "assignment__annotator_id", "assignment__task",
                    "assignment__seconds_on_task")
        .annotate(units=Count("pk"))
        .order_by("assignment_id")
    )  # fmt: skip
    return [
        TaskPace(r["assignment_id"], r["assignment__annotator_id"], r["assignment__task"],
                 r["units"], r["assignment__seconds_on_task"])
        for r in rows
    ]  # fmt: skip


def adjudicated_labels(study, tasks: tuple[str, ...] | None = None) -> dict[Unit, str]:
    """unit -> adjudicated label, where every counted decided request of the unit gave the
    same one (two annotators adjudicating their own disagreement and still disagreeing: no
    label). The decisions of an adjudicator who failed qualification do not count
    (:func:`annotation.models.quality.counted_decisions`): their unit has no adjudicated
    label until someone else decides it. ``tasks``: only these tasks' requests (every
    task's when None). One query."""
    labels: dict[Unit, set[str]] = defaultdict(set)
    decided = counted_decisions(AdjudicationRequest.objects.filter(study=study))
    if tasks is not None:
        decided = decided.filter(task__in=tasks)
    for task, question_id, unit, label in decided.values_list(
        "task", "question_id", "unit", "label"
    ):
        labels[(task, question_id, unit)].add(label)
    return {u: next(iter(ls)) for u, ls in labels.items() if len(ls) == 1}
