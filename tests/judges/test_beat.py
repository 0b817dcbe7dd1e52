"""The task Celery beat runs every minute resumes judge runs whose worker died."""

from datetime import timedelta

import pytest
from django.utils import timezone

from judges import runs, tasks
from judges.models import JudgeCoverage, JudgeRun, JudgeUnit
from tests.builders.judged import build_study, make_judge

pytestmark = pytest.mark.django_db


def test_the_scheduled_task_resumes_a_stale_run_without_judging_twice(fake_llm):
    study = build_study(questions=1)  # 3 reports × 10 items: 6 coverage units
    judge = make_judge(fake_llm)
    run = runs.create_run(judge, study, ["coverage"])
    # What a worker killed mid-run leaves: RUNNING, an old heartbeat, two units done.
    first_two = list(run.units.order_by("id")[:2])
    JudgeUnit.objects.filter(pk__in=[u.pk for u in first_two]).update(status=JudgeUnit.Status.DONE)
    items_left = 3 * 10 - sum(len(u.payload["items"]) for u in first_two)
    JudgeRun.objects.filter(pk=run.pk).update(
        status=JudgeRun.Status.RUNNING,
        done_units=2,
        heartbeat_at=timezone.now() - runs.STALE_AFTER - timedelta(seconds=5),
    )
    fresh = runs.create_run(judge, study, ["pairwise"])
    JudgeRun.objects.filter(pk=fresh.pk).update(
        status=JudgeRun.Status.RUNNING, heartbeat_at=timezone.now()
    )

    assert tasks.resume_stale_runs() == [run.pk]  # eager: executed right here

    run.refresh_from_db()
    assert run.status == JudgeRun.Status.DONE and run.done_units == 6
    assert len(fake_llm.answered) == 4  # only the four units not done before
    assert JudgeCoverage.objects.filter(judge=judge).count() == items_left
    fresh.refresh_from_db()
    assert fresh.status == JudgeRun.Status.RUNNING  # still beating: left alone
