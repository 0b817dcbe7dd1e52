"""``?format=`` naming no renderer of an endpoint is a 400 naming the format and those the
endpoint answers (``concord.negotiation``); it was a 404 "Not found." that read as a wrong
URL (found by a tester with a researcher's token on ``/api/judgments/<kind>/``)."""

from __future__ import annotations

import pytest

from tests.builders.content import make_question, make_study
from tests.builders.users import make_user, token_client

pytestmark = pytest.mark.django_db


@pytest.fixture
def client():
    study = make_study("Formats")
    make_question(study, n_reports=1, paragraphs=1)
    researcher = make_user("format_researcher", "researcher")
    study.researchers.add(researcher)
    return token_client(researcher)


@pytest.mark.parametrize(
    "path", ["/api/judgments/rubric-coverage/", "/api/questions/", "/api/studies/"]
)
def test_an_unknown_format_is_a_400_naming_it_and_the_formats(client, path):
    answer = client.get(path, {"format": "csv"})
    assert answer.status_code == 400, answer.content[:300]
    assert answer["Content-Type"].startswith("application/json")
    said = answer.json()["format"]
    assert "'csv'" in said and "json" in said


def test_a_known_format_still_answers(client):
    answer = client.get("/api/judgments/rubric-coverage/", {"format": "json"})
    assert answer.status_code == 200
    assert answer.json()["count"] == 0
