"""Question importers: ResearchQA, ResearcherBench (+ rubric file), generic JSON lines."""

import json

import pytest
from django.core.management import CommandError, call_command

from annotation.importers import run
from annotation.models import Question, Rubric, RubricItem

from .test_import_common import DATA, expect_failure, table_counts, write


@pytest.mark.django_db
def test_researchqa_questions():
    rep = run("questions", DATA / "researchqa_questions.jsonl", study="S", format="researchqa")
    assert rep.created == {"Study": 1, "Question": 2, "Rubric": 2, "RubricItem": 4}
    q = Question.objects.get(external_id="rqa-001")
    assert (q.domain, q.subdomain, q.field) == (
        "Computer Science",
        "Machine Learning",
        "Natural Language Processing",
    )
    assert q.cutoff_date.isoformat() == "2024-05-01" and q.origin == "survey_mined"
    items = list(RubricItem.objects.filter(rubric__question=q, rubric__kind="researchqa"))
    assert [i.item_type for i in items] == ["information", "depth", "citation"]
    before = table_counts()
    again = run("questions", DATA / "researchqa_questions.jsonl", study="S", format="researchqa")
    assert (
        table_counts() == before
        and again.unchanged["Rubric"] == 2
        and "RubricItem" not in again.created
    )


@pytest.mark.django_db
def test_rubric_change_replaces_items(tmp_path):
    run("questions", DATA / "researchqa_questions.jsonl", study="S", format="researchqa")
    lines = [json.loads(x) for x in (DATA / "researchqa_questions.jsonl").read_text().splitlines()]
    lines[1]["rubric"].append({"rubric_item": "Discusses basecalling", "type": "depth"})
    path = write(tmp_path, "q.jsonl", "\n".join(json.dumps(x) for x in lines))
    rep = run("questions", path, study="S", format="researchqa")
    assert rep.updated["Rubric"] == 1 and RubricItem.objects.count() == 5


@pytest.mark.django_db
def test_researcherbench_questions_with_rubric_file():
    rep = run(
        "questions",
        DATA / "researcherbench_questions.json",
        study="S",
        format="researcherbench",
        rubric=DATA / "researcherbench_rubric.json",
    )
    assert rep.created["Question"] == 2
    weights = list(
        RubricItem.objects.filter(rubric__question__external_id="1").values_list(
            "weight", flat=True
        )
    )
    assert weights == [3.0, 2.0]
    assert Question.objects.get(external_id="1").intent == "Open Consulting"


@pytest.mark.django_db
def test_generic_jsonl_questions():
    run("questions", DATA / "questions.jsonl", study="S", format="jsonl")
    g1 = Question.objects.get(external_id="g1")
    assert g1.origin == "expert_authored" and g1.split == "dev" and g1.cutoff_date.year == 2024
    assert Rubric.objects.get(question=g1).kind == "expert"
    assert Question.objects.get(external_id="g2").text == "How are reward models evaluated?"


@pytest.mark.django_db
@pytest.mark.parametrize(
    "mutate, record, field, text",
    [
        (lambda d: d[0].pop("query"), 1, "query", "missing"),
        (lambda d: d[1].update(id=None), 2, "id", "missing"),
        (lambda d: d[1].update(id=[1]), 2, "id", "id"),
        (lambda d: d[0].update(date="May 2024"), 1, "date", "not a date"),
        (lambda d: d[0]["rubric"][1].update(type="vibes"), 1, "rubric[1].type", "not one of"),
        (lambda d: d[0]["rubric"][0].pop("rubric_item"), 1, "rubric[0].rubric_item", "missing"),
        (lambda d: d[1].update(rubric={"a": 1}), 2, "rubric", "expected a list"),
        (lambda d: d[1].update(id=d[0]["id"]), 2, "id", "already used by record 1"),
    ],
)
def test_bad_researchqa_files(tmp_path, mutate, record, field, text):
    data = [json.loads(x) for x in (DATA / "researchqa_questions.jsonl").read_text().splitlines()]
    mutate(data)
    path = write(tmp_path, "bad.jsonl", "\n".join(json.dumps(x) for x in data))
    expect_failure(
        "questions",
        path,
        file_part="bad.jsonl",
        record=record,
        field=field,
        text=text,
        format="researchqa",
    )


@pytest.mark.django_db
def test_bad_researcherbench_rubric(tmp_path):
    rubric = json.loads((DATA / "researcherbench_rubric.json").read_text())
    rubric[1]["rubric"][0]["weight"] = "heavy"
    rubric[0]["id"] = 99
    path = write(tmp_path, "rubric.json", rubric)
    expect_failure(
        "questions",
        DATA / "researcherbench_questions.json",
        file_part="rubric.json",
        record=2,
        field="rubric[0].weight",
        format="researcherbench",
        rubric=path,
    )
    expect_failure(
        "questions",
        DATA / "researcherbench_questions.json",
        file_part="rubric.json",
        record=1,
        field="id",
        text="no question with id '99'",
        format="researcherbench",
        rubric=path,
    )
    expect_failure(
        "questions",
        DATA / "researchqa_questions.jsonl",
        file_part="researchqa_questions.jsonl",
        text="this looks like a ResearchQA items file",
        format="researcherbench",
    )


@pytest.mark.django_db
def test_import_questions_command(tmp_path):
    call_command(
        "import_questions",
        str(DATA / "researcherbench_questions.json"),
        study="S",
        format="researcherbench",
        rubric=str(DATA / "researcherbench_rubric.json"),
    )
    assert RubricItem.objects.count() == 3
    with pytest.raises(CommandError, match=r"q.jsonl, record 1, field 'text'"):
        call_command(
            "import_questions",
            str(write(tmp_path, "q.jsonl", '{"id": "x"}\n')),
            study="S",
            format="jsonl",
        )
