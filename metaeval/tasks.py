"""Celery tasks of the meta-evaluation: large reports (with bootstrap) off the request path.

A report is a pure function of the study's rows and the options (the bootstrap is seeded),
so a run whose worker died is not resumed piece by piece like a judge run: it is started
again from scratch and gives the same result an uninterrupted run would have given.
What needs care is noticing the death and not letting two executions race:

* the executing worker writes ``heartbeat_at`` every few seconds from a side thread (the
  bootstrap is one long numpy computation that cannot report progress often), so a run
  that says RUNNING with an old heartbeat has lost its worker;
* :func:`restart_stale_runs` (scheduled by Celery beat, see ``CELERY_BEAT_SCHEDULE``)
  gives such a run a new lease and queues it again; the dead execution's message, if the
  broker redelivers it later, carries the old lease and does nothing.
"""

from __future__ import annotations

import threading
import uuid
from contextlib import contextmanager
from datetime import timedelta

from celery import shared_task
from django.db import connection
from django.db.models import F
from django.utils import timezone

from . import sections
from .models import ReportRun
from .reports import ReportOptions

#: A running run whose heartbeat is older than this has lost its worker.
STALE_AFTER = timedelta(seconds=60)
#: Seconds between two heartbeats of an executing run.
HEARTBEAT_EVERY = 5.0

Status = ReportRun.Status


class RunError(ValueError):
    """A report run cannot be restarted; the message says why."""


@shared_task(bind=True, acks_late=True)
def run_report(self, run_id: int, lease: str = "") -> int:
    """Compute a ReportRun's report and store it; progress is written as it goes.

    Only the execution holding the run's lease writes; a run already done is left as it is.
    """
    claimed = (
        ReportRun.objects.filter(pk=run_id, lease=lease)
        .exclude(status=Status.DONE)
        .update(
            status=Status.RUNNING,
            progress=0.01,
            error="",
            heartbeat_at=timezone.now(),
            attempts=F("attempts") + 1,
        )
    )
    if not claimed:  # done, or restarted under another lease meanwhile
        return run_id
    mine = ReportRun.objects.filter(pk=run_id, lease=lease)
    run = mine.get()

    def progress(fraction: float) -> None:
        mine.update(progress=max(0.01, min(fraction, 0.99)), heartbeat_at=timezone.now())

    # Eager runs execute inside a request: no worker to lose, no heartbeat thread needed.
    with _heartbeat(run_id, lease, enabled=not self.request.is_eager):
        try:
            result = sections.report(run.study_id, ReportOptions.from_dict(run.options), progress)
        except Exception as exc:  # noqa: BLE001 - stored for the user, then re-raised
            mine.update(status=Status.FAILED, error=str(exc), finished_at=timezone.now())
            raise
    mine.update(status=Status.DONE, result=result, progress=1.0, finished_at=timezone.now())
    return run_id


@contextmanager
def _heartbeat(run_id: int, lease: str, *, enabled: bool):
    """Keep ``heartbeat_at`` fresh from a daemon thread while the body runs."""
    if not enabled:
        yield
        return
    stop = threading.Event()

    def beat() -> None:
        try:
            while not stop.wait(HEARTBEAT_EVERY):
                ReportRun.objects.filter(pk=run_id, lease=lease, status=Status.RUNNING).update(
                    heartbeat_at=timezone.now()
                )
        finally:
            connection.close()  # the thread's own connection

    thread = threading.Thread(target=beat, name=f"report-run-{run_id}-heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def start_report(study, options: ReportOptions, user=None) -> ReportRun:
    """Create a run and queue it (eagerly computed when no broker is configured)."""
    run = ReportRun.objects.create(
        study=study, options=options.to_dict(), requested_by=user, lease=uuid.uuid4().hex
    )
    run_report.delay(run.pk, run.lease)
    run.refresh_from_db()
    return run


def is_stale(run: ReportRun, now=None) -> bool:
    """True when a RUNNING run has shown no life for STALE_AFTER."""
    now = now or timezone.now()
    return run.status == Status.RUNNING and (
        run.heartbeat_at is None or now - run.heartbeat_at > STALE_AFTER
    )


def restart_run(run: ReportRun, *, force: bool = False) -> ReportRun:
    """Queue an unfinished run again from scratch under a new lease.

    Refused for a done run, and for a running one that still shows life unless ``force``
    (the caller knows its worker is dead).
    """
    run.refresh_from_db()
    if run.status == Status.DONE:
        raise RunError(f"report run {run.pk} is done; nothing to restart")
    if run.status == Status.RUNNING and not force and not is_stale(run):
        raise RunError(
            f"report run {run.pk} is running (last heartbeat {run.heartbeat_at:%H:%M:%S}); "
            "restart it when it stops, or force it if its worker is dead"
        )
    _requeue(ReportRun.objects.filter(pk=run.pk).exclude(status=Status.DONE), run.pk)
    run.refresh_from_db()
    return run


def restart_stale_runs() -> list[int]:
    """Restart every run that says RUNNING but has shown no life for STALE_AFTER.

    Each run is taken over with one conditional UPDATE, so a run that finished or beat
    between the scan and the restart is left alone, and two schedulers cannot both
    restart it.
    """
    cutoff = timezone.now() - STALE_AFTER
    stale = ReportRun.objects.filter(status=Status.RUNNING, heartbeat_at__lt=cutoff)
    restarted = []
    for pk in stale.values_list("pk", flat=True):
        if _requeue(stale.filter(pk=pk), pk):
            restarted.append(pk)
    return restarted


def _requeue(rows, run_id: int) -> bool:
    lease = uuid.uuid4().hex
    taken = rows.update(
        lease=lease, status=Status.PENDING, progress=0.0, finished_at=None, heartbeat_at=None
    )
    if taken:
        run_report.delay(run_id, lease)
    return bool(taken)


@shared_task
def restart_stale_report_runs() -> list[int]:
    """Celery beat's entry point for :func:`restart_stale_runs`."""
    return restart_stale_runs()
