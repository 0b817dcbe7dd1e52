"""Live judge runs: create, start, resume and cancel them (the API the pages, the REST API
and the ``judge_run`` command call).

A run (:class:`~judges.models.JudgeRun`) is planned into units
(:class:`~judges.models.JudgeUnit`): a coverage batch of ≤ 8 rubric items of one report,
one order of a direct pairwise comparison, one report's paragraph relevance, one claim.
What each kind of unit asks, writes and scores is declared once per kind in
:mod:`judges.kinds`; the units are grouped in chunks, each executed by one Celery task
under its own lease (:mod:`judges.execution`, :mod:`judges.tasks`), so that several
workers share one run. A run and its chunks follow the leased-run discipline of
:mod:`concord.leases`, shared with the report runs of :mod:`metaeval.tasks`.

Imports run one way: this module → :mod:`judges.tasks` → :mod:`judges.execution` →
:mod:`judges.kinds`.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from annotation import webhooks
from concord.leases import new_lease

from . import execution, writes
from . import tasks as queue
from .execution import CHUNKS, RUNS, STALE_AFTER, make_chunks
from .kinds import KINDS, comparisons, finalize, plan_units, report_claims, report_text
from .llm import LLMConfig
from .models import Judge, JudgeRun, JudgeUnit
from .run_options import RunError, RunOptionError, clean_options

__all__ = [
    "CHUNKS", "RUNS", "STALE_AFTER", "RunError", "RunOptionError", "cancel_run", "comparisons",
    "create_run", "execute_run", "finalize", "is_stale", "report_claims", "report_text",
    "resume_run", "resume_stale_runs", "start_run",
]  # fmt: skip

Task = JudgeRun.Task
#: Tasks whose units a task kind needs (the ensemble needs coverage and both orders).
UNIT_TASKS = {task: k.unit_tasks() for task, k in KINDS.items()}


def create_run(judge: Judge, study, tasks, options: dict | None = None, user=None) -> JudgeRun:
    """Validate, plan and save a run and its chunks (queued, not started). A wrong option
    (:mod:`judges.run_options`) is a :class:`RunOptionError` naming it."""
    tasks = list(dict.fromkeys(tasks or []))
    if not tasks:
        raise RunError("tasks: name at least one of " + ", ".join(Task.values))
    unknown = [t for t in tasks if t not in Task.values]
    if unknown:
        raise RunError(f"tasks: {', '.join(unknown)} not one of {', '.join(Task.values)}")
    refused = [t for t in tasks if t in JudgeRun.refused_tasks(study)]
    if refused:  # a study's coverage rows are of its one protocol (0–4 or covered yes / no)
        raise RunError(JudgeRun.refusal(study, refused[0]))
    try:
        LLMConfig.for_judge(judge)
    except ValueError as exc:
        raise RunError(str(exc)) from None
    options = clean_options(options, study, {t for task in tasks for t in UNIT_TASKS[task]})
    with transaction.atomic():
        run = JudgeRun.objects.create(
            judge=judge,
            study=study,
            tasks=tasks,
            options=options,
            requested_by=user,
            lease=new_lease(),
        )
        units = plan_units(run)
        make_chunks(run, units)
        writes.insert(JudgeUnit, units)
        run.total_units = len(units)
        run.save(update_fields=["total_units"])
    return run


def start_run(judge: Judge, study, tasks, options: dict | None = None, user=None) -> JudgeRun:
    """Create a run and queue it (runs at once, in-process, when no broker is configured)."""
    run = create_run(judge, study, tasks, options, user)
    queue.queue_run(run.pk, run.lease)
    run.refresh_from_db()
    return run


def execute_run(run_id: int, lease: str) -> str:
    """Execute a whole run in this process, chunk after chunk (what the tasks do spread
    over workers); returns the run's final status, "skipped" when ``lease`` no longer
    holds the run, "superseded" when it was taken over midway."""
    chunks = execution.open_run(run_id, lease)
    if chunks is None:
        return "skipped"
    for chunk_id, chunk_lease in chunks:
        if execution.execute_chunk(chunk_id, chunk_lease) == "superseded":
            return "superseded"
    return execution.status_of(run_id)


def is_stale(run: JudgeRun, now=None) -> bool:
    """True when a run has shown no life for STALE_AFTER."""
    now = now or timezone.now()
    return run.heartbeat_at is None or now - run.heartbeat_at > STALE_AFTER


def resume_run(run: JudgeRun, *, force: bool = False) -> JudgeRun:
    """Queue an unfinished run again under a new lease; completed units are skipped and
    failed ones retried. Refused while the run shows life, unless ``force`` (the caller
    knows its worker is dead)."""
    run.refresh_from_db()
    if run.status == JudgeRun.Status.DONE:
        raise RunError(f"run {run.pk} is done; nothing to resume")
    if run.status == JudgeRun.Status.RUNNING and not force and not is_stale(run):
        raise RunError(
            f"run {run.pk} is running (last heartbeat {run.heartbeat_at:%H:%M:%S}); "
            "resume it when it stops, or force it if its worker is dead"
        )
    _check_targets(run)
    rows = JudgeRun.objects.filter(pk=run.pk).exclude(status=JudgeRun.Status.DONE)
    lease = execution.release_run(run.pk, rows)
    if lease:
        queue.queue_run(run.pk, lease)
    run.refresh_from_db()
    return run


#: What a unit's payload names by database id (planned when the run started), by key.
_TARGETS = {
    "items": ("annotation.RubricItem", "rubric item"),
    "report": ("annotation.Report", "report"),
    "left": ("annotation.Report", "report"),
    "right": ("annotation.Report", "report"),
    "question": ("annotation.Question", "question"),
}


def _check_targets(run: JudgeRun) -> None:
    """Refuse to resume a run whose unfinished units name content that is gone (a rubric
    re-imported replaces its items): the units were planned on the old content, and the
    judge would be asked about nothing. The message names a unit and what is missing."""
    from django.apps import apps

    wanted: dict[str, set[int]] = {}
    units = list(run.units.exclude(status=JudgeUnit.Status.DONE).values_list("key", "payload"))
    for _, payload in units:
        for name, value in (payload or {}).items():
            if name in _TARGETS:
                ids = value if isinstance(value, list) else [value]
                wanted.setdefault(_TARGETS[name][0], set()).update(
                    i for i in ids if isinstance(i, int)
                )
    present = {
        label: set(apps.get_model(label).objects.filter(pk__in=ids).values_list("pk", flat=True))
        for label, ids in wanted.items()
    }
    for key, payload in units:
        for name, value in (payload or {}).items():
            if name not in _TARGETS:
                continue
            label, noun = _TARGETS[name]
            ids = value if isinstance(value, list) else [value]
            gone = [i for i in ids if isinstance(i, int) and i not in present[label]]
            if gone:
                raise RunError(
                    f"run {run.pk}: unit {key} names {noun} {', '.join(map(str, gone))}, which "
                    "no longer exists (the study's content changed since the run was planned); "
                    "start a new run"
                )


def resume_stale_runs() -> list[int]:
    """Resume what lost its worker: a chunk that stopped beating is leased again alone; a
    run that says RUNNING but has shown no life for STALE_AFTER is resumed whole."""
    return queue.take_over_stale(STALE_AFTER)


def cancel_run(run: JudgeRun) -> None:
    cancelled = (
        JudgeRun.objects.filter(pk=run.pk)
        .exclude(status__in=[JudgeRun.Status.DONE, JudgeRun.Status.CANCELLED])
        .update(status=JudgeRun.Status.CANCELLED, lease="", finished_at=timezone.now())
    )
    if cancelled:
        run.refresh_from_db()
        webhooks.judge_run_finished(run)
