"""Starting a judge run and importing judge scores from the runs page (issue 15): before,
the page said "Start one through the API"."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from judges.models import Judge, JudgeRun, JudgeScore
from tests.builders.judged import build_study, make_judge

pytestmark = pytest.mark.django_db


def test_admin_starts_a_run_from_the_page(fake_llm, admin_user, researcher_user, client):
    study = build_study(questions=1, systems=("alpha",))
    study.researchers.add(researcher_user)
    judge = make_judge(fake_llm)
    page = reverse("judge-run-list", args=[study.pk])
    start = reverse("judge-run-start", args=[study.pk])
    client.force_login(researcher_user)
    body = client.get(page).content.decode()
    assert "Start one through the API" not in body and 'id="run-form"' not in body
    assert client.post(start, {"judge": judge.pk, "tasks": ["coverage"]}).status_code == 403
    client.force_login(admin_user)
    body = client.get(page).content.decode()
    assert 'id="run-form"' in body and 'id="scores-form"' in body
    r = client.post(start, {"judge": judge.pk, "tasks": ["nope"]})
    assert r.status_code == 400 and "<strong>tasks</strong>" in r.content.decode()
    r = client.post(start, {"judge": 987654, "tasks": ["coverage"]})
    assert r.status_code == 400 and "<strong>judge</strong>" in r.content.decode()
    assert not JudgeRun.objects.exists()
    r = client.post(start, {"judge": judge.pk, "tasks": ["coverage"]})
    run = JudgeRun.objects.get()
    assert r.status_code == 302 and r["Location"] == reverse("judge-run", args=[run.pk])
    assert run.status == "done" and run.requested_by == admin_user
    assert f"#{run.pk}" in client.get(page).content.decode()


def test_admin_imports_judge_scores_from_the_page(admin_user, researcher_user, client):
    study = build_study(questions=1, systems=("alpha", "beta"))
    study.researchers.add(researcher_user)
    target = reverse("judge-scores-import", args=[study.pk])
    good = b"question,system,metric,value\nq1,alpha,overall,0.8\nq1,beta,overall,0.4\n"
    data = {"judge": "web-judge", "format": "csv"}
    client.force_login(researcher_user)
    r = client.post(target, {**data, "file": SimpleUploadedFile("s.csv", good)})
    assert r.status_code == 403
    client.force_login(admin_user)
    bad = b"question,system,metric,value\nq1,alpha,overall,0.8\nq9,alpha,overall,1\n"
    r = client.post(target, {**data, "file": SimpleUploadedFile("s.csv", bad)})
    assert r.status_code == 400 and "record 2" in r.content.decode()
    assert "no question &#x27;q9&#x27;" in r.content.decode()
    assert not JudgeScore.objects.exists()
    r = client.post(
        target,
        {**data, "format": "researchqa-coverage", "file": SimpleUploadedFile("c.json", b"{}")},
    )
    assert r.status_code == 400 and "<strong>system</strong>" in r.content.decode()
    r = client.post(target, {**data, "file": SimpleUploadedFile("s.csv", good)})
    assert r.status_code == 302
    judge = Judge.objects.get(name="web-judge")
    assert sorted(
        JudgeScore.objects.filter(judge=judge, metric="overall").values_list("value", flat=True)
    ) == [0.4, 0.8]
