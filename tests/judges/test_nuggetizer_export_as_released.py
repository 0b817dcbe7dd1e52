"""The nuggetizer export gives back the release's folder (tester's LOW defect): its
``<n>/`` folders under the names the release gives them (0, 1, 10, 11 …, not renumbered
in question order), nested as released (``27/33/res.json``, tester's HIGH defect: the 20
nested papers were not read), and its ``config.txt`` as released (``date: 2025-07-10``
kept)."""

from __future__ import annotations

import io
import json
import zipfile

import pytest

from annotation.importers import run
from annotation.models import Study
from tests.builders.released import shared

pytestmark = [pytest.mark.shared_data, pytest.mark.django_db]


def test_the_nuggetizer_export_keeps_the_released_folders_and_config(client, admin_user):
    folder = shared("deepscholar", "dataset", "gt_nuggets_outputs")
    released = {
        p.parent.relative_to(folder).as_posix(): json.loads(p.read_text())
        for p in folder.rglob("res.json")
    }
    study = Study.objects.create(name="DS")
    run("deepscholar", folder, study=study, format="nuggetizer")
    client.force_login(admin_user)
    page = client.get(f"/studies/{study.pk}/export/deepscholar/nuggetizer/?judge=gpt-4.1")
    assert page.status_code == 200, page.content[:300]
    with zipfile.ZipFile(io.BytesIO(page.content)) as zf:
        files = {n: zf.read(n).decode() for n in zf.namelist()}
    config = files.pop("gt_nuggets_outputs/config.txt")
    assert config == (folder / "config.txt").read_text()
    written = {n.split("/", 1)[1].rsplit("/", 1)[0]: json.loads(t) for n, t in files.items()}
    assert set(written) == set(released) and len(written) == 63
    for name, record in released.items():
        assert written[name]["qid"] == record["qid"], name
        assert [n["text"] for n in written[name]["nuggets"]] == [
            n["text"] for n in record["nuggets"]
        ]


def test_questions_without_a_released_folder_take_the_numbers_left(tmp_path):
    """A question whose nuggets came from one res.json (no folder) is written under a
    number no released folder uses; the released folders keep their names."""
    from judges.formats.nuggetizer import dump

    folder = shared("deepscholar", "dataset", "gt_nuggets_outputs")
    study = Study.objects.create(name="DS")
    run("deepscholar", folder, study=study, format="nuggetizer")
    record = json.loads((folder / "0" / "res.json").read_text())
    record = {**record, "qid": "9999.00001v1"}
    single = tmp_path / "res.json"
    single.write_text(json.dumps(record))
    run("deepscholar", single, study=study, format="nuggetizer", judge="gpt-4.1")
    names = [
        n.split("/", 1)[1].rsplit("/", 1)[0]
        for n in dump(study, judge="gpt-4.1")
        if n.endswith("res.json")
    ]
    released = {p.parent.relative_to(folder).as_posix() for p in folder.rglob("res.json")}
    assert len(names) == len(set(names)) == len(released) + 1
    assert released < set(names)


# --- The release's nested folders (tester's HIGH defect) -----------------------------------


