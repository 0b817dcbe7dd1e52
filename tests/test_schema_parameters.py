"""``/api/schema/`` refuses a query parameter it does not read, as every other GET of the
API does (``concord.schema_view``): drf-spectacular's view reads ``format`` and ``lang``,
and answered 200 to ``?x=1``."""

import pytest
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


SENTENCE = "unknown parameter(s): x; known: format, lang"


def test_an_unknown_parameter_is_a_400_in_the_sentence_of_every_get():
    answer = APIClient().get("/api/schema/?format=json&x=1")
    assert answer.status_code == 400
    assert answer.json()["detail"] == SENTENCE
    assert [e["field"] for e in answer.json()["errors"]] == ["x"]
    for query in ("x=1", "format=yaml&x=1"):  # JSON, not the schema's YAML
        answer = APIClient().get(f"/api/schema/?{query}")
        assert answer.status_code == 400
        assert answer.json()["detail"] == SENTENCE


def test_a_typo_gets_the_hint():
    answer = APIClient().get("/api/schema/?format=json&formt=json")
    assert answer.status_code == 400
    assert "formt (did you mean 'format'?)" in answer.json()["detail"]


@pytest.mark.parametrize("query", ["", "?format=json", "?format=yaml", "?lang=en",
                                   "?format=json&lang=en"])  # fmt: skip
def test_what_it_reads_is_still_served(query):
    answer = APIClient().get(f"/api/schema/{query}")
    assert answer.status_code == 200, answer.content[:200]
    if "json" in query:
        assert answer.json()["info"]["title"] == "Concord API"
