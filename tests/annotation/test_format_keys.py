"""What a format carries is kept, or named in a warning (issue 25): ResearcherBench's
``Subject`` and a rubric item's ``weight``; a key no reader reads is never dropped
silently."""

import json

import pytest

from annotation.importers import run
from annotation.importers.researcherbench import dump_questions
from annotation.models import Question, RubricItem

pytestmark = pytest.mark.django_db


def test_researcherbench_subject_is_the_field_and_category_the_intent(tmp_path):
    """``Subject`` is the research area assignment by expertise matches on (``field``);
    ``category`` is the question's type (004 §3.1), kept as its ``intent``. Both are
    written back."""
    questions = tmp_path / "questions.json"
    questions.write_text(json.dumps([
        {"id": 1, "question": "Q?", "category": "Technical Details", "Subject": "Model Architecture"},
    ]))  # fmt: skip
    rep = run("questions", questions, study="S", format="researcherbench")
    assert not rep.warnings
    q = Question.objects.get()
    assert (q.field, q.intent, q.subdomain) == ("Model Architecture", "Technical Details", "")
    record = json.loads(dump_questions(q.study)["questions.json"])[0]
    assert (record["Subject"], record["category"]) == ("Model Architecture", "Technical Details")


def test_researcherbench_export_keeps_the_released_record_after_an_admin_edits_the_field(tmp_path):
    """An admin who changes a question's field (to match annotators' expertise) does not
    change the benchmark's file on export: the record comes back as released."""
    released = [
        {"id": 1, "question": "Q?", "category": "Open Consulting", "Subject": "AI Policy"},
        {"id": 2, "question": "R?", "category": "Literature Review", "Subject": "Scaling Laws"},
    ]
    questions = tmp_path / "questions.json"
    questions.write_text(json.dumps(released))
    run("questions", questions, study="S", format="researcherbench")
    Question.objects.filter(external_id="1").update(field="Policy and governance", intent="x")
    q = Question.objects.get(external_id="1")
    assert json.loads(dump_questions(q.study)["questions.json"]) == released


def test_researcherbench_questions_without_a_released_record_are_built_from_fields():
    """Questions stored another way (the generic format, an older import) are written with
    ``intent`` as the category and ``field`` as the Subject."""
    from annotation.models import Study

    study = Study.objects.create(name="S")
    Question.objects.create(study=study, external_id="7", text="Q?", field="Hallucination",
                            intent="Technical Details")  # fmt: skip
    assert json.loads(dump_questions(study)["questions.json"]) == [
        {"id": 7, "question": "Q?", "category": "Technical Details", "Subject": "Hallucination"}
    ]


def test_the_migration_moves_researcherbench_questions_to_the_new_mapping():
    """Questions imported with the old mapping (category as field, Subject as subdomain)
    are moved: known by their ResearcherBench rubric; others are left alone."""
    import importlib

    from django.apps import apps

    from annotation.models import Rubric, Study

    migration = importlib.import_module("annotation.migrations.0023_question_released_record")
    study = Study.objects.create(name="S")
    old = Question.objects.create(study=study, external_id="1", text="Q?",
                                  field="Open Consulting", subdomain="AI Policy")  # fmt: skip
    Rubric.objects.create(question=old, kind="researcherbench")
    other = Question.objects.create(study=study, external_id="2", text="R?",
                                    field="Biology", subdomain="Genomics")  # fmt: skip
    Rubric.objects.create(question=other, kind="researchqa")
    migration.researcherbench_category_as_intent(apps, None)
    old.refresh_from_db()
    other.refresh_from_db()
    assert (old.field, old.intent, old.subdomain) == ("AI Policy", "Open Consulting", "")
    assert (other.field, other.intent, other.subdomain) == ("Biology", "", "Genomics")


def test_the_released_researcherbench_questions_import_without_warnings():
    from tests.annotation.test_markdown_released import DATA

    folder = DATA / "researcherbench"
    if not folder.is_dir():
        pytest.skip("../shared/data/researcherbench not available")
    rep = run("questions", folder / "questions.json", study="S", format="researcherbench",
              rubric=folder / "rubric.json")  # fmt: skip
    assert not rep.warnings
    assert Question.objects.exclude(field="").exclude(intent="").count() == 65
    assert set(Question.objects.values_list("intent", flat=True)) == {
        "Open Consulting",
        "Literature Review",
        "Technical Details",
    }
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


def test_researchqa_export_keeps_the_released_item_after_an_admin_edits_the_field(tmp_path):
    """The field an admin sets for assignment (studio's question fields) does not rewrite
    the benchmark's item on export; the rubric is still written from the stored items."""
    from annotation.importers.researchqa import dump_questions as dump_items

    items = [{"id": "rqa-1", "general_domain": "Computer Science", "subdomain": "AI",
              "field": "NLP", "query": "Why?", "date": "2024-05-01",
              "rubric": [{"rubric_item": "Says why", "type": "information"}]}]  # fmt: skip
    path = tmp_path / "items.json"
    path.write_text(json.dumps(items))
    run("questions", path, study="S", format="researchqa")
    Question.objects.update(field="Machine translation", subdomain="Language")
    study = Question.objects.get().study
    assert json.loads(dump_items(study)["researchqa_items.json"]) == items
