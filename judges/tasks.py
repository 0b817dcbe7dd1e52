"""Celery tasks of the judges: live runs off the request path (see :mod:`judges.runs`)."""

from celery import shared_task

from . import runs


@shared_task(bind=True, acks_late=True)
def run_judge(self, run_id: int, lease: str) -> str:
    """Execute a judge run; idempotent and resumable (:func:`judges.runs.execute_run`).

    A redelivered message of a run that was resumed meanwhile carries the old lease and
    does nothing; one of a finished run does nothing either.
    """
    return runs.execute_run(run_id, lease)


@shared_task
def resume_stale_runs() -> list[int]:
    """Resume runs whose worker died (schedule it with celery beat if wanted)."""
    return runs.resume_stale_runs()
