"""What a format carries is kept, or named in a warning (issue 25): ResearcherBench's
``Subject`` and a rubric item's ``weight``; a key no reader reads is never dropped
silently."""

import json

import pytest

from annotation.importers import run
from annotation.importers.researcherbench import dump_questions
from annotation.models import Question, RubricItem

pytestmark = pytest.mark.django_db


def test_researcherbench_subject_is_kept_and_written_back(tmp_path):
    questions = tmp_path / "questions.json"
    questions.write_text(json.dumps([
        {"id": 1, "question": "Q?", "category": "Technical Details", "Subject": "Model Architecture"},
    ]))  # fmt: skip
    rep = run("questions", questions, study="S", format="researcherbench")
    assert not rep.warnings
    q = Question.objects.get()
    assert (q.field, q.subdomain) == ("Technical Details", "Model Architecture")
    files = dump_questions(q.study)
    assert json.loads(files["questions.json"])[0]["Subject"] == "Model Architecture"


def test_the_released_researcherbench_questions_import_without_warnings():
    from tests.annotation.test_markdown_released import DATA

    folder = DATA / "researcherbench"
    if not folder.is_dir():
        pytest.skip("../shared/data/researcherbench not available")
    rep = run("questions", folder / "questions.json", study="S", format="researcherbench",
              rubric=folder / "rubric.json")  # fmt: skip
    assert not rep.warnings
    assert Question.objects.exclude(subdomain="").count() == 65
    assert RubricItem.objects.count() == 931


def test_an_unknown_key_is_named_not_dropped_silently(tmp_path):
    questions = tmp_path / "questions.json"
    questions.write_text(json.dumps([
        {"id": i, "question": f"Q{i}?", "difficulty": "hard"} for i in range(2)
    ]))  # fmt: skip
    rubric = tmp_path / "rubric.json"
    rubric.write_text(json.dumps([
        {"id": 0, "question": "Q0?", "rubric": [{"point": "Says X", "weight": 2, "note": "n"}]}
    ]))  # fmt: skip
    rep = run("questions", questions, study="S", format="researcherbench", rubric=rubric)
    assert [(w.file.split("/")[-1], w.record, w.field) for w in rep.warnings] == [
        ("questions.json", 1, "difficulty"),
        ("questions.json", 2, "difficulty"),
        ("rubric.json", 1, "rubric[0].note"),
    ]
    assert RubricItem.objects.get().weight == 2.0


def test_researchqa_item_weights_are_kept_and_unknown_keys_named(tmp_path):
    items = tmp_path / "items.jsonl"
    items.write_text(json.dumps({
        "id": "q1", "query": "Q?", "field": "F",
        "rubric": [{"rubric_item": "Mentions X", "type": "information", "weight": 3},
                   {"rubric_item": "Cites Y", "type": "citation", "source": "survey"}],
    }) + "\n")  # fmt: skip
    rep = run("questions", items, study="S", format="researchqa")
    weights = dict(RubricItem.objects.values_list("text", "weight"))
    assert weights == {"Mentions X": 3.0, "Cites Y": 1.0}
    assert [(w.record, w.field) for w in rep.warnings] == [(1, "rubric[1].source")]
