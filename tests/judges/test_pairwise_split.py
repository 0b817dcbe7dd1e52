"""The ScholarQA-CS2 pairwise import's ``split``: only the released splits (the one
declaration the export uses too), and never a silent move of a question the study already
holds to another split (a tester's ``split=train`` made 20 ``test`` questions ``train``,
"updated: 20 Question", and another annotator's export then came in two files)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.importers import ImportFailed, run
from annotation.importers.common import RELEASED_SPLITS
from annotation.importers.registry import FORMATS
from annotation.models import Annotator, MedalRanking, Question
from judges.formats import scholarqa_pairwise
from tests.builders import world as f

pytestmark = pytest.mark.django_db

EXAMPLE = (
    Path(scholarqa_pairwise.__file__).resolve().parent / "examples" / "scholarqa_pairwise.json"
)
OPTIONS = {"judge": "example-judge", "setting": "near_expert"}


def two_questions() -> bytes:
    """The format's example record and a copy about another question (records 1 and 2)."""
    first = json.loads(EXAMPLE.read_text(encoding="utf-8"))[0]
    second = {**first, "question": "Which benchmarks measure long-context retrieval?"}
    return json.dumps([first, second]).encode()


def splits(study) -> dict[str, str]:
    return dict(Question.objects.filter(study=study).values_list("text", "split"))


def test_the_api_refuses_a_split_the_export_cannot_write(admin_user):
    study = f.study()
    api = APIClient()
    api.force_login(admin_user)
    answer = api.post(
        reverse("study-import", args=[study.pk]),
        {
            "kind": "pairwise",
            "format": "scholarqa",
            "options": json.dumps({**OPTIONS, "annotator": "x2", "split": "train"}),
            "file": SimpleUploadedFile("pairwise.json", two_questions()),
        },
        format="multipart",
    )
    assert answer.status_code == 400, answer.content
    (error,) = answer.json()["errors"]
    assert error["field"] == "split"
    assert error["message"] == f"split 'train' is not one of {', '.join(RELEASED_SPLITS)}"
    assert not Question.objects.filter(study=study).exists()
    fmt = FORMATS[("pairwise", "scholarqa")]
    (imported,) = [o for o in fmt.options if o.name == "split"]
    (exported,) = [o for o in fmt.dump_options if o.name == "split"]
    assert imported.choices is exported.choices is RELEASED_SPLITS  # one declaration


def test_an_import_never_moves_a_question_to_another_split():
    study = f.study()
    run("pairwise", two_questions(), study=study, annotator="ann1", split="test", **OPTIONS)
    before = splits(study)
    assert set(before.values()) == {"test"}
    with pytest.raises(ImportFailed) as refused:
        run("pairwise", two_questions(), study=study, annotator="ann2", split="dev", **OPTIONS)
    problems = refused.value.problems
    assert [(p.record, p.field) for p in problems] == [(1, "split"), (2, "split")]
    message = problems[1].message
    assert "long-context retrieval" in message
    assert "in split 'test', this import says 'dev'" in message
    assert 'kind "questions", format "jsonl"' in message  # the explicit way to move one
    assert splits(study) == before
    assert not Annotator.objects.filter(pseudonym="ann2").exists()
    assert not MedalRanking.objects.filter(study=study, annotator__pseudonym="ann2").exists()


def test_the_same_split_again_and_a_question_without_one_import():
    study = f.study()
    run("pairwise", two_questions(), study=study, annotator="ann1", **OPTIONS)
    assert set(splits(study).values()) == {""}
    run("pairwise", two_questions(), study=study, annotator="ann2", split="test", **OPTIONS)
    run("pairwise", two_questions(), study=study, annotator="ann3", split="test", **OPTIONS)
    assert set(splits(study).values()) == {"test"}


def test_the_way_the_refusal_names_moves_the_question():
    """What the refusal tells a researcher to do works: a questions import with the new
    split moves the question, and the pairwise file of that split then imports."""
    study = f.study()
    run("pairwise", two_questions(), study=study, annotator="ann1", split="test", **OPTIONS)
    moved = [
        {"id": q.external_id, "text": q.text, "split": "dev"}
        for q in Question.objects.filter(study=study)
    ]
    lines = "".join(json.dumps(r) + "\n" for r in moved).encode()
    run("questions", lines, study=study, format="jsonl")
    assert set(splits(study).values()) == {"dev"}
    run("pairwise", two_questions(), study=study, annotator="ann2", split="dev", **OPTIONS)
    assert MedalRanking.objects.filter(study=study, annotator__pseudonym="ann2").exists()
