"""The run progress page, the run API and the judge_run command."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from judges.models import JudgeRun
from tests.builders.judged import build_study, make_judge

pytestmark = pytest.mark.django_db


def test_start_a_run_over_the_api_and_watch_it(fake_llm, admin_user, researcher_user,
                                               annotator_user, client):  # fmt: skip
    study = build_study(questions=1, systems=("alpha",))
    study.researchers.add(researcher_user)
    judge = make_judge(fake_llm)
    api = APIClient()
    api.force_authenticate(researcher_user)
    body = {"judge": judge.pk, "study": study.pk, "tasks": ["coverage"]}
    assert api.post("/api/judge-runs/", body, format="json").status_code == 403
    api.force_authenticate(admin_user)
    bad = api.post("/api/judge-runs/", {**body, "tasks": ["nope"]}, format="json")
    assert bad.status_code == 400 and "tasks" in bad.json()
    response = api.post("/api/judge-runs/", body, format="json")
    assert response.status_code == 202, response.json()
    run = response.json()
    assert run["status"] == "done" and run["progress"] == 1.0 and run["requests"] == 2
    api.force_authenticate(researcher_user)
    listed = api.get(f"/api/judge-runs/?study={study.pk}").json()
    assert [r["id"] for r in listed["results"]] == [run["id"]] and listed["count"] == 1
    assert api.post(f"/api/judge-runs/{run['id']}/resume/").status_code == 403
    api.force_authenticate(admin_user)
    assert api.post(f"/api/judge-runs/{run['id']}/resume/").status_code == 400  # done
    api.force_authenticate(annotator_user)
    assert api.get(f"/api/judge-runs/{run['id']}/").status_code == 403

    client.force_login(researcher_user)
    page = client.get(f"/judges/runs/{run['id']}/")
    assert page.status_code == 200 and b"2 done, 0 failed, of 2" in page.content
    assert b"hx-trigger" not in page.content  # finished: no polling
    fragment = client.get(f"/judges/runs/{run['id']}/", HTTP_HX_REQUEST="true")
    assert fragment.status_code == 200 and b"<html" not in fragment.content
    assert client.get(f"/judges/studies/{study.pk}/runs/").status_code == 200
    client.force_login(annotator_user)
    assert client.get(f"/judges/runs/{run['id']}/").status_code == 403


def test_a_running_run_polls(fake_llm, researcher_user, client):
    study = build_study(questions=1, systems=("alpha",))
    study.researchers.add(researcher_user)
    run = JudgeRun.objects.create(judge=make_judge(fake_llm), study=study, tasks=["coverage"],
                                  status="running", total_units=4, done_units=1)  # fmt: skip
    client.force_login(researcher_user)
    page = client.get(f"/judges/runs/{run.pk}/")
    assert b'hx-trigger="every 2s"' in page.content and b"25.0 %" in page.content


def test_the_command(fake_llm):
    study = build_study(questions=1, systems=("alpha", "beta"))
    make_judge(fake_llm, name="cmd-judge")
    out = io.StringIO()
    call_command("judge_run", study=study.name, judge="cmd-judge", tasks="pairwise", stdout=out)
    assert "2/2 units done, 0 failed" in out.getvalue()


@pytest.mark.django_db
def test_a_judges_api_key_is_never_sent_back_and_survives_a_round_trip(admin_user, researcher_user):
    from judges.models import Judge
    from judges.secrets import MASK

    judge = Judge.objects.create(name="keyed", model="m",
                                 parameters={"api_key": "sk-live-secret", "temperature": 0})  # fmt: skip
    # the researcher reads a judge of their own studies only (issue 12)
    from judges.models import JudgeRun
    from tests.builders.content import make_study

    study = make_study("Keyed study")
    study.researchers.add(researcher_user)
    JudgeRun.objects.create(judge=judge, study=study, tasks=["coverage"])
    url = f"/api/judges/{judge.pk}/"
    for user in (researcher_user, admin_user):
        api = APIClient()
        api.force_authenticate(user)
        body = api.get(url).json()
        assert body["parameters"] == {"api_key": MASK, "temperature": 0}
        assert "sk-live-secret" not in api.get("/api/judges/").content.decode()
    api = APIClient()
    api.force_authenticate(admin_user)
    # what was read, written back with a change: the stored key is kept
    changed = {**body["parameters"], "temperature": 0.5}
    assert api.patch(url, {"parameters": changed}, format="json").status_code == 200
    judge.refresh_from_db()
    assert judge.parameters == {"api_key": "sk-live-secret", "temperature": 0.5}
    # a new key replaces it; leaving the key out removes it
    api.patch(url, {"parameters": {"api_key": "sk-new", "temperature": 0.5}}, format="json")
    judge.refresh_from_db()
    assert judge.parameters["api_key"] == "sk-new"
    api.patch(url, {"parameters": {"temperature": 0.5}}, format="json")
    judge.refresh_from_db()
    assert "api_key" not in judge.parameters


@pytest.mark.django_db
def test_extra_headers_are_masked_like_the_api_key(admin_user):
    """Headers carry credentials too (Azure's api-key, a proxy's token): never sent back,
    kept when the mask is written back."""
    from judges.models import Judge
    from judges.secrets import MASK

    headers = {"api-key": "azure-secret", "X-Team": "concord"}
    judge = Judge.objects.create(name="azure", model="m", parameters={"extra_headers": headers})
    api = APIClient()
    api.force_authenticate(admin_user)
    body = api.get(f"/api/judges/{judge.pk}/").json()
    assert body["parameters"] == {"extra_headers": MASK}
    changed = {**body["parameters"], "temperature": 0.2}
    response = api.patch(f"/api/judges/{judge.pk}/", {"parameters": changed}, format="json")
    assert response.status_code == 200
    judge.refresh_from_db()
    assert judge.parameters == {"extra_headers": headers, "temperature": 0.2}


@pytest.mark.django_db
def test_credentials_in_the_url_query_and_request_fields_are_masked_and_kept(admin_user, settings):
    """A tester's finding: the base URL's userinfo and key, ``extra_query`` and the extra
    request fields were sent back in clear. They are masked like the API key, and what was
    read, written back with a change, keeps every stored credential."""
    from judges.models import Judge
    from judges.secrets import MASK

    settings.CONCORD_JUDGE_ALLOW_PRIVATE = True  # no name resolution in a test
    stored = {
        "base_url": "https://user:pw-secret@llm.example.com/v1?key=q-secret&api-version=2024",
        "extra_query": {"sig": "sig-secret", "deployment": "d1"},
        "request": {"top_p": 0.9, "metadata": {"access_token": "body-secret"}},
    }
    judge = Judge.objects.create(name="url-keyed", model="m", parameters=stored)
    api = APIClient()
    api.force_authenticate(admin_user)
    url = f"/api/judges/{judge.pk}/"
    response = api.get(url)
    assert "secret" not in response.content.decode()
    body = response.json()["parameters"]
    assert body == {
        "base_url": f"https://{MASK}@llm.example.com/v1?key={MASK}&api-version=2024",
        "extra_query": {"sig": MASK, "deployment": "d1"},
        "request": {"top_p": 0.9, "metadata": {"access_token": MASK}},
    }
    changed = {**body, "temperature": 0.2,
               "base_url": body["base_url"].replace("api-version=2024", "api-version=2025")}  # fmt: skip
    assert api.patch(url, {"parameters": changed}, format="json").status_code == 200
    judge.refresh_from_db()
    assert judge.parameters == {
        **stored,
        "temperature": 0.2,
        "base_url": stored["base_url"].replace("api-version=2024", "api-version=2025"),
    }
    # the mask stands for the stored credential of its own endpoint only: refused, unchanged
    moved = {**body, "base_url": body["base_url"].replace("llm.example.com", "other.example")}
    response = api.patch(url, {"parameters": moved}, format="json")
    assert response.status_code == 400
    assert "base_url" in str(response.json()["parameters"]) and "another endpoint" in str(
        response.json()["parameters"]
    )
    judge.refresh_from_db()
    assert judge.parameters["base_url"].startswith("https://user:pw-secret@llm.example.com/")


@pytest.mark.django_db
def test_a_run_error_about_the_base_url_does_not_show_its_credentials():
    """A run's errors are read by researchers: the refused URL is named masked."""
    from judges.llm import LLMConfig

    with pytest.raises(ValueError, match=r"base_url must be an http\(s\) URL") as caught:
        LLMConfig(model="m", base_url="ftp://user:pw-secret@host/v1?token=t-secret").validate("j")
    assert "secret" not in str(caught.value) and "host/v1" in str(caught.value)


