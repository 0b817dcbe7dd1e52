"""ResearcherBench's ``rubric.json`` comes back from the questions export as it was imported,
as ``questions.json`` already did: the rubric was rebuilt from the stored items (ids as
numbers, ``2.0`` as ``2``, keys point-then-weight, extra keys such as ``source`` dropped,
records in question order), so a script joining the two exported files by id found no match.

Files are compared as JSON text (:func:`as_text`): ``1`` and ``"1"``, ``2`` and ``2.0`` and
the order of keys are differences, which comparing parsed JSON with ``==`` would not see.
Run on SQLite and PostgreSQL (whose jsonb would reorder keys: the record is kept as text).
"""

from __future__ import annotations

import io
import json
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.importers import run
from annotation.importers.base import ImportFailed
from annotation.importers.researcherbench import dump_questions
from annotation.models import Rubric, RubricItem, Study
from tests.builders import world as f
from tests.builders.released import shared

pytestmark = pytest.mark.django_db


def as_text(data) -> str:
    """JSON data as text: what a file's reader sees of types and key order."""
    return json.dumps(data, ensure_ascii=False)


def file_text(text: str) -> str:
    """A JSON file's content as :func:`as_text` writes it (layout aside)."""
    return as_text(json.loads(text))


#: The tester's file: ids as strings, weights as floats, an item without a weight, keys in
#: another order, extra keys on items and records, rubric records not in question order,
#: and a point with a zero-width space (stored without it: no edit, exported with it).
QUESTIONS = [
    {"id": "1", "question": "What limits RAG in medicine?", "category": "Open Consulting",
     "Subject": "RAG"},
    {"id": "2", "question": "Survey attribution methods.", "category": "Literature Review",
     "Subject": "Attribution"},
]  # fmt: skip
RUBRIC = [
    {"id": "2", "rubric": [{"weight": 2.0, "point": "Names\u200b ALCE", "source": "x"},
                           {"point": "Compares post-hoc and inline citation"}],
     "question": "Survey attribution methods.", "note": "from the annotators' round 2"},
    {"id": "1", "question": "What limits RAG in medicine?",
     "rubric": [{"point": "Mentions hallucinated dosages", "weight": 2.0, "source": "x"},
                {"point": "Cites MedRedQA", "weight": 3, "source": "y", "level": 1},
                {"point": "Says why retrieval helps", "weight": 1.5}]},
]  # fmt: skip


def upload(name: str, data) -> SimpleUploadedFile:
    content = json.dumps(data, ensure_ascii=False, indent=2).encode()
    return SimpleUploadedFile(name, content, content_type="application/json")


def admin_api(admin_user) -> APIClient:
    api = APIClient()
    api.force_login(admin_user)
    return api


def api_import(api, study, questions, rubric):
    """``POST /api/studies/<id>/import/`` (kind=questions, format=researcherbench)."""
    return api.post(reverse("study-import", args=[study.pk]),
                    {"kind": "questions", "format": "researcherbench",
                     "file": upload("questions.json", questions),
                     "rubric": upload("rubric.json", rubric)}, format="multipart")  # fmt: skip


def api_export(api, study) -> dict[str, str]:
    """``GET /api/studies/<id>/export/?kind=questions&file_format=researcherbench``: the
    zip's files as text."""
    answer = api.get(reverse("study-export", args=[study.pk]),
                     {"kind": "questions", "file_format": "researcherbench"})  # fmt: skip
    assert answer.status_code == 200, answer.content[:300]
    with zipfile.ZipFile(io.BytesIO(answer.content)) as zf:
        return {n: zf.read(n).decode("utf-8") for n in zf.namelist()}


