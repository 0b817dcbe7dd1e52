"""Exports: every table as JSON / JSON lines / CSV, and pairwise records back to the released form."""

import json
import math

import pytest
from django.core.management import CommandError, call_command

from annotation.exporters import TABLES, export_table, read_table, rows
from annotation.importers import run
from annotation.models import Study
from judges.formats.scholarqa_pairwise import export_pairwise

from .test_import_common import DATA


def populate(study="S"):
    run("questions", DATA / "researchqa_questions.jsonl", study=study, format="researchqa")
    run("questions", DATA / "questions.jsonl", study=study, format="jsonl")
    run(
        "reports",
        DATA / "researchqa_responses.json",
        study=study,
        format="researchqa",
        system="gpt",
    )
    run("reports", DATA / "scholarqa_reports.json", study=study, format="scholarqa", system="alpha")
    run(
        "pairwise",
        DATA / "pairwise_dev_assigned_ann1.json",
        study=study,
        annotator="ann1",
        judge="gemini",
    )
    run(
        "pairwise",
        DATA / "pairwise_dev_assigned_agreement_only.json",
        study=study,
        annotator="agree",
        judge="gemini-agreement",
    )
    run("pairwise", DATA / "pairwise_chosen.json", study=study, annotator="exp", judge="gemini")
    return Study.objects.get(name=study)


@pytest.mark.django_db
@pytest.mark.parametrize("fmt", ["json", "jsonl", "csv"])
def test_every_table_round_trips(fmt):
    study = populate()
    populate("Other study")  # rows of another study stay out
    for table in TABLES:
        expected = rows(table, study)
        assert expected or table in ("expertise_rating",), table
        assert read_table(table, fmt, export_table(table, study, fmt)) == expected, table


@pytest.mark.django_db
def test_table_rows_belong_to_the_study():
    study = populate()
    other = populate("Other study")
    ids = {r["id"] for r in rows("judge_score", study)}
    assert ids and not ids & {r["id"] for r in rows("judge_score", other)}
    assert {r["study_id"] for r in rows("question", study)} == {study.pk}
    assert len(rows("judge", study)) == 2  # distinct, though each has many scores


@pytest.mark.django_db
def test_export_table_command(tmp_path, capsys):
    populate()
    out = tmp_path / "q.csv"
    call_command("export_table", "question", study="S", format="csv", out=str(out))
    assert out.read_text().splitlines()[0].startswith("id,study_id,external_id,text")
    call_command("export_table", "rubricitem", study="S", format="jsonl")
    assert len(capsys.readouterr().out.splitlines()) == 6
    with pytest.raises(CommandError, match="unknown table"):
        call_command("export_table", "nope", study="S")
    with pytest.raises(CommandError, match="no study"):
        call_command("export_table", "question", study="missing")


def normalized(records):
    """Records as a set: pair order canonical (by system name), floats rounded."""
    out = set()
    for r in records:
        flip = r["models"][0] > r["models"][1]
        items = []
        for k, v in r.items():
            if isinstance(v, list) and len(v) == 2:
                v = v[::-1] if flip else v
                v = tuple(
                    None if x is None else round(float(x), 9) if isinstance(x, float) else x
                    for x in v
                )
            items.append((k, v))
        out.add(tuple(sorted(items, key=lambda kv: kv[0])))
    return out


def assert_same_records(exported, original):
    assert len(exported) == len(original)
    assert normalized(exported) == normalized(original)
    # same field order and the same record order as released
    assert [list(r) for r in exported] == [list(r) for r in original]
    assert [(r["question"], sorted(r["models"])) for r in exported] == [
        (r["question"], sorted(r["models"])) for r in original
    ]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "name, annotator, setting, judge",
    [
        ("pairwise_dev_assigned_ann1.json", "ann1", "assigned", "gemini"),
        ("pairwise_chosen.json", "exp", "near_expert", "gemini"),
        ("pairwise_dev_assigned_agreement_only.json", "agree", "assigned", "gemini-agreement"),
    ],
)
def test_pairwise_round_trip_fixtures(name, annotator, setting, judge):
    study = populate()
    original = json.loads((DATA / name).read_text())
    exported = export_pairwise(study, setting=setting, annotator=annotator, judge=judge)
    assert_same_records(exported, original)
    assert exported == json.loads(json.dumps(exported))


@pytest.mark.django_db
def test_export_pairwise_command(tmp_path):
    populate()
    out = tmp_path / "out.json"
    call_command("export_pairwise", study="S", setting="assigned", annotator="ann1", out=str(out))
    exported = json.loads(out.read_text())
    assert_same_records(
        exported, json.loads((DATA / "pairwise_dev_assigned_ann1.json").read_text())
    )


REAL = [
    ("pairwise_dev_assigned_ann1.json", "dev-ann1", "assigned", "gemini-2.5-flash"),
    ("pairwise_dev_assigned_ann2.json", "dev-ann2", "assigned", "gemini-2.5-flash"),
    ("pairwise_test_assigned_ann1.json", "test-ann1", "assigned", "gemini-2.5-flash"),
    ("pairwise_test_assigned_ann2.json", "test-ann2", "assigned", "gemini-2.5-flash"),
    ("pairwise_chosen.json", "near-expert", "near_expert", "gemini-2.5-flash"),
    ("pairwise_authored.json", "deep-expert", "deep_expert", "gemini-2.5-flash"),
    ("pairwise_dev_assigned_agreement_only.json", "dev-agreement", "assigned", "gemini-2.5-flash"),
    (
        "pairwise_test_assigned_agreement_only.json",
        "test-agreement",
        "assigned",
        "gemini-2.5-flash (agreement)",
    ),
]


@pytest.mark.django_db
def test_real_pairwise_files_round_trip(scholarqa_dir):
    for name, annotator, _, judge in REAL:
        run(
            "pairwise",
            scholarqa_dir / "annotation" / name,
            study="CS2",
            annotator=annotator,
            judge=judge,
        )
    study = Study.objects.get(name="CS2")
    for name, annotator, setting, judge in REAL:
        original = json.loads((scholarqa_dir / "annotation" / name).read_text())
        exported = export_pairwise(study, setting=setting, annotator=annotator, judge=judge)
        assert len(exported) == len(original), name
        assert normalized(exported) == normalized(original), name
        assert_same_records(exported, original)
        for a, b in zip(exported, original, strict=True):
            for k in a:
                if isinstance(a[k], list) and k != "models":
                    for x, y in zip(a[k], b[k], strict=True):
                        assert (x is None and y is None) or math.isclose(x, y, abs_tol=1e-9), (
                            name,
                            k,
                        )
