"""Judge runs split into chunks (issue 18): each chunk is a Celery task under a lease of its
own (concord.leases), so two workers share one run; the run completes when every chunk
has; a chunk whose worker died is leased again alone."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.utils import timezone

from judges import execution, runs
from judges.models import JudgeChunk, JudgeCoverage, JudgeRun, JudgeUnit
from tests.builders.judged import build_study, make_judge


def wait_for(predicate, timeout: float = 90.0, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    pytest.fail(f"timed out waiting for {what}")


@pytest.fixture
def small_chunks(monkeypatch):
    monkeypatch.setattr(execution, "CHUNK_UNITS", 5)


@pytest.mark.django_db
def test_a_run_is_planned_in_chunks_that_cover_every_unit_once(fake_llm, small_chunks):
    study = build_study(questions=2)  # 6 reports × 10 items: 12 coverage units
    run = runs.create_run(make_judge(fake_llm), study, ["coverage"])
    chunks = list(run.chunks.order_by("number"))
    assert [c.units.count() for c in chunks] == [4, 4, 4]  # ceil(12 / 5) = 3, balanced
    assert len({c.lease for c in chunks}) == 3 and all(c.status == "queued" for c in chunks)
    assert not run.units.filter(chunk__isnull=True).exists()


@pytest.mark.django_db
def test_eager_chunks_complete_the_run_once(fake_llm, small_chunks):
    study = build_study(questions=2)
    judge = make_judge(fake_llm)
    run = runs.start_run(judge, study, ["coverage", "pairwise"])
    run.refresh_from_db()
    assert run.status == JudgeRun.Status.DONE, run.errors
    assert run.total_units == run.done_units == 12 + 12 and run.requests == 24
    assert run.chunks.count() == 5 and not run.chunks.exclude(status="done").exists()
    assert set(fake_llm.answered.values()) == {1} and len(fake_llm.answered) == 24


@pytest.mark.django_db
def test_a_stale_chunk_is_leased_again_alone(fake_llm, small_chunks):
    study = build_study(questions=2)
    judge = make_judge(fake_llm)
    run = runs.create_run(judge, study, ["coverage"])
    first, second, third = run.chunks.order_by("number")
    # What a worker killed mid-chunk leaves: the run and chunk 1 RUNNING, chunk 1's
    # heartbeat old and one of its units done; chunk 2 still beats on another worker.
    old = timezone.now() - runs.STALE_AFTER - timedelta(seconds=5)
    done_unit = first.units.order_by("pk").first()
    JudgeUnit.objects.filter(pk=done_unit.pk).update(status=JudgeUnit.Status.DONE)
    JudgeRun.objects.filter(pk=run.pk).update(
        status="running", heartbeat_at=timezone.now(), done_units=1
    )
    JudgeChunk.objects.filter(pk=first.pk).update(status="running", heartbeat_at=old)
    JudgeChunk.objects.filter(pk=second.pk).update(status="running", heartbeat_at=timezone.now())

    assert runs.resume_stale_runs() == [run.pk]  # eager: the chunk executes right here

    dead_lease = first.lease
    first.refresh_from_db()
    assert first.status == "done" and first.lease != dead_lease and first.attempts == 1
    assert execution.execute_chunk(first.pk, dead_lease) == "skipped"  # a redelivery
    assert fake_llm.total_answered == 3  # chunk 1's other three units, nothing else
    second.refresh_from_db()
    assert second.status == "running"  # still beating: left alone
    assert run.chunks.get(pk=third.pk).status == "queued"  # queued, not stale
    run.refresh_from_db()
    assert run.status == "running"  # two chunks open

    # chunk 2's worker dies too; chunk 3's message was lost: the run shows no life at all
    JudgeChunk.objects.filter(pk=second.pk).update(heartbeat_at=old)
    JudgeRun.objects.filter(pk=run.pk).update(heartbeat_at=old)
    assert runs.resume_stale_runs() == [run.pk]
    run.refresh_from_db()
    assert run.status == JudgeRun.Status.DONE and run.done_units == 12
    assert set(fake_llm.answered.values()) == {1} and len(fake_llm.answered) == 11
    assert JudgeCoverage.objects.filter(judge=judge).count() == 60 - len(done_unit.payload["items"])


@pytest.mark.django_db
def test_judge_runs_and_report_runs_use_the_one_lease_module():
    """One declaration of lease, heartbeat, stale detection and take-over: the judge runs,
    their chunks and the report runs are all concord.leases.Leases, and no module beside
    concord/leases.py queries stale heartbeats or runs a heartbeat thread of its own."""
    from pathlib import Path

    from concord.leases import Leases
    from metaeval import tasks as report_tasks
    from metaeval.models import ReportRun

    assert isinstance(execution.RUNS, Leases) and execution.RUNS.model is JudgeRun
    assert isinstance(execution.CHUNKS, Leases) and execution.CHUNKS.model is JudgeChunk
    assert isinstance(report_tasks.LEASES, Leases) and report_tasks.LEASES.model is ReportRun
    # the stored status names are unchanged: pending for report runs, queued for judge runs
    assert report_tasks.LEASES.queued == "pending" and execution.RUNS.queued == "queued"
    root = Path(__file__).resolve().parents[2]
    sources = {
        p: p.read_text()
        for app in ("judges", "metaeval")
        for p in (root / app).rglob("*.py")
        if "migrations" not in p.parts
    }
    for path, text in sources.items():
        assert "heartbeat_at__lt" not in text, path
        assert "threading.Thread" not in text, path


@pytest.mark.celery_worker
@pytest.mark.xdist_group("celery-worker")
def test_two_workers_share_one_run_and_every_unit_is_judged_once(
    celery_worker_process, fake_llm, small_chunks
):
    from django.db import connection

    from concord.celery import app
    from tests import worker

    study = build_study(questions=4)  # 12 reports × 10 items: 24 units, 5 chunks
    judge = make_judge(fake_llm, concurrency=2)
    fake_llm.delay = 0.05  # long enough for both workers to take chunks
    second = worker.start_worker(connection, worker.xdist_broker_url(), name="w2@%h")
    try:
        worker.wait_until_answering(app, [celery_worker_process, second], 60)
        run = runs.start_run(judge, study, ["coverage"])
        assert run.status == JudgeRun.Status.QUEUED
        done = wait_for(
            lambda: (r := JudgeRun.objects.get(pk=run.pk)).status in ("done", "failed") and r,
            what="the run",
        )
    finally:
        worker.stop([second])
    assert done.status == JudgeRun.Status.DONE, done.errors
    chunks = list(done.chunks.all())
    assert len(chunks) == 5 and all(c.status == "done" and c.attempts == 1 for c in chunks)
    assert done.total_units == done.done_units == done.requests == 24
    assert set(fake_llm.answered.values()) == {1} and len(fake_llm.answered) == 24
    assert JudgeCoverage.objects.filter(judge=judge).count() == 120


def test_runs_and_tasks_import_one_way():
    """judges.runs → judges.tasks → judges.execution → judges.kinds: no module imports one
    above it (the runs ↔ tasks loop of issue 14 is gone)."""
    import ast
    from pathlib import Path

    order = ["runs", "tasks", "execution", "kinds"]
    root = Path(__file__).resolve().parents[2] / "judges"
    for i, name in enumerate(order):
        tree = ast.parse((root / f"{name}.py").read_text())
        imported = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                imported |= {node.module} if node.module else {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("judges."):
                imported.add(node.module.split(".")[1])
        assert not imported & set(order[: i + 1]), (name, imported)