def test_the_tester_s_rubric_comes_back_as_imported_through_the_api(admin_user):
    """String ids, ``2.0``, weight-then-point, ``source``, a record's ``note``, an item with
    no weight and the rubric file's own record order, all as imported; the two exported
    files join by id again."""
    study, api = f.study(), admin_api(admin_user)
    answer = api_import(api, study, QUESTIONS, RUBRIC)
    assert answer.status_code == 200, answer.content
    files = api_export(api, study)
    assert file_text(files["questions.json"]) == as_text(QUESTIONS)
    assert file_text(files["rubric.json"]) == as_text(RUBRIC)
    exported = json.loads(files["rubric.json"])
    ids = {q["id"] for q in json.loads(files["questions.json"])}
    assert all(r["id"] in ids for r in exported)
    # what annotators judge against is as before: the points and weights, no `source`
    items = RubricItem.objects.filter(rubric__question__external_id="1").order_by("position")
    assert [(i.text, i.weight) for i in items] == [
        ("Mentions hallucinated dosages", 2.0), ("Cites MedRedQA", 3.0),
        ("Says why retrieval helps", 1.5)]  # fmt: skip


def test_a_rubric_imported_before_0025_is_exported_marked_as_rebuilt(admin_user):
    """A rubric imported before ``Rubric.released`` existed has no kept record (migration
    0025 adds the column empty): its rubric.json record is rebuilt from the items (``"1"``
    comes back as ``1``, ``2.0`` as ``2``, ``source`` dropped), and the export says so in a
    note naming it, instead of passing it off as released. A kept one is not named."""
    study, api = f.study(), admin_api(admin_user)
    assert api_import(api, study, QUESTIONS, RUBRIC).status_code == 200
    assert "rubric-rebuilt.txt" not in api_export(api, study)  # every record as released
    Rubric.objects.filter(question__external_id="1").update(released=None)  # as before 0025
    files = api_export(api, study)
    [rebuilt] = [r for r in json.loads(files["rubric.json"]) if r["id"] != "2"]
    assert rebuilt["id"] == 1 and rebuilt != RUBRIC[1]  # not the released record
    note = files["rubric-rebuilt.txt"]
    assert "1 of its 2 records are REBUILT" in note and "migration 0025" in note
    assert note.split("Rebuilt records (question id):\n")[1].split() == ["1"]


def test_the_import_says_extra_rubric_keys_are_kept_for_export(admin_user):
    study, api = f.study(), admin_api(admin_user)
    body = api_import(api, study, QUESTIONS, RUBRIC).json()
    warned = {(w["record"], w["field"]): w["message"] for w in body["warnings"]}
    assert set(warned) == {(1, "note"), (1, "rubric[0].source"), (2, "rubric[0].source"),
                           (2, "rubric[1].source"), (2, "rubric[1].level")}  # fmt: skip
    assert set(warned.values()) == {
        "not a ResearcherBench key: kept with the rubric as released for export, "
        "not shown to annotators"
    }


def test_an_admin_edit_replaces_only_the_changed_value_in_its_type(admin_user):
    """The API's PATCH of a rubric rewords one item and reweights another: the export
    writes the kept record with those two values replaced (``2.0`` -> ``3.0`` stays a
    float, ``3`` -> ``1`` an integer); every other key, type and order as imported. An item
    the admin adds is appended, one removed is left out."""
    study, api = f.study(), admin_api(admin_user)
    api_import(api, study, QUESTIONS, RUBRIC)
    rubric = Rubric.objects.get(question__external_id="1")
    answer = api.patch(f"/api/rubrics/{rubric.public_id}/", {"items": [
        {"position": 1, "text": "Mentions hallucinated dosages", "weight": 3.0},
        {"position": 2, "text": "Cites MedRedQA or MedQuAD", "weight": 1},
        {"position": 3, "text": "Says why retrieval helps", "weight": 1.5},
    ]}, format="json")  # fmt: skip
    assert answer.status_code == 200, answer.content
    second = Rubric.objects.get(question__external_id="2")
    answer = api.patch(f"/api/rubrics/{second.public_id}/", {"items": [
        {"position": 1, "text": "Names ALCE", "weight": 2.0},
        {"position": 3, "text": "Names RARR", "weight": 3},
    ]}, format="json")  # fmt: skip
    assert answer.status_code == 200, answer.content

    expected = json.loads(json.dumps(RUBRIC))
    expected[1]["rubric"][0]["weight"] = 3.0
    expected[1]["rubric"][1]["point"] = "Cites MedRedQA or MedQuAD"
    expected[1]["rubric"][1]["weight"] = 1
    expected[0]["rubric"][1:] = [{"point": "Names RARR", "weight": 3}]
    assert file_text(api_export(api, study)["rubric.json"]) == as_text(expected)


