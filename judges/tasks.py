"""Celery tasks of the judges: live runs off the request path, one task per chunk.

``run_judge`` opens a run under its lease and queues one ``run_chunk`` per chunk of units
(:mod:`judges.execution`); each chunk holds a lease of its own, so the chunks of one run
spread over every worker, and the chunk that settles last closes the run. Imports run one
way: :mod:`judges.runs` (the public API) → this module → :mod:`judges.execution`.
"""

from celery import shared_task
from celery.signals import worker_process_init

from . import execution


@worker_process_init.connect
def warm_up(**kwargs) -> None:
    """A worker's process (prefork's children, the solo pool's own) pays at start what the
    first chunk would (the LLM client's certificate store and lazy imports)."""
    execution.warm()


@shared_task(bind=True, acks_late=True)
def run_judge(self, run_id: int, lease: str) -> str:
    """Open a judge run and queue its chunks; idempotent.

    A redelivered message of a run that was resumed meanwhile carries the old lease and
    does nothing; one of a finished run does nothing either. Eagerly (no broker) the chunks
    execute right here and the run's final status is returned.
    """
    chunks = execution.open_run(run_id, lease)
    if chunks is None:
        return "skipped"
    for chunk_id, chunk_lease in chunks:
        run_chunk.delay(chunk_id, chunk_lease)
    return execution.status_of(run_id)


@shared_task(bind=True, acks_late=True)
def run_chunk(self, chunk_id: int, lease: str) -> str:
    """Judge the pending units of one chunk (:func:`judges.execution.execute_chunk`)."""
    return execution.execute_chunk(chunk_id, lease)


def queue_run(run_id: int, lease: str) -> None:
    run_judge.delay(run_id, lease)


def queue_chunk(chunk_id: int, lease: str) -> None:
    run_chunk.delay(chunk_id, lease)


def take_over_stale(stale_after=None) -> list[int]:
    """Lease again and queue the chunks and runs whose worker died (ids of the runs)."""
    limit = execution.STALE_AFTER if stale_after is None else stale_after
    return execution.take_over_stale(queue_run, queue_chunk, limit)


@shared_task
def resume_stale_runs() -> list[int]:
    """Resume runs whose worker died (scheduled by Celery beat every minute)."""
    return take_over_stale()
