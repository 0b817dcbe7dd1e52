"""A judge's endpoint and what its errors keep (issue 24): ``base_url`` could be any address
and the reply's body was stored in the run's errors, which researchers read. Private,
loopback and link-local addresses are refused unless ``CONCORD_JUDGE_ALLOW_PRIVATE`` allows
them (the test suite allows them for its local LLM server; here the rule is on), and an
error keeps the status and its reason only."""

from __future__ import annotations

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from judges import runs
from judges.llm import LLMConfig, private_address
from judges.models import Judge, JudgeRun
from tests.builders.judged import build_study, make_judge

pytestmark = pytest.mark.django_db

INSIDE = {
    "http://127.0.0.1:8000/v1": "a loopback address",
    "http://localhost:8000/v1": "a loopback address",
    "http://[::1]:8000/v1": "a loopback address",
    "http://169.254.169.254/latest/meta-data": "a link-local address",
    "http://10.0.0.7/v1": "a private address",
    "http://192.168.1.2/v1": "a private address",
    "http://[::ffff:127.0.0.1]/v1": "a loopback address",
    "http://0.0.0.0/v1": "an unspecified address",
}


@pytest.mark.parametrize("url, why", INSIDE.items())
def test_an_inside_address_is_refused_unless_allowed(settings, url, why):
    settings.CONCORD_JUDGE_ALLOW_PRIVATE = False
    assert private_address(url).startswith(why)
    judge = Judge.objects.create(name="inside", model="m", parameters={"base_url": url})
    study = build_study(questions=1, systems=("alpha",), items=2)
    with pytest.raises(runs.RunError, match=f"is {why}.*CONCORD_JUDGE_ALLOW_PRIVATE=1"):
        runs.create_run(judge, study, ["coverage"])
    assert not JudgeRun.objects.exists()
    settings.CONCORD_JUDGE_ALLOW_PRIVATE = True
    assert private_address(url) == ""
    LLMConfig.for_judge(judge)  # allowed: a local vLLM is legitimate


def test_a_public_address_is_accepted(settings):
    settings.CONCORD_JUDGE_ALLOW_PRIVATE = False
    assert private_address("https://8.8.8.8/v1") == ""


def test_the_api_refuses_an_inside_base_url_naming_it(settings, admin_user):
    settings.CONCORD_JUDGE_ALLOW_PRIVATE = False
    client = APIClient()
    client.force_login(admin_user)
    r = client.post(
        reverse("judge-list"),
        {"name": "j", "model": "m", "parameters": {"base_url": "http://169.254.169.254/v1"}},
        format="json",
    )
    assert r.status_code == 400 and "base_url" in r.content.decode()
    assert "link-local" in r.content.decode() and not Judge.objects.exists()


def test_a_run_error_keeps_the_status_and_reason_never_the_body(fake_llm):
    study = build_study(questions=1, systems=("alpha",), items=2)
    judge = make_judge(fake_llm, max_retries=0)
    fake_llm.faults.extend([403, 500])
    run = runs.start_run(judge, study, ["coverage"])
    run.refresh_from_db()
    said = " | ".join(e["error"] for e in run.errors)
    assert "403 Forbidden" in said
    assert "error 403" not in said and "error 500" not in said  # the bodies' messages
