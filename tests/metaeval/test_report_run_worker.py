"""A report run survives its worker being killed (SIGKILL) in the middle of a bootstrap.

A real Celery worker on Redis computes a long bootstrap report on the PostgreSQL test
database; it is killed while the bootstrap runs, the run is left RUNNING with a heartbeat
that stops moving, the stale-run restart queues it again, and a new worker finishes it
with exactly the report an uninterrupted computation gives.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import override_settings

from metaeval import sections, tasks
from metaeval.models import ReportRun
from metaeval.reports import ReportOptions
from tests.builders.ranked import ranked_study
from tests.judges.test_worker import start_worker, wait_for

pytestmark = [pytest.mark.celery_worker, pytest.mark.xdist_group("celery-worker")]
ROUNDS = 1_000_000
#: About five seconds of bootstrap on one core: long enough to be killed in the middle.
#: Above the default cap (CONCORD_MAX_BOOTSTRAP), which this test raises for itself and
#: for its workers.
with override_settings(CONCORD_MAX_BOOTSTRAP=ROUNDS):
    OPTIONS = ReportOptions(bootstrap=ROUNDS, seed=7)


@pytest.fixture(autouse=True)
def _raise_the_bootstrap_cap(settings, monkeypatch):
    settings.CONCORD_MAX_BOOTSTRAP = ROUNDS
    monkeypatch.setenv("CONCORD_MAX_BOOTSTRAP", str(ROUNDS))


def state(run_id: int) -> ReportRun:
    return ReportRun.objects.get(pk=run_id)


def test_a_report_run_killed_mid_bootstrap_is_restarted_and_finishes(
    celery_worker_process, monkeypatch
):
    study = ranked_study(40, name="killed")
    run = tasks.start_report(study, OPTIONS)
    assert run.status == ReportRun.Status.PENDING  # queued, not computed in this process

    # the worker has loaded the data and is inside the bootstrap (progress 0.05 .. 0.95)
    wait_for(lambda: state(run.pk).progress >= 0.05, 60, "the bootstrap to start")
    celery_worker_process.kill()  # SIGKILL: no chance to write anything
    celery_worker_process.wait(timeout=20)
    dead = state(run.pk)
    assert dead.status == ReportRun.Status.RUNNING and dead.result is None
    assert dead.attempts == 1 and not tasks.is_stale(dead)  # beat too recently to tell yet

    second = start_worker()
    try:
        monkeypatch.setattr(tasks, "STALE_AFTER", timedelta(0))  # the dead run shows no life
        assert tasks.restart_stale_report_runs() == [run.pk]
        done = wait_for(
            lambda: state(run.pk).status in ("done", "failed") and state(run.pk),
            300,  # a new worker's start and the whole bootstrap, on a loaded machine
            "the restarted run",
        )
    finally:
        second.terminate()
        second.wait(timeout=20)
    assert done.status == ReportRun.Status.DONE, done.error
    assert done.attempts == 2 and done.progress == 1.0 and done.lease != dead.lease
    uninterrupted = sections.report(study.pk, OPTIONS)  # what a run computes
    assert done.result == uninterrupted
    assert done.result["preference"]["overall"]["ci"]["rounds"] == OPTIONS.bootstrap
