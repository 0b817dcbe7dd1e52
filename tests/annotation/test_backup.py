"""Backup and restore of a whole study (issue 8): export, flush, import, same figures.

The round trip compares, table by table, every row with its foreign keys written as the
position of the target row (shared rows: their natural key), so a lost row, a changed value,
a lost timestamp or a foreign key pointing at the wrong row all fail; and the agreement
report (default and ``--compat scholarqa-cs2``) and judge alignment must be identical.
"""

import io
import json
import zipfile
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from annotation.importers import ImportFailed
from annotation.models import Report, Study
from judges.models import JudgeUnit
from metaeval.alignment import judge_alignment
from metaeval.reports import ReportOptions, agreement_report
from studio.backup import archive, export_study, graph, import_study
from tests.builders.backup import full_study
from tests.builders.scholarqa import import_release

pytestmark = pytest.mark.django_db


def snapshot() -> dict:
    """Every table's rows, ids left out, foreign keys as target position / natural key."""
    tables = graph.tables()
    position, natural = {}, {}
    for t in tables:
        if t.kind == "shared":
            key = graph.SHARED[t.label]
            natural[t.label] = dict(t.model.objects.values_list("pk", key))
        else:
            pks = sorted(t.model.objects.values_list("pk", flat=True))
            position[t.label] = {pk: i for i, pk in enumerate(pks)}
    out = {}
    for t in tables:
        if t.model is User:
            continue
        skip = {i for i, f in enumerate(t.fields) if (t.label, f.name) in graph.ID_COLUMNS}
        if t.label == "annotation.assignment":  # report order: as positions of the reports
            at = t.columns.index("report_order")
            skip.discard(at)
        rows = []
        for row in t.model.objects.order_by("pk").values_list(*t.columns):
            new = []
            for i, (attname, value) in enumerate(zip(t.columns, row, strict=True)):
                target = t.fks.get(attname)
                if i == 0 or i in skip:
                    continue
                if t.label == "annotation.assignment" and attname == "report_order":
                    value = [position["annotation.report"][r] for r in value]
                elif target and value is not None:
                    value = (natural.get(target) or position[target])[value]
                new.append(value)
            rows.append(new)
        out[t.label] = rows
    return out


def people() -> dict:
    users = User.objects.filter(annotator__isnull=False) | User.objects.filter(
        username="backup-researcher"
    )
    return {u.username: sorted(u.groups.values_list("name", flat=True)) for u in users}


def figures(study: Study) -> dict:
    def clean(report):
        report["selection"].pop("study_id", None)
        return report

    opts = ReportOptions()
    return {
        "default": clean(agreement_report(study.pk, opts)),
        "compat": clean(agreement_report(study.pk, ReportOptions(compat="scholarqa-cs2"))),
        "alignment": judge_alignment(study.pk, opts),
        "command": clean(json.loads(_command_json(study))),
    }


def _command_json(study) -> str:
    out = io.StringIO()
    call_command("agreement", "--study", study.name, "--json", "--compat", "scholarqa-cs2",
                 stdout=out)  # fmt: skip
    return out.getvalue()


def unit_targets() -> list:
    """The judge units' payload reports by natural key (question, system)."""
    out = []
    for unit in JudgeUnit.objects.order_by("pk"):
        ids = [unit.payload.get(k) for k in ("report", "left", "right") if k in unit.payload]
        reports = Report.objects.in_bulk(ids)
        out.append([(reports[i].question.external_id, reports[i].system.name) for i in ids])
    return out


def counts() -> dict:
    return {t.label: t.model.objects.count() for t in graph.tables()}


@pytest.fixture
def study(settings):
    return full_study(settings)


@pytest.fixture
def backup(study, tmp_path):
    path = tmp_path / "study.zip"
    export_study(study, path)
    return path


