"""A query parameter a list does not read is a 400 naming it, with the accepted ones
(``concord.query.accepted``, checked where every list pages: ``concord.pagination``).

Found by a tester with a researcher's token: ``/api/judgments/metric-scores/?study=2&
settting=deep_expert`` answered all 4,410 rows (``setting=`` gives 450), as did
``stauts=`` on medal rankings, ``metric=`` and ``report=`` on metric scores and
``studdy=`` on judge scores: an answer that looked filtered and was not."""

from __future__ import annotations

import re

import pytest
from django.urls import resolve
from rest_framework.test import APIClient

from annotation.models import Webhook
from concord.query import accepted
from tests.annotation.test_api_queries import lists_world

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(db):
    return lists_world("strict")


@pytest.mark.parametrize(
    "path, query, meant",
    [
        ("/api/judgments/metric-scores/", "settting=deep_expert", "setting"),
        ("/api/judgments/medal-rankings/", "stauts=submitted", "status"),
        ("/api/judgments/metric-scores/", "metric=overall", None),
        ("/api/judgments/metric-scores/", "report=1", None),
        ("/api/judge-scores/", "studdy=1", "study"),
        ("/api/judge-runs/", "studdy=1", "study"),
        ("/api/questions/", "limt=5", "limit"),
        ("/api/studies/", "x=1", None),
    ],
)
def test_an_unknown_parameter_is_a_400_naming_it_and_the_accepted_ones(world, path, query, meant):
    w, client, _ = world
    study = "" if "studdy" in query or path == "/api/studies/" else f"study={w.study.pk}&"
    response = client.get(f"{path}?{study}{query}")
    name = query.split("=")[0]
    assert response.status_code == 400, response.content[:300]
    assert set(response.json()) == {"detail", "errors"}  # one shape: concord.error_body
    assert [e["field"] for e in response.json()["errors"]] == [name]
    said = response.json()["detail"]
    assert f"unknown parameter(s): {name}" in said
    if meant:
        assert f"did you mean {meant!r}?" in said
    assert "limit" in said and "offset" in said and "format" in said  # the accepted ones


def test_the_parameters_a_list_reads_still_select(world):
    """``setting``, ``describe``, ``format``, ``limit`` and ``offset`` stay accepted."""
    w, client, own = world
    base = f"/api/judgments/metric-scores/?study={w.study.pk}"
    every = client.get(base).json()["count"]
    for query in ("setting=assigned", "describe=true", "format=json", "limit=1&offset=1",
                  f"system={w.systems[0].pk}", "status=submitted"):  # fmt: skip
        response = client.get(f"{base}&{query}")
        assert response.status_code == 200, (query, response.content[:300])
        assert response.json()["count"] <= every
    assert own.get(f"/api/judgments/metric-scores/?study={w.study.pk}&limit=2").status_code == 200
    # a filter not an annotator's is still the 403 that names theirs, whatever its value
    refused = own.get(f"/api/judgments/metric-scores/?system={w.systems[0].pk}")
    assert refused.status_code == 403


def test_an_annotators_refusal_names_only_their_parameters_and_holds_no_system_key(world):
    """An annotator is told the parameters they may give (not ``system`` nor
    ``annotator``), and their JSON never has a ``system`` key, not even a refusal's."""
    w, _, own = world
    response = own.get(f"/api/judgments/metric-scores/?study={w.study.pk}&stuff=1")
    assert response.status_code == 400
    said = response.json()["detail"]
    known = said.split("known: ")[1].split(", ")
    assert "study" in known and "setting" in known
    assert "system" not in known and "annotator" not in known
    response = own.get(f"/api/questions/?system={w.systems[0].pk}")
    assert response.status_code == 400 and set(response.json()) == {"detail", "errors"}


def test_a_paginated_action_refuses_what_it_does_not_read(world, admin_user):
    w, _, _ = world
    hook = Webhook.objects.create(study=w.study, url="https://example.org/hook")
    client = APIClient()
    client.force_login(admin_user)
    assert client.get(f"/api/webhooks/{hook.pk}/deliveries/?limit=5").status_code == 200
    response = client.get(f"/api/webhooks/{hook.pk}/deliveries/?study=1")
    assert response.status_code == 400 and "study" in response.json()["detail"]


def test_every_list_accepts_what_its_schema_documents_and_nothing_else():
    """The accepted parameters of every paginated list are those the OpenAPI schema
    documents for it, and ``format`` (DRF's renderer, left out of the schema on purpose):
    a documented one refused, or one read and not documented, fails here."""
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    lists = 0
    for path, operations in schema["paths"].items():
        get = operations.get("get")
        if not get:
            continue
        documented = {p["name"] for p in get.get("parameters", []) if p["in"] == "query"}
        if "limit" not in documented:  # not a paginated list
            continue
        match = resolve(re.sub(r"\{[^}]+\}", "1", path))
        view = match.func.cls(**match.func.initkwargs)
        view.action = (getattr(match.func, "actions", None) or {}).get("get")
        view.format_kwarg = None
        assert accepted(view, view.paginator) == documented | {"format"}, path
        lists += 1
    assert lists >= 20  # every viewset list, the judgment kinds, judge runs, deliveries
