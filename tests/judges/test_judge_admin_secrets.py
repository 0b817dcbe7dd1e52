"""The Django admin's judge page shows credentials masked, as the API and every page do
(``judges.secrets``), and reads a mask written back as the stored value. It printed the
``api_key`` in clear in the Parameters textarea and its hidden initial value (found by a
tester after adding a judge from the runs page)."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from judges.models import Judge

pytestmark = pytest.mark.django_db

KEY = "sk-SECRETKEY9876543210abcdef"


@pytest.fixture
def judge():
    return Judge.objects.create(
        name="gpt41-real", model="gpt-4.1",
        parameters={"base_url": "https://api.openai.com/v1", "api_key": KEY},
    )  # fmt: skip


@pytest.fixture
def client(client, admin_user):
    admin_user.is_staff = admin_user.is_superuser = True
    admin_user.save()
    client.force_login(admin_user)
    return client


def change_url(judge) -> str:
    return reverse("admin:judges_judge_change", args=[judge.pk])


def form_data(judge, parameters) -> dict:
    return {
        "name": judge.name, "provider": judge.provider, "model": judge.model,
        "prompt_template": judge.prompt_template, "prompt_version": judge.prompt_version,
        "parameters": json.dumps(parameters),
    }  # fmt: skip


def test_the_change_page_never_shows_the_key(client, admin_user, judge):
    page = client.get(change_url(judge)).content.decode()
    assert KEY not in page
    assert "********" in page


def test_saving_the_masked_form_keeps_the_stored_key(client, admin_user, judge):
    masked = {"base_url": "https://api.openai.com/v1", "api_key": "********", "temperature": 0}
    r = client.post(change_url(judge), form_data(judge, masked))
    assert r.status_code == 302, r.content.decode()[:500]
    judge.refresh_from_db()
    assert judge.parameters == {
        "base_url": "https://api.openai.com/v1", "api_key": KEY, "temperature": 0,
    }  # fmt: skip


def test_a_private_base_url_is_refused_as_the_api_refuses_it(client, judge, settings):
    settings.CONCORD_JUDGE_ALLOW_PRIVATE = False  # the tests' fake servers are local
    r = client.post(change_url(judge), form_data(judge, {"base_url": "http://127.0.0.1:9/v1"}))
    assert r.status_code == 200 and "CONCORD_JUDGE_ALLOW_PRIVATE" in r.content.decode()
    judge.refresh_from_db()
    assert judge.parameters["api_key"] == KEY and "openai.com" in judge.parameters["base_url"]
