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


def _labelled(tmp_path):
    """The released study, question 45's rubric item 2 labelled by an expert."""
    run("questions", FOLDER / "questions.json", study="S", format="researcherbench",
        rubric=FOLDER / "rubric.json")  # fmt: skip
    run("reports", write(tmp_path, "r.json", [{"id": 45, "question": "q", "response": "An answer."}]),
        study="S", format="researcherbench", system="sys")  # fmt: skip
    study = Study.objects.get(name="S")
    question = Question.objects.get(study=study, external_id="45")
    expert = make_user("dup_expert", "annotator", annotator=True).annotator
    RubricCoverage.objects.create(
        study=study, annotator=expert, question=question, report=question.reports.get(),
        item=RubricItem.objects.get(rubric__question=question, position=2), label=3,
    )  # fmt: skip


def test_a_refused_rubric_reimport_names_the_rubric_file_and_its_record(db, tmp_path):
    """The refusal named questions.json and the question's record there: the rubric came
    from the --rubric file, where the record is another (here the file is reversed)."""
    _labelled(tmp_path)
    rubric = released("rubric.json")[::-1]
    at = next(n for n, r in enumerate(rubric, start=1) if r["id"] == 45)
    for r in rubric:
        if r["id"] == 45:
            r["rubric"][1] = dict(r["rubric"][1], point="Another criterion altogether.")
    with pytest.raises(ImportFailed) as failed:
        run("questions", FOLDER / "questions.json", study="S", format="researcherbench",
            rubric=write(tmp_path, "rub.json", rubric), dry_run=True)  # fmt: skip
    [problem] = failed.value.problems
    assert problem.file.endswith("rub.json"), problem.file
    assert problem.record == at != 45 and problem.field == "rubric"
    assert "would change the text of rubric item at position 2" in problem.message


def test_dropping_a_labelled_item_is_told_to_keep_it_as_it_is(db, tmp_path):
    """The refusal said "keep it (its text may change)", which a file may not do either."""
    _labelled(tmp_path)
    rubric = released("rubric.json")
    for r in rubric:
        if r["id"] == 45:
            r["rubric"] = r["rubric"][:1]
    with pytest.raises(ImportFailed) as failed:
        run("questions", FOLDER / "questions.json", study="S", format="researcherbench",
            rubric=write(tmp_path, "rub.json", rubric))  # fmt: skip
    [problem] = failed.value.problems
    assert problem.file.endswith("rub.json") and "would remove" in problem.message
    assert "keep it as it is" in problem.message and "may change" not in problem.message
