"""Report runs whose worker died are noticed (old heartbeat) and restarted from scratch.

The scheduled task (Celery beat) is called as a function here; the end-to-end case with a
real worker killed by SIGKILL in the middle of a bootstrap is in test_report_run_worker.py.
"""

from datetime import timedelta

import pytest
from django.utils import timezone

from metaeval import sections, tasks
from metaeval.models import ReportRun
from metaeval.reports import ReportOptions
from tests.builders.ranked import ranked_study

pytestmark = pytest.mark.django_db
OPTIONS = ReportOptions(bootstrap=200, seed=3)


def running_run(study, *, beat_ago: timedelta, lease: str = "dead-worker") -> ReportRun:
    """A run as a worker leaves it when it dies: RUNNING, half-way, last heartbeat long ago."""
    return ReportRun.objects.create(
        study=study,
        options=OPTIONS.to_dict(),
        status=ReportRun.Status.RUNNING,
        progress=0.4,
        lease=lease,
        attempts=1,
        heartbeat_at=timezone.now() - beat_ago,
    )


def test_the_scheduled_task_restarts_a_stale_run_and_gives_the_uninterrupted_result():
    study = ranked_study(6)
    stale = running_run(study, beat_ago=tasks.STALE_AFTER + timedelta(seconds=5))
    alive = running_run(study, beat_ago=timedelta(seconds=2), lease="live-worker")

    assert tasks.restart_stale_report_runs() == [stale.pk]  # eager: computed right here

    stale.refresh_from_db()
    assert stale.status == ReportRun.Status.DONE and stale.progress == 1.0
    assert stale.result == sections.report(study.pk, OPTIONS)  # what a run computes
    assert stale.attempts == 2 and stale.lease != "dead-worker"
    alive.refresh_from_db()  # a run that still beats is left to its worker
    assert alive.status == ReportRun.Status.RUNNING and alive.lease == "live-worker"
    assert alive.result is None and alive.attempts == 1


def test_the_dead_executions_redelivered_message_does_nothing():
    study = ranked_study(4)
    run = running_run(study, beat_ago=timedelta(minutes=5))
    tasks.restart_stale_runs()
    run.refresh_from_db()
    done_at, attempts = run.finished_at, run.attempts
    assert run.status == ReportRun.Status.DONE

    tasks.run_report(run.pk, "dead-worker")  # the broker hands the old message out again

    run.refresh_from_db()
    assert (run.finished_at, run.attempts) == (done_at, attempts)


def test_restart_refuses_a_done_run_and_a_live_one_unless_forced():
    study = ranked_study(4)
    done = tasks.start_report(study, OPTIONS)
    assert done.status == ReportRun.Status.DONE
    with pytest.raises(tasks.RunError, match=f"report run {done.pk} is done"):
        tasks.restart_run(done)

    live = running_run(study, beat_ago=timedelta(seconds=1), lease="live-worker")
    with pytest.raises(tasks.RunError, match=f"report run {live.pk} is running"):
        tasks.restart_run(live)
    live.refresh_from_db()
    assert live.status == ReportRun.Status.RUNNING and live.lease == "live-worker"

    forced = tasks.restart_run(live, force=True)
    assert forced.status == ReportRun.Status.DONE
    assert forced.result == done.result  # same study, same options, same seed


def test_a_failed_run_can_be_restarted():
    study = ranked_study(4)
    run = ReportRun.objects.create(
        study=study, options=OPTIONS.to_dict(), status=ReportRun.Status.FAILED, error="boom"
    )
    run = tasks.restart_run(run)
    assert run.status == ReportRun.Status.DONE and run.error == ""


def test_beat_schedules_both_resumptions_with_registered_tasks(settings):
    from concord.celery import app

    app.loader.import_default_modules()
    scheduled = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert scheduled == {
        "judges.tasks.resume_stale_runs",
        "metaeval.tasks.restart_stale_report_runs",
    }
    assert scheduled <= set(app.tasks)
    assert all(entry["schedule"] <= 120 for entry in settings.CELERY_BEAT_SCHEDULE.values())
