"""Inputs that answered 500 (issue 12, "500s found") now get a 4xx naming the field or the
place, and change nothing."""

import io
import json

import pytest
from django.test import Client
from django.urls import reverse

from annotation.importers import ImportFailed, run
from annotation.models import Draft, DraftVersion, Question, Report, Rubric, RubricItem
from tests.annotation.test_import_common import table_counts
from tests.builders.content import make_assignment, make_question, make_study
from tests.builders.users import make_user

DEEP = "[" * 5000 + "]" * 5000
LONG_NUMBER = "9" * 4301


@pytest.fixture
def admin_client(db):
    admin = make_user("e500_admin", "admin")
    client = Client()
    client.force_login(admin)
    return client


def test_patching_a_rubric_with_an_incomplete_item_is_a_400_naming_the_field(admin_client):
    study = make_study("Rubrics")
    question = make_question(study, n_reports=1, paragraphs=1, rubric_items=2)
    rubric = Rubric.objects.get(question=question)
    before = list(RubricItem.objects.filter(rubric=rubric).values())
    response = admin_client.patch(
        reverse("rubric-detail", args=[rubric.public_id]),
        {"items": [{"text": "x"}]},
        content_type="application/json",
    )
    assert response.status_code == 400
    assert "position" in json.dumps(response.json()["items"]), response.json()
    assert list(RubricItem.objects.filter(rubric=rubric).values()) == before


def test_an_api_body_nested_past_the_stack_is_a_400(admin_client):
    study = make_study("Nested")
    url = reverse("study-detail", args=[study.pk])
    response = admin_client.patch(url, '{"config": ' + DEEP + "}", content_type="application/json")
    assert response.status_code == 400
    assert "nested too deeply" in response.json()["detail"]


def test_an_autosave_with_5000_nested_brackets_is_refused(db):
    user = make_user("e500_annotator", "annotator", annotator=True)
    question = make_question(make_study("Autosave"), n_reports=2, paragraphs=2)
    assignment = make_assignment(user.annotator, question, "metric_wise")
    pid = Report.objects.get(pk=assignment.report_order[0]).public_id
    client = Client()
    client.force_login(user)
    response = client.post(
        reverse("annotate:autosave", args=[assignment.pk]),
        {"version": "0", f"claim.{pid}.c0.citations": DEEP, f"claim.{pid}.c0.paragraph": "1"},
        HTTP_HX_REQUEST="true",
    )
    assert 400 <= response.status_code < 500
    assert not DraftVersion.objects.filter(assignment=assignment).exists()
    assert not Draft.objects.filter(assignment=assignment).exclude(version=0).exists()


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ('[{"id": "q1", "text": "with a NUL \\u0000 inside"}]', "NUL"),
        ('{"id": "q1", "text": "fine"}\n{"id": "q2", "text": "NUL \\u0000"}\n', "NUL"),
        ('[{"id": "q1", "text": "a lone \\ud800 half"}]', "lone surrogate"),
        (
            '{"id": "q1", "text": "\\ud83d\\ude00 a pair"}\n{"id": "q2", "text": "\\uDC00"}\n',
            "lone surrogate",
        ),
        ('[{"id": "q1", "text": "deep", "rubric": ' + DEEP + "}]", "nested too deeply"),
        ('[{"id": "q1", "text": "big", "weight": ' + LONG_NUMBER + "}]", "4300 digits"),
        ('{"id": "q1", "text": "a"}\n{"id": "q2", "w": ' + LONG_NUMBER + "}\n", "4300 digits"),
    ],
    ids=[
        "nul-json",
        "nul-jsonl",
        "surrogate-json",
        "surrogate-jsonl",
        "deep",
        "long-number",
        "long-number-jsonl",
    ],
)
def test_hostile_imports_are_refused_with_the_place(db, body, expected):
    study = make_study("Hostile")
    before = table_counts()
    with pytest.raises(ImportFailed) as failed:
        run("questions", body.encode(), study=study, format="jsonl")
    problems = failed.value.problems
    assert any(expected in p.message for p in problems), problems
    if expected in ("NUL", "lone surrogate"):
        assert problems[0].field == "text" and problems[0].record in (1, 2)
        assert len(problems) == 1  # an escaped pair is one character, not a problem
    if expected == "4300 digits":
        assert "column" in problems[0].message
        assert problems[0].record == (2 if body.startswith("{") else None)
    assert table_counts() == before
    assert not Question.objects.filter(study=study).exists()


def test_the_import_api_answers_400_for_each(admin_client):
    study = make_study("Hostile API")
    url = reverse("study-import", args=[study.pk])
    for body in (
        '[{"id": "q1", "text": "NUL \\u0000"}]',
        "[" + DEEP + "]",
        '[{"id": "q1", "text": "n", "x": ' + LONG_NUMBER + "}]",
    ):
        upload = io.BytesIO(body.encode())
        upload.name = "questions.json"
        response = admin_client.post(
            url, {"kind": "questions", "format": "jsonl", "file": upload, "dry_run": "false"}
        )
        assert response.status_code == 400, (body[:40], response.content[:200])
        assert json.loads(response.content)["errors"][0]["message"]
    assert not Question.objects.filter(study=study).exists()
