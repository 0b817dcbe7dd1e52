"""A ResearcherBench rubric.json naming one question twice is refused, and a re-import that
would reword a rubric item experts labelled is refused: positions match items, so either
would move expert labels onto criteria the experts never read."""

from __future__ import annotations

import json

import pytest

from annotation.importers import ImportFailed, run
from annotation.models import Question, RubricCoverage, RubricItem, Study
from tests.builders.users import make_user

from .test_import_common import table_counts, write
from .test_markdown_released import DATA

FOLDER = DATA / "researcherbench"


def released(name: str):
    if not FOLDER.is_dir():
        pytest.skip("shared/data/researcherbench not available")
    return json.loads((FOLDER / name).read_text())


def items_of(qid: str) -> list[str]:
    return list(
        RubricItem.objects.filter(rubric__question__external_id=qid)
        .order_by("position")
        .values_list("text", flat=True)
    )


@pytest.mark.parametrize("first", [False, True], ids=["copy-last", "copy-first"])
def test_a_rubric_id_given_twice_is_refused_and_nothing_written(db, tmp_path, first):
    rubric = released("rubric.json")
    copy = dict(rubric[8], id=45)  # record 9's rubric under question 45's id
    rubric = [copy, *rubric] if first else [*rubric, copy]
    with pytest.raises(ImportFailed) as failed:
        run("questions", FOLDER / "questions.json", study="S", format="researcherbench",
            rubric=write(tmp_path, "rubric.json", rubric))  # fmt: skip
    [problem] = failed.value.problems
    assert problem.file.endswith("rubric.json") and problem.field == "id"
    if first:  # question 45's own rubric is the second record naming it
        assert problem.record == 46 and "already used by record 1" in problem.message
    else:
        assert problem.record == 66 and "id '45' already used by record 45" in problem.message
    assert not Question.objects.exists() and not RubricItem.objects.exists()


def test_a_reimport_rewording_labelled_items_is_refused_naming_question_and_item(db, tmp_path):
    rubric = released("rubric.json")
    run("questions", FOLDER / "questions.json", study="S", format="researcherbench",
        rubric=FOLDER / "rubric.json")  # fmt: skip
    run("reports", write(tmp_path, "r.json", [{"id": 45, "question": "q", "response": "An answer."}]),
        study="S", format="researcherbench", system="sys")  # fmt: skip
    study = Study.objects.get(name="S")
    question = Question.objects.get(study=study, external_id="45")
    item = RubricItem.objects.get(rubric__question=question, position=2)
    expert = make_user("dup_expert", "annotator", annotator=True).annotator
    RubricCoverage.objects.create(
        study=study, annotator=expert, question=question,
        report=question.reports.get(), item=item, label=3,
    )  # fmt: skip
    before, texts = table_counts(), items_of("45")
    nine = next(r for r in rubric if r["id"] == 9)
    other = [dict(r, rubric=nine["rubric"]) if r["id"] == 45 else r for r in rubric]
    with pytest.raises(ImportFailed) as failed:
        run("questions", FOLDER / "questions.json", study="S", format="researcherbench",
            rubric=write(tmp_path, "rubric.json", other))  # fmt: skip
    [problem] = failed.value.problems
    assert problem.record == 45 and problem.field == "rubric"
    assert "question '45'" in problem.message and "position 2" in problem.message
    assert "rubric coverage" in problem.message
    assert table_counts() == before and items_of("45") == texts
