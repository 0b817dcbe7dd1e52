"""Judge runs through a real Celery worker on Redis, on the PostgreSQL test database.

Needs ``CONCORD_TEST_BROKER_URL`` and PostgreSQL (the ``celery_worker_process`` fixture
skips otherwise). The fake LLM server runs in this test process; the worker process calls
it over loopback.
"""

from __future__ import annotations

import subprocess
import time
from datetime import timedelta

import pytest

from judges import runs
from judges.models import JudgeCoverage, JudgePairwise, JudgeRun, JudgeUnit
from tests import worker
from tests.builders.judged import build_study, make_judge

pytestmark = [pytest.mark.celery_worker, pytest.mark.xdist_group("celery-worker")]


def wait_for(predicate, timeout: float = 60.0, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    pytest.fail(f"timed out waiting for {what}")


def run_state(run_id: int) -> JudgeRun:
    return JudgeRun.objects.get(pk=run_id)


def start_worker() -> subprocess.Popen:
    """A second worker, started exactly as the ``celery_worker_process`` fixture's
    (``tests/worker.py``); killed, not leaked, when it does not answer."""
    from django.db import connection

    from concord.celery import app

    proc = worker.start_worker(connection, worker.xdist_broker_url())
    try:
        worker.wait_until_answering(app, [proc], 60)
    except worker.WorkerError as exc:
        pytest.fail(str(exc))
    return proc


def test_a_live_run_end_to_end_through_a_real_worker(celery_worker_process, fake_llm):
    study = build_study(questions=1)
    judge = make_judge(fake_llm)
    run = runs.start_run(judge, study, ["ensemble"])
    assert run.status == JudgeRun.Status.QUEUED  # queued, not run in this process
    done = wait_for(
        lambda: run_state(run.pk).status in ("done", "failed") and run_state(run.pk), 90, "run"
    )
    assert done.status == JudgeRun.Status.DONE, done.errors
    assert done.total_units == done.done_units == 6 + 6  # coverage batches + both orders
    assert JudgePairwise.objects.filter(judge=judge, protocol="ensemble").count() == 3
    assert set(fake_llm.answered.values()) == {1} and len(fake_llm.answered) == 12


def test_a_killed_worker_resumes_without_loss(celery_worker_process, fake_llm, monkeypatch):
    study = build_study(questions=2)  # 6 reports × 10 items: 12 coverage units
    judge = make_judge(fake_llm, concurrency=2)
    fake_llm.block_after = 5
    run = runs.start_run(judge, study, ["coverage"])
    # five answers delivered and persisted, the next calls hang at the server
    wait_for(lambda: run_state(run.pk).done_units == 5 and fake_llm.held == 2, 90, "5 units")
    celery_worker_process.kill()  # SIGKILL mid-run: two calls in flight
    celery_worker_process.wait(timeout=20)
    fake_llm.release()  # the held calls are dropped unanswered
    assert run_state(run.pk).status == JudgeRun.Status.RUNNING

    second = start_worker()
    try:
        monkeypatch.setattr(runs, "STALE_AFTER", timedelta(0))  # the dead run shows no life
        assert runs.resume_stale_runs() == [run.pk]
        done = wait_for(
            lambda: run_state(run.pk).status in ("done", "failed") and run_state(run.pk),
            90,
            "the resumed run",
        )
    finally:
        second.terminate()
        second.wait(timeout=20)
    assert done.status == JudgeRun.Status.DONE, done.errors
    # each unit judged exactly once: one answer per prompt at the server, one row per item
    assert len(fake_llm.answered) == done.total_units == 12
    assert set(fake_llm.answered.values()) == {1}
    assert sorted(fake_llm.received.values()) == [1] * 10 + [2] * 2  # the two dropped calls
    assert JudgeUnit.objects.filter(run=run, status="done").count() == 12
    assert done.done_units == 12 and done.requests == 12
    assert JudgeCoverage.objects.filter(judge=judge).count() == 60
