"""The import entry point: sources, limits, types, dry run, the admin page; shared helpers."""

import json
from pathlib import Path

import pytest
from django.apps import apps
from django.core.files.uploadedfile import SimpleUploadedFile

from annotation.importers import ImportFailed, question_key, run

DATA = Path(__file__).resolve().parents[1] / "data"


def table_counts() -> dict[str, int]:
    """Rows of every table the importers can touch (the 'nothing changed' check)."""
    return {
        m._meta.label: m.objects.count()
        for app in ("annotation", "judges")
        for m in apps.get_app_config(app).get_models()
    }


def expect_failure(kind, source, *, file_part, record=None, field=None, text=None, **options):
    """Run an import that must fail; check the problem names the file, record and field."""
    before = table_counts()
    with pytest.raises(ImportFailed) as info:
        run(kind, source, study=options.pop("study", "S"), **options)
    assert table_counts() == before, "a failed import changed the database"
    problems = info.value.problems
    matching = [
        p
        for p in problems
        if file_part in p.file
        and (record is None or p.record == record)
        and (field is None or p.field == field)
        and (text is None or text in p.message)
    ]
    assert matching, f"no problem with file={file_part} record={record} field={field}: {problems}"
    rendered = str(matching[0])
    assert file_part in rendered
    if record is not None:
        assert f"record {record}" in rendered
    if field is not None:
        assert field in rendered
    return problems


def write(tmp_path, name, content) -> Path:
    path = tmp_path / name
    path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    return path


def test_question_key_normalizes_spelling():
    assert question_key("Advantages  of digital watermarking") == question_key(
        " advantages of Digital watermarking\n"
    )
    assert question_key("a") != question_key("b")
    assert question_key("x").startswith("sqa-")


@pytest.mark.django_db
def test_unknown_kind_and_format(tmp_path):
    path = DATA / "scholarqa_reports.json"
    expect_failure("answers", path, file_part="scholarqa_reports.json", text="unknown import kind")
    expect_failure(
        "reports",
        path,
        file_part="scholarqa_reports.json",
        format="pdf",
        system="x",
        text="unknown report format",
    )


@pytest.mark.django_db
def test_rejects_other_file_types_and_sizes(tmp_path, settings):
    pdf = SimpleUploadedFile("paper.pdf", b"%PDF-1.4", content_type="application/pdf")
    expect_failure(
        "reports", pdf, file_part="paper.pdf", format="scholarqa", system="x", text="not accepted"
    )
    img = SimpleUploadedFile("x.json", b"[]", content_type="image/png")
    expect_failure(
        "reports", img, file_part="x.json", format="scholarqa", system="x", text="content type"
    )
    binary = write(tmp_path, "bin.json", "")
    binary.write_bytes(b"\xff\xfe\x00\x01")
    expect_failure(
        "reports", binary, file_part="bin.json", format="scholarqa", system="x", text="UTF-8"
    )
    settings.IMPORT_MAX_BYTES = 100
    expect_failure(
        "reports",
        DATA / "scholarqa_reports.json",
        file_part="scholarqa_reports.json",
        format="scholarqa",
        system="x",
        text="IMPORT_MAX_BYTES",
    )
    big = SimpleUploadedFile("big.json", b"[" + b" " * 200 + b"]", content_type="application/json")
    expect_failure(
        "reports",
        big,
        file_part="big.json",
        format="scholarqa",
        system="x",
        text="IMPORT_MAX_BYTES",
    )


@pytest.mark.django_db
def test_upload_and_bytes_sources():
    content = (DATA / "scholarqa_reports.json").read_bytes()
    upload = SimpleUploadedFile("r.json", content, content_type="application/json")
    report = run("reports", upload, study="S", format="scholarqa", system="sys")
    assert report.created["Report"] == 2
    again = run("reports", content, study="S", format="scholarqa", system="sys")
    assert again.unchanged["Report"] == 2 and "Report" not in again.created


@pytest.mark.django_db
def test_dry_run_writes_nothing_but_counts():
    before = table_counts()
    report = run(
        "pairwise",
        DATA / "pairwise_chosen.json",
        study="New study",
        annotator="a",
        judge="j",
        dry_run=True,
    )
    assert table_counts() == before
    assert report.dry_run and report.created["MedalRanking"] == 1 and report.created["Study"] == 1
    assert "would import" in report.summary()


@pytest.mark.django_db
def test_admin_import_page(client, admin_user):
    admin_user.is_staff = True
    admin_user.is_superuser = True
    admin_user.save()
    client.force_login(admin_user)
    assert client.get("/admin/annotation/study/import/").status_code == 200
    assert b"Import data" in client.get("/admin/annotation/study/").content
    with open(DATA / "pairwise_chosen.json", "rb") as fh:
        response = client.post(
            "/admin/annotation/study/import/",
            {
                "kind": "pairwise",
                "file": fh,
                "study": "Admin study",
                "annotator": "e1",
                "judge": "j",
            },
        )
    assert response.status_code == 200
    assert b"imported 3 records" in response.content
    bad = SimpleUploadedFile("bad.json", b"[{", content_type="application/json")
    before = table_counts()
    response = client.post(
        "/admin/annotation/study/import/",
        {
            "kind": "pairwise",
            "file": bad,
            "study": "Admin study",
            "annotator": "e1",
            "judge": "j",
            "setting": "assigned",
        },
    )
    assert b"bad.json: invalid JSON" in response.content
    assert table_counts() == before
    for url in (
        "/admin/annotation/report/",
        "/admin/judges/judgescore/",
        "/admin/annotation/medalranking/",
    ):
        assert client.get(url).status_code == 200


def test_a_mapping_file_giving_a_key_twice_is_refused_naming_the_record(db, tmp_path):
    """A mapping-shaped file is one JSON object: ``json.loads`` keeps the last of a repeated
    key without a word, so the shared reader counts the pairs as parsed."""
    from annotation.importers.common import Source, parse_json_records

    text = '{"a": {"answer": "One."}, "b": {"answer": "Two."}, "a": {"answer": "Three."}}'
    with pytest.raises(ImportFailed) as failed:
        parse_json_records(Source("f.json", text), allow_mapping=True)
    [problem] = failed.value.problems
    assert (problem.record, problem.field) == (3, "a")
    assert problem.message == "'a' already given by record 1"
    before = table_counts()
    with pytest.raises(ImportFailed, match="record 3, field 'a'"):
        run("reports", write(tmp_path, "r.json", text), study="S", format="researchqa",
            system="s")  # fmt: skip
    assert table_counts() == before
    # nested objects are as before; one object per line is still JSON lines
    assert parse_json_records(Source("f.json", '{"a": {"x": 1, "x": 2}}'), allow_mapping=True) == {
        "a": {"x": 2}
    }
    assert parse_json_records(Source("f.jsonl", '{"a": 1}\n{"a": 2}\n'), allow_mapping=True) == [
        {"a": 1},
        {"a": 2},
    ]