def test_a_reimport_that_changes_only_types_is_an_update_and_is_exported(tmp_path):
    """The same points and weights with ``2.0`` written ``2``: the kept record is updated
    (counted), and the export follows the file imported last; the same file again counts
    the rubrics unchanged."""
    questions, rubric = tmp_path / "questions.json", tmp_path / "rubric.json"
    questions.write_text(json.dumps(QUESTIONS))
    rubric.write_text(json.dumps(RUBRIC))
    run("questions", questions, study="S", format="researcherbench", rubric=rubric)
    again = run("questions", questions, study="S", format="researcherbench", rubric=rubric)
    assert again.unchanged.get("Rubric") == 2
    as_ints = json.loads(json.dumps(RUBRIC).replace(": 2.0", ": 2"))
    rubric.write_text(json.dumps(as_ints))
    rep = run("questions", questions, study="S", format="researcherbench", rubric=rubric)
    assert rep.updated.get("Rubric") == 2
    exported = dump_questions(Study.objects.get(name="S"))["rubric.json"]
    assert file_text(exported) == as_text(as_ints)


def test_a_questions_reimport_that_changes_only_types_or_key_order_is_an_update(tmp_path):
    """questions.json again with each record's keys in another order and an extra key's
    ``2024`` written ``2024.0``: parsed dicts compare equal, the released text does not.
    The questions are counted updated and the export writes the file imported last."""
    questions, rubric = tmp_path / "questions.json", tmp_path / "rubric.json"
    first = [{**q, "year": 2024} for q in QUESTIONS]
    questions.write_text(json.dumps(first))
    rubric.write_text(json.dumps(RUBRIC))
    run("questions", questions, study="S", format="researcherbench", rubric=rubric)
    again = run("questions", questions, study="S", format="researcherbench", rubric=rubric)
    assert again.unchanged.get("Question") == 2 and "Question" not in again.updated
    changed = [{"Subject": q["Subject"], "id": q["id"], "question": q["question"],
                "category": q["category"], "year": 2024.0} for q in QUESTIONS]  # fmt: skip
    assert changed == first  # what a dict's == says: no change
    questions.write_text(json.dumps(changed))
    rep = run("questions", questions, study="S", format="researcherbench", rubric=rubric)
    assert rep.updated.get("Question") == 2, rep.summary()
    assert "updated" in rep.summary()
    exported = dump_questions(Study.objects.get(name="S"))["questions.json"]
    assert file_text(exported) == as_text(changed) != as_text(first)


@pytest.mark.parametrize(
    "change, field",
    [
        (lambda r: r[1]["rubric"][0].update(weight="2"), "rubric[0].weight"),
        (lambda r: r[1]["rubric"][0].update(weight=0), "rubric[0].weight"),
        (lambda r: r[1]["rubric"][1].update(point=""), "rubric[1].point"),
        (lambda r: r[0].update(id="3"), "id"),
    ],
)  # fmt: skip
def test_what_was_refused_still_is_and_changes_nothing(tmp_path, change, field):
    questions, rubric = tmp_path / "questions.json", tmp_path / "rubric.json"
    questions.write_text(json.dumps(QUESTIONS))
    rubric.write_text(json.dumps(RUBRIC))
    run("questions", questions, study="S", format="researcherbench", rubric=rubric)
    bad = json.loads(json.dumps(RUBRIC))
    change(bad)
    rubric.write_text(json.dumps(bad))
    with pytest.raises(ImportFailed) as refused:
        run("questions", questions, study="S", format="researcherbench", rubric=rubric)
    assert field in {p.field for p in refused.value.problems}
    exported = dump_questions(Study.objects.get(name="S"))["rubric.json"]
    assert file_text(exported) == as_text(RUBRIC)