def test_no_credential_leaves_in_a_backup(study, tmp_path):
    from judges.models import Judge

    judge = Judge.objects.get(name="backup-live-judge")
    judge.parameters = {
        **judge.parameters,
        "api_key": "sk-backup-secret-0123456789",
        # credentials elsewhere in the configuration (a tester's finding): left out too
        "base_url": "https://user:pw-backup-secret@llm.example.com/v1?key=backup-secret&v=1",
        "extra_query": {"token": "backup-secret-q", "deployment": "d1"},
        "request": {"top_p": 0.9, "metadata": {"client_secret": "backup-secret-body"}},
    }
    judge.save()
    path = tmp_path / "study.zip"
    export_study(study, path)
    with zipfile.ZipFile(path) as z:
        assert not [n for n in z.namelist() if b"backup-secret" in z.read(n)]
        everything = b"".join(z.read(n) for n in z.namelist())
        assert b"backup-live-judge" in everything
        # what is not a credential is kept, the URL without its userinfo and key
        assert b"https://llm.example.com/v1?v=1" in everything and b"deployment" in everything
    judge.refresh_from_db()
    assert judge.parameters["api_key"] == "sk-backup-secret-0123456789"  # untouched here


def test_every_table_has_rows_in_the_fixture(study, backup):
    manifest = json.loads(zipfile.ZipFile(backup).read("manifest.json"))
    got = {t["model"]: t["count"] for t in manifest["tables"]}
    assert set(got) == {t.label for t in graph.tables()}
    assert [label for label, n in got.items() if n == 0] == []


def test_round_trip_into_an_empty_database_gives_identical_figures(study, tmp_path):
    before_rows, before_figures = snapshot(), figures(study)
    before_people, before_units = people(), unit_targets()
    path = tmp_path / "study.zip"
    out = io.StringIO()
    call_command("export_study", "--study", study.name, "--out", str(path), stdout=out)
    assert "annotation.medal" in out.getvalue()

    if connection.vendor == "postgresql":  # TRUNCATE refuses pending deferred FK checks
        with connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    call_command("flush", interactive=False, verbosity=0)
    assert Study.objects.count() == 0 and User.objects.count() == 0
    out = io.StringIO()
    call_command("import_study", str(path), "--grant-roles", stdout=out)

    connection.check_constraints()  # every foreign key the import wrote is valid
    restored = Study.objects.get(name=study.name)
    assert snapshot() == before_rows
    assert figures(restored) == before_figures
    assert people() == before_people
    assert unit_targets() == before_units
    assert not any(u.has_usable_password() for u in User.objects.all())
    assert "WITHOUT a usable password" in out.getvalue()
    assert "backup-researcher" in out.getvalue()
    result = restored.report_runs.get().result
    assert result["selection"]["study_id"] == restored.pk


def test_import_as_a_copy_next_to_the_original(study, backup):
    before = counts()
    with pytest.raises(ImportFailed) as exc:
        import_study(backup)  # the name is taken
    assert "record 1, field 'name'" in str(exc.value) and "--as" in str(exc.value)
    assert counts() == before

    summary = import_study(backup, new_name="Copy")
    connection.check_constraints()
    copy = Study.objects.get(name="Copy")
    assert figures(copy) == figures(study)
    assert summary.users_created == []  # every user matched by user name
    after = counts()
    for label in ("auth.user", "annotation.annotator", "judges.judge", "judges.llmresponse"):
        assert after[label] == before[label], label  # shared rows matched, not duplicated
    assert after["annotation.medal"] == 2 * before["annotation.medal"]
    # public ids were taken: new ones, and the copy's drafts point at the copy's reports
    copy_tokens = set(
        Report.objects.filter(question__study=copy).values_list("public_id", flat=True)
    )
    assert copy_tokens.isdisjoint(
        Report.objects.filter(question__study=study).values_list("public_id", flat=True)
    )
    draft = copy.assignments.get(draft__isnull=False).draft
    assert set(draft.payload["medals"]) <= copy_tokens


def test_dry_run_writes_nothing(backup):
    before = counts()
    summary = import_study(backup, new_name="Dry", dry_run=True)
    assert summary.created["annotation.medal"] > 0
    assert counts() == before


