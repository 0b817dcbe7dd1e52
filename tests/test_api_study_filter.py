"""A list filtered by a study the caller does not read is a 404, the same for a study that
does not exist (``annotation.permissions.listed_study_or_404``).

Found by a tester with a researcher's token: ``/api/questions/?study=3`` (another
researcher's study) and ``?study=999`` (none) answered 200 with ``count: 0``, so a script
could not tell a wrong id from an empty study. The lists are those whose GET the OpenAPI
schema documents with a ``study`` parameter, so a list added later is held to the rule."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from tests.builders.content import make_question, make_study
from tests.builders.users import make_user, token_client

pytestmark = pytest.mark.django_db


def study_filtered_lists() -> list[str]:
    """Every path of the schema whose GET takes ``study`` and no path parameter."""
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    return sorted(
        path
        for path, ops in schema["paths"].items()
        if "get" in ops
        and "{" not in path
        and any(
            p["in"] == "query" and p["name"] == "study" for p in ops["get"].get("parameters", [])
        )
    )


LISTS = study_filtered_lists()


@pytest.fixture
def world():
    mine, theirs = make_study("Mine"), make_study("Theirs")
    for study in (mine, theirs):
        make_question(study, n_reports=1, paragraphs=1)
    researcher = make_user("filter_researcher", "researcher")
    mine.researchers.add(researcher)
    client = token_client(researcher)
    missing = theirs.pk + mine.pk + 1000
    return client, mine, theirs, missing


def test_the_walk_finds_the_lists_the_tester_named():
    for path in ("/api/questions/", "/api/assignments/", "/api/judge-scores/",
                 "/api/judgments/rubric-coverage/", "/api/judge-runs/"):  # fmt: skip
        assert path in LISTS


@pytest.mark.parametrize("path", LISTS)
def test_another_study_and_no_study_are_the_same_404(world, path):
    client, mine, theirs, missing = world
    own = client.get(path, {"study": mine.pk})
    assert own.status_code == 200, own.content[:300]
    other = client.get(path, {"study": theirs.pk})
    absent = client.get(path, {"study": missing})
    assert other.status_code == absent.status_code == 404, (other.content, absent.content)
    assert other.json() == absent.json()
    assert "study" in other.json()["detail"]


def test_an_admin_reads_every_study_and_a_missing_one_is_404(world, admin_user):
    _client, _mine, theirs, missing = world
    client = APIClient()
    client.force_login(admin_user)
    assert client.get("/api/questions/", {"study": theirs.pk}).json()["count"] == 1
    assert client.get("/api/questions/", {"study": missing}).status_code == 404


def test_an_annotator_filters_by_the_studies_of_their_assignments(world):
    from annotation.models import Annotator, Assignment, Question

    _client, mine, theirs, missing = world
    user = make_user("filter_annotator", "annotator")
    annotator = Annotator.objects.create(user=user, pseudonym="Filterer")
    question = Question.objects.filter(study=mine).first()
    Assignment.objects.create(
        study=mine, annotator=annotator, question=question, task=mine.tasks[0]
    )
    client = APIClient()
    client.force_login(user)
    assert client.get("/api/assignments/", {"study": mine.pk}).json()["count"] == 1
    other = client.get("/api/assignments/", {"study": theirs.pk})
    absent = client.get("/api/assignments/", {"study": missing})
    assert other.status_code == absent.status_code == 404
    assert other.json() == absent.json()


@pytest.mark.parametrize("path", LISTS)
@pytest.mark.parametrize("value", ["abc", "1.5", "²"])
def test_a_study_that_is_not_an_id_is_a_400_naming_it_in_one_words(world, path, value):
    """``?study=`` that is no id at all is a 400 naming the parameter, in the same words on
    every list: the judge runs said "'abc' is not an id" where every other list said "Must
    be an integer id.", and took "²" (a digit to ``str.isdigit``) for an id: a 500."""
    client, *_ = world
    got = client.get(path, {"study": value})
    assert got.status_code == 400, (got.status_code, got.content[:300])
    [error] = got.json()["errors"]
    assert (error["field"], error["message"]) == ("study", "Must be an integer id."), got.json()
