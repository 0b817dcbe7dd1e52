"""The runs page from a browser only (found by a new admin): the run form offered the demo's
simulated judges, and every start failed with "unknown parameter(s) simulated, source";
no judge could be added without the Django admin site; and after an import of judge
scores the page said "No judge run yet" with no sign of the imported judge."""

from __future__ import annotations

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from judges.models import Judge, JudgeCoverage, JudgeRun, JudgeScore
from judges.secrets import MASK
from tests.builders.judged import build_study

pytestmark = pytest.mark.django_db

SIMULATED = {"simulated": True, "source": "Concord demo"}


def _options(body: str, form_id: str, name: str) -> list[str]:
    form = body.split(f'id="{form_id}"', 1)[1].split("</form>", 1)[0]
    select = form.split(f'name="{name}"', 1)[1].split("</select>", 1)[0]
    return re.findall(r'<option value="(\d+)"', select)


def test_a_simulated_judge_is_not_offered_and_its_start_is_refused(admin_user, client):
    study = build_study(questions=1, systems=("alpha",))
    sim = Judge.objects.create(name="claude-sonnet-sim", model="claude-sonnet",
                               parameters=SIMULATED)  # fmt: skip
    assert not sim.runnable and "simulated" in sim.run_refusal()
    # said in an admin's words, not the parameter check's list of known parameters
    assert "unknown parameter" not in sim.run_refusal() and "base_url" not in sim.run_refusal()
    page = reverse("judge-run-list", args=[study.pk])
    client.force_login(admin_user)
    body = client.get(page).content.decode()
    # no start button with only a simulated judge; the judge is named as results-only
    assert 'id="run-form"' not in body and 'id="no-runnable-judge"' in body
    listed = body.split('id="not-runnable"', 1)[1].split("</ul>", 1)[0]
    assert "claude-sonnet-sim" in listed
    assert "imported/simulated: results only, cannot be run" in listed
    assert 'id="judge-form"' in body  # and a way to add one that can
    r = client.post(reverse("judge-run-start", args=[study.pk]),
                    {"judge": sim.pk, "tasks": ["coverage"]})  # fmt: skip
    text = r.content.decode()
    assert r.status_code == 400 and "<strong>judge</strong>" in text
    assert "claude-sonnet-sim" in text and "cannot be run" in text
    assert not JudgeRun.objects.exists()


def test_an_admin_adds_a_judge_and_runs_it_from_the_page(fake_llm, admin_user, client):
    study = build_study(questions=1, systems=("alpha", "beta"))
    sim = Judge.objects.create(name="gemini-flash-sim", model="gemini-flash",
                               parameters=SIMULATED)  # fmt: skip
    page = reverse("judge-run-list", args=[study.pk])
    add = reverse("judge-add", args=[study.pk])
    client.force_login(admin_user)
    good = {"name": "web-added", "model": "fake-model", "base_url": fake_llm.base_url,
            "api_key": "sk-very-secret-123"}  # fmt: skip
    # the API serializer's rules: an unknown scheme, a taken name are refused by field
    r = client.post(add, {**good, "name": "gemini-flash-sim"})
    assert r.status_code == 400 and "<strong>name</strong>" in r.content.decode()
    assert "sk-very-secret-123" not in r.content.decode()  # the key is never echoed
    r = client.post(add, {**good, "base_url": "ftp://example.org/v1"})
    assert r.status_code == 400 and "<strong>base_url</strong>" in r.content.decode()
    assert not Judge.objects.filter(name="web-added").exists()
    r = client.post(add, good)
    assert r.status_code == 302 and r["Location"] == page
    judge = Judge.objects.get(name="web-added")
    assert judge.parameters == {"base_url": fake_llm.base_url, "api_key": "sk-very-secret-123"}
    assert judge.runnable
    body = client.get(page).content.decode()
    assert "sk-very-secret-123" not in body
    assert _options(body, "run-form", "judge") == [str(judge.pk)]  # the simulated one is not
    assert str(sim.pk) not in _options(body, "run-form", "judge")
    # the API shows the key masked, as for any judge
    api = client.get(reverse("judge-detail", args=[judge.pk])).json()
    assert api["parameters"]["api_key"] == MASK
    r = client.post(reverse("judge-run-start", args=[study.pk]),
                    {"judge": judge.pk, "tasks": ["coverage"]})  # fmt: skip
    run = JudgeRun.objects.get()
    assert r.status_code == 302 and r["Location"] == reverse("judge-run", args=[run.pk])
    assert run.status == "done" and run.done_units == run.total_units > 0
    assert JudgeCoverage.objects.filter(judge=judge, run=run).count() == 2 * 10
    assert fake_llm.requests and all(
        q["headers"].get("authorization") == "Bearer sk-very-secret-123" for q in fake_llm.requests
    )
    # the page lists the judge with its results, from the run
    body = client.get(page).content.decode()
    row = body.split('data-judge="web-added"', 1)[1].split("</tr>", 1)[0]
    assert 'data-origin="run"' in row and f"#{run.pk}" in row
    assert 'data-count="rubric coverage" data-value="20"' in row