def _zip(folder) -> bytes:
    """``folder`` zipped as a user would, ``gt_nuggets_outputs/…`` inside."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                zf.write(path, f"gt_nuggets_outputs/{path.relative_to(folder).as_posix()}")
    return buffer.getvalue()


def _import(api, study, data: bytes):
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.urls import reverse

    response = api.post(
        reverse("study-import", args=[study.pk]),
        {"kind": "deepscholar", "format": "nuggetizer",
         "file": SimpleUploadedFile("gt.zip", data, content_type="application/zip")},
        format="multipart",
    )  # fmt: skip
    assert response.status_code == 200, response.content[:500]
    return response.json()


def test_every_nested_res_json_is_its_own_paper_and_exports_nested(admin_user):
    """The zipped release through the API: all 63 res.json are papers (20 sit in another
    paper's folder, ``27/33`` is 2504.06975v1, no paper table row 33), keyed by their
    ``qid``; the export writes them at the paths they came from, and importing the export
    again changes nothing."""
    from django.urls import reverse
    from rest_framework.test import APIClient

    from annotation.models import Nugget, Question

    folder = shared("deepscholar", "dataset", "gt_nuggets_outputs")
    api = APIClient()
    api.force_login(admin_user)
    study = Study.objects.create(name="DS")
    body = _import(api, study, _zip(folder))
    assert body["records"] == 63 and not body["warnings"][1:], body["warnings"]
    with_nuggets = Question.objects.filter(study=study, nuggets__isnull=False).distinct()
    assert with_nuggets.count() == 63
    nested = json.loads((folder / "27" / "33" / "res.json").read_text())
    assert nested["qid"] == "2504.06975v1"
    question = Question.objects.get(study=study, external_id="2504.06975v1")
    assert question.text == nested["query"].strip()
    assert list(question.nuggets.order_by("position").values_list("text", flat=True)) == [
        n["text"] for n in nested["nuggets"]
    ]
    assert question.released["data"]["folder"] == "27/33"

    answer = api.get(reverse("study-export", args=[study.pk]),
                     {"kind": "deepscholar", "file_format": "nuggetizer", "judge": "gpt-4.1"})  # fmt: skip
    assert answer.status_code == 200, answer.content[:300]
    with zipfile.ZipFile(io.BytesIO(answer.content)) as zf:
        names = set(zf.namelist())
    released = {f"gt_nuggets_outputs/{p.relative_to(folder).as_posix()}"
                for p in folder.rglob("res.json")}  # fmt: skip
    assert released <= names and "gt_nuggets_outputs/52/58/61/res.json" in names

    nuggets = list(Nugget.objects.filter(question__study=study).values_list("pk", "text"))
    again = _import(api, study, answer.content)
    assert again["records"] == 63
    assert not again["created"] and not again["updated"], again["summary"]
    assert list(Nugget.objects.filter(question__study=study).values_list("pk", "text")) == nuggets


def test_a_file_the_folder_holds_but_no_paper_is_named_not_passed_over(tmp_path):
    """A file under the folder that is no paper's record nor config.txt is named in a
    warning; a nested res.json without a qid is refused naming its path, writing nothing."""
    import shutil

    from annotation.importers import ImportFailed

    folder = tmp_path / "gt_nuggets_outputs"
    shutil.copytree(shared("deepscholar", "dataset", "gt_nuggets_outputs"), folder)
    (folder / "27" / "33" / "notes.txt").write_text("kept by hand")
    (tmp_path / "README.md").write_text("beside the folder, in what was given")
    study = Study.objects.create(name="DS")
    rep = run("deepscholar", tmp_path, study=study, format="nuggetizer")
    assert rep.records == 63
    assert [w.file for w in rep.warnings if "not read" in w.message] == [
        f"{tmp_path}: README.md",
        f"{tmp_path}: gt_nuggets_outputs/27/33/notes.txt",
    ]
    record = json.loads((folder / "52" / "58" / "61" / "res.json").read_text())
    del record["qid"]
    (folder / "52" / "58" / "61" / "res.json").write_text(json.dumps(record))
    fresh = Study.objects.create(name="DS fresh")
    with pytest.raises(ImportFailed, match="52/58/61/res.json: missing"):
        run("deepscholar", tmp_path, study=fresh, format="nuggetizer")
    assert not fresh.questions.exists()


def test_a_kept_folder_outside_the_export_is_not_written_there():
    """A stored folder path that would leave the export's folder is not used; the
    question takes a fresh number."""
    from annotation.models import Question
    from judges.formats.nuggetizer import dump

    folder = shared("deepscholar", "dataset", "gt_nuggets_outputs")
    study = Study.objects.create(name="DS")
    run("deepscholar", folder, study=study, format="nuggetizer")
    question = Question.objects.get(study=study, external_id="2504.06975v1")
    released = question.released
    released["data"]["folder"] = "27/../../evil"
    Question.objects.filter(pk=question.pk).update(released=released)
    written = dump(study, judge="gpt-4.1")
    assert not [n for n in written if ".." in n or "evil" in n]
    [path] = [n for n, text in written.items() if '"2504.06975v1"' in text]
    assert path.count("/") == 2
