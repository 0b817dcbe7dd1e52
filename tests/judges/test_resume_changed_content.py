"""Resuming a judge run after its content changed (issue 24, "500s"): a rubric re-imported
replaces its items, and ``POST /api/judge-runs/{id}/resume/`` raised KeyError. It is refused
with a 400 naming the unit and the missing item, and nothing is queued."""

from __future__ import annotations

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.models import RubricItem
from judges import runs
from judges.models import JudgeRun
from tests.builders.judged import build_study, make_judge

pytestmark = pytest.mark.django_db


def test_resume_after_the_rubric_changed_is_a_400_naming_the_unit(fake_llm, admin_user):
    study = build_study(questions=1, systems=("alpha",))
    judge = make_judge(fake_llm, concurrency=1, max_retries=1)
    fake_llm.faults.extend([500, 500])  # the first unit fails: the run can be resumed
    run = runs.start_run(judge, study, ["coverage"])
    run.refresh_from_db()
    assert run.status == JudgeRun.Status.FAILED
    failed = run.units.get(status="failed")
    gone = failed.payload["items"][0]
    RubricItem.objects.filter(pk__in=failed.payload["items"]).delete()  # re-imported rubric
    asked = sum(fake_llm.answered.values())
    client = APIClient()
    client.force_login(admin_user)
    r = client.post(reverse("api-judge-run-resume", args=[run.pk]), {}, format="json")
    assert r.status_code == 400, r.content[:300]
    body = r.json()
    said = body["run"] if isinstance(body["run"], str) else body["run"][0]
    assert f"unit {failed.key}" in said and f"rubric item {gone}" in said
    assert sum(fake_llm.answered.values()) == asked
    run.refresh_from_db()
    assert run.status == JudgeRun.Status.FAILED