def _rewrite(src, dst, label, change, *, fix_manifest: bool):
    """Copy the backup with ``change(lines)`` applied to one table's member."""
    import hashlib

    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        manifest = json.loads(zin.read("manifest.json"))
        for info in zin.infolist():
            if info.filename == "manifest.json":
                continue
            data = zin.read(info.filename)
            if info.filename == f"tables/{label}.jsonl":
                data = b"".join(change(data.splitlines(keepends=True)))
                if fix_manifest:
                    entry = next(t for t in manifest["tables"] if t["model"] == label)
                    entry["sha256"] = hashlib.sha256(data).hexdigest()
                    entry["count"] = len(data.splitlines())
            zout.writestr(info.filename, data)
        manifest["checksum"] = archive.tables_checksum(manifest["tables"])
        zout.writestr("manifest.json", json.dumps(manifest))
    return dst


def _refused(path, *, new_name="Other") -> str:
    before = counts()
    with pytest.raises(ImportFailed) as exc:
        import_study(path, new_name=new_name)
    assert counts() == before
    return str(exc.value)


def test_a_truncated_file_is_refused(backup, tmp_path):
    cut = tmp_path / "cut.zip"
    cut.write_bytes(backup.read_bytes()[: backup.stat().st_size // 2])
    assert "truncated" in _refused(cut)


def test_a_tampered_table_is_refused_by_its_checksum(backup, tmp_path):
    def change(lines):
        return [lines[0].replace(b'"gold"', b'"bronze"').replace(b'"silver"', b'"bronze"')] + lines[
            1:
        ]

    bad = _rewrite(backup, tmp_path / "bad.zip", "annotation.medal", change, fix_manifest=False)
    message = _refused(bad)
    assert "[annotation.medal]" in message and "checksum" in message


def test_a_tampered_manifest_is_refused(backup, tmp_path):
    bad = tmp_path / "bad.zip"
    with zipfile.ZipFile(backup) as zin, zipfile.ZipFile(bad, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename == "manifest.json":
                manifest = json.loads(data)
                manifest["tables"][1]["count"] += 1
                data = json.dumps(manifest).encode()
            zout.writestr(info.filename, data)
    assert "'checksum' does not match" in _refused(bad)


def test_a_dangling_foreign_key_names_the_record_and_field(backup, tmp_path):
    def change(lines):
        row = json.loads(lines[2])
        row[2] = 999_999  # report_id of the third medal
        return [*lines[:2], (json.dumps(row) + "\n").encode(), *lines[3:]]

    bad = _rewrite(backup, tmp_path / "bad.zip", "annotation.medal", change, fix_manifest=True)
    message = _refused(bad)
    assert "[annotation.medal], record 3, field 'report'" in message
    assert "annotation.report id 999999 is not in the backup" in message


def test_a_bad_value_names_the_record_and_field(backup, tmp_path):
    def change(lines):
        row = json.loads(lines[0])
        row[3] = "platinum"  # the medal
        return [(json.dumps(row) + "\n").encode(), *lines[1:]]

    bad = _rewrite(backup, tmp_path / "bad.zip", "annotation.medal", change, fix_manifest=True)
    assert "[annotation.medal], record 1, field 'medal'" in _refused(bad)


def test_an_unknown_format_version_is_refused(backup, tmp_path):
    bad = tmp_path / "bad.zip"
    with zipfile.ZipFile(backup) as zin, zipfile.ZipFile(bad, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename == "manifest.json":
                manifest = json.loads(data)
                manifest["format_version"] = 99
                data = json.dumps(manifest).encode()
            zout.writestr(info.filename, data)
    assert "'format_version' is 99" in _refused(bad)


def test_the_command_reports_problems_and_a_missing_study(backup, tmp_path):
    with pytest.raises(CommandError, match="nothing was written"):
        call_command("import_study", str(backup), stdout=io.StringIO())
    with pytest.raises(CommandError, match="no study named"):
        call_command("export_study", "--study", "nope", "--out", str(tmp_path / "x.zip"))
    assert not (tmp_path / "x.zip").exists()


@pytest.mark.shared_data
def test_released_scholarqa_study_restores_with_the_same_compat_figures(scholarqa_dir, tmp_path):
    """The seed-003 figures depend on the annotators' reading order (the last pair read);
    restored into an empty database, every compat and default figure is the same."""
    import_release(scholarqa_dir, "sqa-backup")
    study = Study.objects.get(name="sqa-backup")

    def all_figures(study):
        out = {}
        for key, opts in {
            "assigned": ReportOptions(compat="scholarqa-cs2", settings=("assigned",)),
            "near": ReportOptions(compat="scholarqa-cs2", settings=("near_expert",)),
            "deep": ReportOptions(compat="scholarqa-cs2", settings=("deep_expert",)),
            "agreed": ReportOptions(compat="scholarqa-cs2", expert_agreed=True),
            "default": ReportOptions(),
        }.items():
            report = agreement_report(study.pk, opts)
            report["selection"].pop("study_id")
            out[key] = report
        out["alignment"] = judge_alignment(study.pk, ReportOptions())
        return out

    before, before_rows = all_figures(study), snapshot()
    path = tmp_path / "sqa.zip"
    export_study(study, path)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    call_command("flush", interactive=False, verbosity=0)
    import_study(path)
    connection.check_constraints()
    assert snapshot() == before_rows
    assert all_figures(Study.objects.get(name="sqa-backup")) == before


def test_a_restore_never_carries_privilege_flags_and_grants_roles_only_when_asked(study, tmp_path):
    """A backup is a file anyone could have edited (issue 12): its is_staff / is_superuser
    are never restored, and its roles are listed and granted only with --grant-roles."""
    User.objects.filter(annotator__isnull=False).update(is_staff=True, is_superuser=True)
    path = tmp_path / "forged.zip"
    export_study(study, path)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    call_command("flush", interactive=False, verbosity=0)
    out = io.StringIO()
    call_command("import_study", str(path), stdout=out)
    assert User.objects.exists()
    assert not User.objects.filter(is_staff=True).exists()
    assert not User.objects.filter(is_superuser=True).exists()
    assert not User.objects.filter(groups__isnull=False).exists()  # no role granted
    text = out.getvalue()
    assert "NOT granted" in text and "--grant-roles" in text and "annotator" in text
    call_command("flush", interactive=False, verbosity=0)
    call_command("import_study", str(path), "--grant-roles", stdout=io.StringIO())
    assert User.objects.filter(groups__name="annotator").exists()
    assert not User.objects.filter(is_superuser=True).exists()


# --- A backup written before migration 0021 (issue 29) ----------------------------------------
#: ``full_study`` exported by Concord at the commit before migration 0021 (sources and citation
#: anchors as rows of ``annotation.citation`` and ``annotation.citationanchor``).
BEFORE_0021 = Path(__file__).parent.parent / "data" / "backup_before_0021.zip"


def _structure(study_name: str) -> dict:
    """Per (question, system): the sources, and each paragraph's number, text and anchors."""
    return {
        (r.question.external_id, r.system.name): (
            r.citations,
            [(p.number, p.text, p.anchors) for p in r.paragraphs.order_by("number")],
        )
        for r in Report.objects.filter(question__study__name=study_name).select_related(
            "question", "system"
        )
    }


def test_a_backup_from_before_the_json_citations_restores_as_upgrading_in_place(study, tmp_path):
    """The old file's sources and anchors become today's JSON lists: the restored reports
    read exactly like the same study built by today's code (the ``study`` fixture), and
    every other row of the file is restored."""
    with zipfile.ZipFile(BEFORE_0021) as z:
        tables = {t["model"]: t for t in json.loads(z.read("manifest.json"))["tables"]}
    assert tables["annotation.citation"]["count"] > 100  # the file really holds the old rows
    assert tables["annotation.citationanchor"]["count"] > 100
    assert "citations" not in tables["annotation.report"]["columns"]

    summary = import_study(BEFORE_0021, new_name="Restored")

    restored = _structure("Restored")
    assert restored == _structure(study.name)
    assert sum(len(c) for c, _ in restored.values()) == tables["annotation.citation"]["count"]
    assert (
        sum(len(p[2]) for _, ps in restored.values() for p in ps)
        == (tables["annotation.citationanchor"]["count"])
    )
    assert "annotation.citation" not in summary.created
    owned = {t.label for t in graph.tables() if t.kind in ("root", "study")}
    for label, entry in tables.items():  # every row the study owns (not the shared accounts)
        if label in owned:
            assert summary.created.get(label, 0) == entry["count"], label
    # and it is a backup of today's layout once exported again
    again = tmp_path / "again.zip"
    export_study(Study.objects.get(name="Restored"), again)
    import_study(again, new_name="Again")
    assert _structure("Again") == restored


@pytest.mark.parametrize(
    ("table", "line", "column", "field", "missing"),
    [
        ("annotation.citationanchor", 2, 2, "citation", "annotation.citation id 999999"),
        ("annotation.citationanchor", 3, 1, "paragraph", "annotation.paragraph id 999999"),
        ("annotation.citation", 1, 1, "report", "annotation.report id 999999"),
    ],
    ids=["anchor-of-no-source", "anchor-of-no-paragraph", "source-of-no-report"],
)
def test_an_old_backup_row_pointing_at_nothing_is_named_and_nothing_written(
    tmp_path, table, line, column, field, missing
):
    def change(lines):
        row = json.loads(lines[line - 1])
        row[column] = 999_999
        return [*lines[: line - 1], (json.dumps(row) + "\n").encode(), *lines[line:]]

    bad = _rewrite(BEFORE_0021, tmp_path / "bad.zip", table, change, fix_manifest=True)
    message = _refused(bad)
    assert f"[{table}], record {line}, field '{field}'" in message
    assert f"{missing} is not in the backup" in message


def test_an_old_backup_whose_source_rows_were_changed_is_refused_by_their_checksum(tmp_path):
    def change(lines):
        return [lines[0].replace(b"Retrieval", b"Retreival"), *lines[1:]]

    bad = _rewrite(BEFORE_0021, tmp_path / "bad.zip", "annotation.citation", change,
                   fix_manifest=False)  # fmt: skip
    message = _refused(bad)
    assert "[annotation.citation]" in message and "checksum" in message


def _without_column(src, dst, label: str, column: str):
    """Copy the backup as an earlier Concord wrote it: ``column`` of ``label`` left out,
    the manifest's columns, checksums and count to match."""
    import hashlib

    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        manifest = json.loads(zin.read("manifest.json"))
        entry = next(t for t in manifest["tables"] if t["model"] == label)
        at = entry["columns"].index(column)
        for info in zin.infolist():
            if info.filename == "manifest.json":
                continue
            data = zin.read(info.filename)
            if info.filename == entry["file"]:
                rows = [json.loads(line) for line in data.splitlines()]
                data = b"".join(archive.encode(r[:at] + r[at + 1 :]) for r in rows)
                entry["sha256"] = hashlib.sha256(data).hexdigest()
            zout.writestr(info.filename, data)
        entry["columns"].pop(at)
        manifest["checksum"] = archive.tables_checksum(manifest["tables"])
        zout.writestr("manifest.json", json.dumps(manifest))
    return dst


def test_a_backup_from_before_0023_restores_researcherbench_questions_on_the_new_mapping(
    tmp_path,
):
    """Migration 0023 moved ResearcherBench questions imported with the old mapping
    (category as field, Subject as subdomain) to Subject -> field, category -> intent; a
    backup taken before it restored them on the old mapping, so assignment by expertise
    matched annotators on the question's type (tester's report). Restored now as upgrading
    in place gives: the same questions moved, every other question as it was."""
    from annotation.models import Question, Rubric

    study = Study.objects.create(name="Old RB")

    def question(key, kind, **fields):
        q = Question.objects.create(study=study, external_id=key, text=f"{key}?", **fields)
        Rubric.objects.create(question=q, kind=kind)

    question("old", "researcherbench", field="Open Consulting", subdomain="AI Policy")
    question("new", "researcherbench", field="Scaling Laws", intent="Literature Review")
    question("other", "researchqa", field="Biology", subdomain="Genomics")
    path = tmp_path / "now.zip"
    export_study(study, path)
    # as written before 0023: without ``released``, nor ``title`` (0028) added since
    old = _without_column(path, tmp_path / "old.zip", "annotation.question", "title")
    old = _without_column(old, tmp_path / "older.zip", "annotation.question", "released")
    with zipfile.ZipFile(old) as z:  # the file really is of the earlier layout
        tables = {t["model"]: t for t in json.loads(z.read("manifest.json"))["tables"]}
    assert "released" not in tables["annotation.question"]["columns"]

    import_study(old, new_name="Restored")

    restored = {
        q.external_id: (q.field, q.subdomain, q.intent, q.released)
        for q in Question.objects.filter(study__name="Restored")
    }
    assert restored == {
        "old": ("AI Policy", "", "Open Consulting", None),
        "new": ("Scaling Laws", "", "Literature Review", None),
        "other": ("Biology", "Genomics", "", None),
    }


def test_a_backup_keeps_the_released_rubric_and_one_from_before_0025_restores(tmp_path):
    """Migration 0025 added ``Rubric.released`` (ResearcherBench's rubric record as
    imported): a backup carries it, so the restored study exports rubric.json as imported
    (string ids, ``2.0``, ``source``); a backup written before it restores with none, as
    upgrading in place gives (the export built from the items)."""
    from annotation.importers import run
    from annotation.importers.researcherbench import dump_questions
    from annotation.models import Rubric
    from tests.annotation.test_rubric_export_as_released import QUESTIONS, RUBRIC, as_text

    questions, rubric = tmp_path / "questions.json", tmp_path / "rubric.json"
    questions.write_text(json.dumps(QUESTIONS))
    rubric.write_text(json.dumps(RUBRIC))
    run("questions", questions, study="RB", format="researcherbench", rubric=rubric)
    path = tmp_path / "now.zip"
    export_study(Study.objects.get(name="RB"), path)

    import_study(path, new_name="Restored")
    exported = dump_questions(Study.objects.get(name="Restored"))["rubric.json"]
    assert as_text(json.loads(exported)) == as_text(RUBRIC)

    old = _without_column(path, tmp_path / "old.zip", "annotation.rubric", "released")
    import_study(old, new_name="Older")
    assert list(
        Rubric.objects.filter(question__study__name="Older").values_list("released", flat=True)
    ) == [None, None]
    built = json.loads(dump_questions(Study.objects.get(name="Older"))["rubric.json"])
    assert [r["id"] for r in built] == [1, 2]


def test_a_backup_keeps_question_titles_and_one_from_before_0028_restores(tmp_path):
    """Migration 0028 added ``Question.title`` (a DeepScholar paper's title, the question's
    label): a backup carries it; one written before it restores with none, as upgrading in
    place gives, also one written before 0023 that lacks ``released`` too (both columns
    added to the same table by the restore)."""
    from annotation.models import Question

    study = Study.objects.create(name="Titled")
    Question.objects.create(study=study, external_id="p1", text="Write…", title="A paper")
    Question.objects.create(study=study, external_id="q2", text="A question?")
    path = tmp_path / "now.zip"
    export_study(study, path)

    def restored(name):
        return sorted(Question.objects.filter(study__name=name).values_list(
            "external_id", "title", "released"))  # fmt: skip

    import_study(path, new_name="Restored")
    assert restored("Restored") == [("p1", "A paper", None), ("q2", "", None)]
    old = _without_column(path, tmp_path / "old.zip", "annotation.question", "title")
    import_study(old, new_name="Older")
    assert restored("Older") == [("p1", "", None), ("q2", "", None)]
    older = _without_column(old, tmp_path / "older.zip", "annotation.question", "released")
    import_study(older, new_name="Oldest")
    assert restored("Oldest") == [("p1", "", None), ("q2", "", None)]