def test_a_rubric_imported_in_another_format_is_exported_from_its_items(tmp_path):
    """A generic import of the same rubric kind replaces the items: the record kept from
    rubric.json no longer says what is stored, so it is dropped and the rubric built."""
    questions, rubric = tmp_path / "questions.json", tmp_path / "rubric.json"
    questions.write_text(json.dumps(QUESTIONS))
    rubric.write_text(json.dumps(RUBRIC))
    run("questions", questions, study="S", format="researcherbench", rubric=rubric)
    generic = tmp_path / "generic.jsonl"
    generic.write_text(json.dumps({"id": "1", "text": QUESTIONS[0]["question"],
                                   "rubric_kind": "researcherbench",
                                   "rubric": [{"text": "Only this", "weight": 2}]}) + "\n")  # fmt: skip
    run("questions", generic, study="S", format="jsonl")
    assert Rubric.objects.get(question__external_id="1").released is None
    exported = json.loads(dump_questions(Study.objects.get(name="S"))["rubric.json"])
    assert exported == [RUBRIC[0], {"id": 1, "question": QUESTIONS[0]["question"],
                                    "rubric": [{"point": "Only this", "weight": 2}]}]  # fmt: skip


def _with_string_ids_and_float_weights(records: list, reverse: bool = False) -> list:
    out = []
    for r in records:
        r = {**r, "id": str(r["id"])}
        if "rubric" in r:
            r["rubric"] = [{**i, "weight": float(i["weight"]), "source": "released"}
                           for i in r["rubric"]]  # fmt: skip
        out.append(r)
    return out[::-1] if reverse else out


@pytest.mark.shared_data
@pytest.mark.parametrize("variant", ["as released", "string ids, float weights, source"])
def test_the_released_files_come_back_as_text(tmp_path, variant):
    """The released questions.json and rubric.json (65 questions, 931 items), as released
    and with the tester's changes made to every record (rubric records in reverse order
    too): both files back as imported, and a re-import of the export exports the same
    bytes."""
    questions = json.loads(shared("researcherbench", "questions.json").read_text("utf-8"))
    rubric = json.loads(shared("researcherbench", "rubric.json").read_text("utf-8"))
    if variant != "as released":
        questions = _with_string_ids_and_float_weights(questions)
        rubric = _with_string_ids_and_float_weights(rubric, reverse=True)
    qpath, rpath = tmp_path / "questions.json", tmp_path / "rubric.json"
    qpath.write_text(json.dumps(questions, ensure_ascii=False), encoding="utf-8")
    rpath.write_text(json.dumps(rubric, ensure_ascii=False), encoding="utf-8")
    run("questions", qpath, study="first", format="researcherbench", rubric=rpath)
    first = dump_questions(Study.objects.get(name="first"))
    assert file_text(first["questions.json"]) == as_text(questions)
    assert file_text(first["rubric.json"]) == as_text(rubric)
    for name, text in first.items():
        (tmp_path / f"again-{name}").write_text(text, encoding="utf-8")
    run("questions", tmp_path / "again-questions.json", study="second",
        format="researcherbench", rubric=tmp_path / "again-rubric.json")  # fmt: skip
    assert dump_questions(Study.objects.get(name="second")) == first


def test_the_questions_format_describes_the_rebuilt_note_where_its_files_are(
    admin_user, client, capsys
):
    """The export may add ``rubric-rebuilt.txt`` (above): the format's shape, shown by
    ``import_questions --help`` and the study's import page, names that file beside
    questions.json and rubric.json, so a reader of the zip knows what it is."""
    from django.core.management import call_command

    from annotation.importers.researcherbench import REBUILT_NOTE

    with pytest.raises(SystemExit):
        call_command("import_questions", "--help")
    help_text = " ".join(capsys.readouterr().out.split())
    described = help_text.split("--format researcherbench")[1].split("--format ")[0]
    assert REBUILT_NOTE in described and "rubric.json" in described
    client.force_login(admin_user)
    study = Study.objects.create(name="S")
    page = client.get(reverse("studies:detail", args=[study.pk])).content.decode()
    shown = page.split('id="format-questions-researcherbench"')[1].split('id="format-')[0]
    assert REBUILT_NOTE in shown