def test_the_run_list_is_paginated_newest_first(fake_llm, researcher_user):
    """It was cut at 200 runs without a word and ignored ``limit`` (issue 28)."""
    study = build_study(questions=1, systems=("alpha",))
    study.researchers.add(researcher_user)
    judge = make_judge(fake_llm)
    made = [
        JudgeRun.objects.create(judge=judge, study=study, tasks=["coverage"]).pk for _ in range(5)
    ]
    api = APIClient()
    api.force_authenticate(researcher_user)
    first = api.get(f"/api/judge-runs/?study={study.pk}&limit=2").json()
    assert first["count"] == 5 and [r["id"] for r in first["results"]] == made[::-1][:2]
    rest = api.get(first["next"]).json()
    assert [r["id"] for r in rest["results"]] == made[::-1][2:4]
    # a second study dropped the first without a word (the last value won): refused
    refused = api.get(f"/api/judge-runs/?study={study.pk}&study={study.pk + 1}")
    assert refused.status_code == 400
    assert [e["field"] for e in refused.json()["errors"]] == ["study"]


@pytest.mark.parametrize(
    "parameters, field",
    [
        ({"tempreature": 0.2}, "tempreature"),
        ({"concurrency": "four"}, "concurrency"),
        ({"timeout": True}, "timeout"),
        ({"response_format": "yaml"}, "response_format"),
        ({"max_tokens": -3}, "max_tokens"),
        ({"base_url": "ftp://models.example"}, "base_url"),
    ],
)
def test_a_judge_with_parameters_a_run_would_refuse_is_refused_when_saved(
    admin_user, parameters, field
):
    """``"tempreature"`` was stored and refused only when a run started (issue 28)."""
    from judges.models import Judge

    api = APIClient()
    api.force_authenticate(admin_user)
    body = {"name": "typo-judge", "model": "gpt-x", "parameters": parameters}
    got = api.post("/api/judges/", body, format="json")
    assert got.status_code == 400, got.json()
    assert field in got.json()["parameters"][0]
    assert not Judge.objects.filter(name="typo-judge").exists()
    good = {**body, "parameters": {"temperature": 0.2, "concurrency": 8, "timeout": 30}}
    assert api.post("/api/judges/", good, format="json").status_code == 201
    judge = Judge.objects.get(name="typo-judge")
    changed = api.patch(f"/api/judges/{judge.pk}/", {"parameters": parameters}, format="json")
    assert changed.status_code == 400
    judge.refresh_from_db()
    assert judge.parameters == good["parameters"]


@pytest.mark.django_db
def test_a_simulated_judges_prompt_version_can_be_patched(admin_user):
    """An imported or simulated judge keeps parameters no live run reads (``simulated``,
    ``source``): a PATCH of its prompt version was refused for them, so no field of it
    could be changed (found by a researcher with a token). Writing its model or parameters
    is still checked."""
    from judges.models import Judge

    judge = Judge.objects.create(name="sim", model="m",
                                 parameters={"simulated": True, "source": "demo"})  # fmt: skip
    api = APIClient()
    api.force_authenticate(admin_user)
    url = f"/api/judges/{judge.pk}/"
    assert api.patch(url, {"prompt_version": "v2"}, format="json").status_code == 200
    judge.refresh_from_db()
    assert judge.prompt_version == "v2" and judge.parameters["simulated"] is True
    refused = api.patch(url, {"parameters": {"simulated": True, "tempreature": 1}}, format="json")
    assert refused.status_code == 400 and "tempreature" in str(refused.json())
