"""Every GET of the API refuses a query parameter it does not read (``concord.api_parameters``).

Lists refused theirs; a single object's GET, an action and the plain API views ignored
any: ``/api/questions/3/?fields=text`` answered the whole question as if ``fields`` had
chosen. These tests walk every GET route of the OpenAPI schema, so a route added later is
held to the same rule."""

from __future__ import annotations

import re

import pytest
from rest_framework.test import APIClient

from annotation.models import Webhook
from tests.annotation.test_api_queries import lists_world

pytestmark = pytest.mark.django_db

#: A name no GET of the API reads.
UNKNOWN = "fieldz"


def get_routes() -> dict[str, set[str]]:
    """path template -> the query parameters the schema documents for its GET."""
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    return {
        path: {p["name"] for p in ops["get"].get("parameters", []) if p["in"] == "query"}
        for path, ops in schema["paths"].items()
        if "get" in ops
    }


def required_values() -> dict[str, dict[str, str]]:
    """path template -> a valid value of each query parameter its GET requires (the first
    of its enum: the export's ``kind``), so a view that checks its own parameters after
    those reaches the unknown one."""
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    return {
        path: {p["name"]: p["schema"]["enum"][0] for p in ops["get"].get("parameters", [])
               if p["in"] == "query" and p.get("required") and "enum" in p["schema"]}
        for path, ops in schema["paths"].items()
        if "get" in ops
    }  # fmt: skip


ROUTES = get_routes()
REQUIRED = required_values()


@pytest.fixture
def concrete(db):
    """The template with every path parameter a study's id: the refusal comes before the
    lookup, so another object need not exist; the views that check their own parameters
    (the study's export and agreement reports) look the study up first."""
    from tests.builders.content import make_question, make_study

    study = make_study("Parameter walk")
    make_question(study, n_reports=1, paragraphs=1)
    return lambda path: re.sub(r"\{[^}]+\}", str(study.pk), path)


@pytest.fixture
def admin_api(admin_user):
    client = APIClient()
    client.force_login(admin_user)
    return client


def is_unknown_refusal(response, name: str) -> bool:
    return response.status_code == 400 and f"unknown parameter(s): {name}" in str(
        response.content.decode()
    )


def test_the_schema_has_the_single_object_gets_and_actions():
    """The walk below covers what was unchecked: retrieves, actions, plain views."""
    assert "/api/questions/{id}/" in ROUTES and "/api/version/" in ROUTES
    assert "/api/studies/{id}/progress/" in ROUTES and "/api/judge-runs/{run_id}/" in ROUTES
    assert len(ROUTES) >= 40


@pytest.mark.parametrize("path", sorted(ROUTES))
def test_every_get_refuses_an_unknown_parameter(admin_api, concrete, path):
    response = admin_api.get(concrete(path), {**REQUIRED[path], UNKNOWN: "x"})
    assert response.status_code == 400, (path, response.status_code, response.content[:300])
    body = response.content.decode()
    assert UNKNOWN in body, (path, body[:300])  # named, in the lists' sentence or the view's own
    if "unknown parameter(s)" in body:
        detail = response.json()["detail"]
        known = set(detail.split("known: ")[1].split(", "))
        assert known == ROUTES[path] | {"format"}, path  # the schema's, and DRF's renderer


@pytest.mark.parametrize("path", sorted(ROUTES))
def test_no_documented_parameter_is_refused_as_unknown(admin_api, concrete, path):
    """Each documented parameter (and ``format``), given alone, is read: whatever the
    answer to its value or the object's absence, it is never the unknown-parameter 400."""
    for name in sorted(ROUTES[path] | {"format"}):
        value = "json" if name == "format" else "1"
        response = admin_api.get(concrete(path), {name: value})
        assert not is_unknown_refusal(response, name), (path, name, response.content[:300])


def test_a_typo_on_a_single_object_says_what_was_meant(admin_api):
    response = admin_api.get("/api/judge-runs/1/", {"formt": "json"})
    assert response.status_code == 400
    said = "unknown parameter(s): formt (did you mean 'format'?); known: format"
    assert response.json() == {  # the one error body (concord.error_body)
        "detail": said,
        "errors": [{"file": None, "record": None, "field": "formt", "message": said}],
    }
    assert admin_api.head("/api/judge-runs/1/?formt=json").status_code == 400  # HEAD is a GET


def test_documented_parameters_still_answer_and_the_unknown_one_changes_nothing():
    w, researcher, annotator = lists_world("paramwalk")
    question = w.study.questions.order_by("pk").first()
    for client, url in (
        (researcher, f"/api/questions/{question.pk}/"),
        (annotator, f"/api/questions/{question.pk}/"),
        (researcher, f"/api/studies/{w.study.pk}/progress/"),
        (researcher, f"/api/studies/{w.study.pk}/"),
        (researcher, "/api/version/"),
    ):
        plain = client.get(url)
        assert plain.status_code == 200, (url, plain.content[:300])
        assert client.get(url, {"format": "json"}).json() == plain.json()
        refused = client.get(url, {"fields": "text"})
        assert refused.status_code == 400 and set(refused.json()) == {"detail", "errors"}
        assert refused.json()["detail"].startswith("unknown parameter(s): fields;")


def test_a_paginated_action_and_an_export_keep_their_parameters(admin_api, admin_user):
    w, _, _ = lists_world("paramaction")
    hook = Webhook.objects.create(study=w.study, url="https://example.org/hook")
    assert admin_api.get(f"/api/webhooks/{hook.pk}/deliveries/?limit=1").status_code == 200
    assert admin_api.get(f"/api/webhooks/{hook.pk}/?format=json").status_code == 200


def test_a_caller_refused_is_not_told_of_parameters():
    """The check comes after sign-in and permissions."""
    anonymous = APIClient().get("/api/questions/1/", {UNKNOWN: "x"})
    assert anonymous.status_code in (401, 403)
