"""Celery tasks of the meta-evaluation: large reports (with bootstrap) off the request path.

A report is a pure function of the study's rows and the options (the bootstrap is seeded),
so a run whose worker died is not resumed piece by piece like a judge run: it is started
again from scratch and gives the same result an uninterrupted run would have given.
What needs care is noticing the death and not letting two executions race; both follow
the leased-run discipline of :mod:`concord.leases` (shared with the judge runs):

* the executing worker writes ``heartbeat_at`` every few seconds from a side thread (the
  bootstrap is one long numpy computation that cannot report progress often), so a run
  that says RUNNING with an old heartbeat has lost its worker;
* :func:`restart_stale_runs` (scheduled by Celery beat, see ``CELERY_BEAT_SCHEDULE``)
  gives such a run a new lease and queues it again; the dead execution's message, if the
  broker redelivers it later, carries the old lease and does nothing.
"""

from __future__ import annotations

from datetime import timedelta

from celery import shared_task
from django.db.models import F
from django.utils import timezone

from concord.leases import Leases, new_lease

from . import sections
from .models import ReportRun
from .reports import ReportOptions

#: A running run whose heartbeat is older than this has lost its worker.
STALE_AFTER = timedelta(seconds=60)
#: Seconds between two heartbeats of an executing run.
HEARTBEAT_EVERY = 5.0

Status = ReportRun.Status
#: Report runs' statuses as the lease module knows them (stored names unchanged).
LEASES = Leases(
    ReportRun,
    queued=Status.PENDING,
    running=Status.RUNNING,
    final=(Status.DONE,),
    stale_after=STALE_AFTER,
    heartbeat_every=HEARTBEAT_EVERY,
)


class RunError(ValueError):
    """A report run cannot be restarted; the message says why."""


@shared_task(bind=True, acks_late=True)
def run_report(self, run_id: int, lease: str = "") -> int:
    """Compute a ReportRun's report and store it; progress is written as it goes.

    Only the execution holding the run's lease writes; a run already done is left as it is.
    """
    if not LEASES.claim(run_id, lease, progress=0.01, error="", attempts=F("attempts") + 1):
        return run_id  # done, or restarted under another lease meanwhile
    mine = LEASES.held(run_id, lease)
    run = mine.get()

    def progress(fraction: float) -> None:
        mine.update(progress=max(0.01, min(fraction, 0.99)), heartbeat_at=timezone.now())

    # Eager runs execute inside a request: no worker to lose, no heartbeat thread needed.
    with LEASES.beating(run_id, lease, enabled=not self.request.is_eager, every=HEARTBEAT_EVERY):
        try:
            result = sections.report(run.study_id, ReportOptions.from_dict(run.options), progress)
        except Exception as exc:  # noqa: BLE001 - stored for the user, then re-raised
            LEASES.settle(run_id, lease, Status.FAILED, error=str(exc))
            raise
    LEASES.settle(run_id, lease, Status.DONE, result=result, progress=1.0)
    return run_id


def start_report(study, options: ReportOptions, user=None) -> ReportRun:
    """Create a run and queue it (eagerly computed when no broker is configured)."""
    run = ReportRun.objects.create(
        study=study, options=options.to_dict(), requested_by=user, lease=new_lease()
    )
    run_report.delay(run.pk, run.lease)
    run.refresh_from_db()
    return run


def is_stale(run: ReportRun, now=None) -> bool:
    """True when a RUNNING run has shown no life for STALE_AFTER."""
    return LEASES.is_stale(run, now, STALE_AFTER)


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


#: What a restart resets besides the lease and the status.
RESTART_FIELDS = {"progress": 0.0, "finished_at": None, "heartbeat_at": None}


def restart_stale_runs() -> list[int]:
    """Restart every run that says RUNNING but has shown no life for STALE_AFTER.

    Each run is taken over with one conditional UPDATE, so a run that finished or beat
    between the scan and the restart is left alone, and two schedulers cannot both
    restart it.
    """
    return LEASES.take_over_stale(_queue, STALE_AFTER, **RESTART_FIELDS)


def _requeue(rows, run_id: int) -> bool:
    lease = LEASES.take_over(rows, **RESTART_FIELDS)
    if lease:
        _queue(run_id, lease)
    return bool(lease)


def _queue(run_id: int, lease: str) -> None:
    run_report.delay(run_id, lease)


@shared_task
def restart_stale_report_runs() -> list[int]:
    """Celery beat's entry point for :func:`restart_stale_runs`."""
    return restart_stale_runs()