def test_a_private_address_is_refused_as_the_api_refuses_it(admin_user, client, settings):
    settings.CONCORD_JUDGE_ALLOW_PRIVATE = False
    study = build_study(questions=1, systems=("alpha",))
    client.force_login(admin_user)
    r = client.post(reverse("judge-add", args=[study.pk]),
                    {"name": "inside", "model": "m", "base_url": "http://127.0.0.1:9/v1",
                     "api_key": "sk-x"})  # fmt: skip
    text = r.content.decode()
    assert r.status_code == 400 and "<strong>base_url</strong>" in text
    assert "loopback" in text and "CONCORD_JUDGE_ALLOW_PRIVATE" in text
    assert not Judge.objects.filter(name="inside").exists()


def test_researchers_may_not_add_a_judge(researcher_user, client):
    study = build_study(questions=1, systems=("alpha",))
    study.researchers.add(researcher_user)
    client.force_login(researcher_user)
    body = client.get(reverse("judge-run-list", args=[study.pk])).content.decode()
    assert 'id="judge-form"' not in body
    r = client.post(reverse("judge-add", args=[study.pk]),
                    {"name": "x", "model": "m", "base_url": "https://example.org/v1"})  # fmt: skip
    assert r.status_code == 403 and not Judge.objects.filter(name="x").exists()


def test_imported_judge_scores_are_listed_with_counts_and_a_report_link(
    admin_user, researcher_user, client
):
    study = build_study(questions=2, systems=("alpha", "beta"))
    study.researchers.add(researcher_user)
    client.force_login(admin_user)
    scores = (b"question,system,metric,value\nq1,alpha,overall,0.8\nq1,beta,overall,0.4\n"
              b"q2,alpha,overall,0.5\nq1,alpha,faithfulness,0.3\n")  # fmt: skip
    r = client.post(reverse("judge-scores-import", args=[study.pk]),
                    {"judge": "imported-judge", "format": "csv",
                     "file": SimpleUploadedFile("s.csv", scores)})  # fmt: skip
    assert r.status_code == 302 and JudgeScore.objects.count() == 4
    page = reverse("judge-run-list", args=[study.pk])
    for user in (admin_user, researcher_user):  # researchers read it too
        client.force_login(user)
        body = client.get(page).content.decode()
        assert 'id="judge-results"' in body
        row = body.split('data-judge="imported-judge"', 1)[1].split("</tr>", 1)[0]
        assert 'data-origin="imported"' in row
        assert 'data-count="score: overall" data-value="3"' in row
        assert 'data-count="score: faithfulness" data-value="1"' in row
        report = reverse("metaeval:report", args=[study.pk])
        assert f'href="{report}?judge=imported-judge#section-scoreboard"' in row
    # a judge with results elsewhere only is not listed
    other = build_study("other", questions=1, systems=("alpha",))
    client.force_login(admin_user)
    body = client.get(reverse("judge-run-list", args=[other.pk])).content.decode()
    assert 'id="judge-results"' not in body and "No judge has results in this study" in body
    # it is named among the judges that cannot be run: it has results only, no model
    assert 'data-judge="imported-judge"' in body.split('id="not-runnable"', 1)[1]
