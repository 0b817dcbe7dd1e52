"""A page export's URL names its kind and format (``/studies/<id>/export/<kind>/<format>/``):
a ``kind`` or ``file_format`` in the query that disagrees with it is a 400 naming the
parameter (``annotation.importers.downloads.refuse_disagreeing``); one that agrees is
accepted. Found by a tester with a researcher's token: ``?kind=judgments&file_format=jsonl``
on the ResearcherBench questions export answered the questions zip, while the refusal
text of the same URL listed ``kind`` and ``file_format`` as known options."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.builders.content import make_question, make_study
from tests.builders.users import make_user, token_client

pytestmark = pytest.mark.django_db


@pytest.fixture
def world():
    study = make_study("Page export path")
    make_question(study, n_reports=1, paragraphs=1)
    researcher = make_user("path_researcher", "researcher")
    study.researchers.add(researcher)
    client = token_client(researcher, api=False)
    return study, client


def export(world, path_format: str, **query):
    study, client = world
    url = reverse("studies:export_format", args=[study.pk, "questions", path_format])
    return client.get(url, query)


@pytest.mark.parametrize("file_format", ["researcherbench", "jsonl"])
def test_query_values_that_disagree_with_the_path_are_refused_by_name(world, file_format):
    assert export(world, file_format).status_code == 200
    both = export(world, file_format, kind="judgments", file_format="other")
    assert both.status_code == 400, both.content[:300]
    assert "Content-Disposition" not in both
    named = {e["field"]: e["message"] for e in both.json()["errors"]}
    assert set(named) == {"kind", "file_format"}
    assert "'judgments'" in named["kind"] and "'questions'" in named["kind"]
    assert "'other'" in named["file_format"] and repr(file_format) in named["file_format"]
    one = export(world, file_format, kind="judgments")
    assert one.status_code == 400
    assert [e["field"] for e in one.json()["errors"]] == ["kind"]


def test_query_values_that_agree_with_the_path_are_accepted(world):
    plain = export(world, "researcherbench")
    same = export(world, "researcherbench", kind="questions", file_format="researcherbench")
    assert same.status_code == 200
    assert same.content == plain.content
