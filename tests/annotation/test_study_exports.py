"""Study exports: judgments in four formats, pairwise bundles, and the round trip."""

import csv
import io
import json

import pytest
from django.core.management import call_command
from openpyxl import load_workbook

from annotation.exporters import (
    JUDGMENT_KINDS,
    export_judgments,
    judgment_columns,
    judgment_records,
)
from annotation.models import Annotator, Study
from judges.models import Judge
from metaeval.reports import ReportOptions, agreement_report
from studio.studyadmin.exports import (
    import_pairwise_bundle,
    pairwise_bundle,
    pairwise_bundle_zip,
)
from tests.annotation.test_export import populate
from tests.builders import world as f


def _report(study_id, **options):
    r = agreement_report(study_id, ReportOptions(**options))
    r["selection"].pop("study_id")
    return r


def _empty_database():
    from studio.studyadmin.deletion import purge_study

    for study in Study.objects.all():
        purge_study(study)  # judgments are protected from cascades (issue 12)
    Annotator.objects.all().delete()
    Judge.objects.all().delete()


@pytest.mark.django_db
@pytest.mark.parametrize("options", [{}, {"ties": "partial"}, {"settings": ("assigned",)}])
def test_round_trip_keeps_the_agreement_report(options):
    study = populate()
    before = _report(study.pk, **options)
    bundle = pairwise_bundle_zip(study)
    judgments_before = sorted(
        (r["kind"], r["annotator"], r["setting"], r.get("system"), r.get("medal"), r.get("value"))
        for r in judgment_records(study)
        if r["kind"] in ("medal", "human_metric_score")
    )
    _empty_database()
    import_pairwise_bundle(bundle, study="Imported")
    again = Study.objects.get(name="Imported")
    assert _report(again.pk, **options) == before
    judgments_after = sorted(
        (r["kind"], r["annotator"], r["setting"], r.get("system"), r.get("medal"), r.get("value"))
        for r in judgment_records(again)
        if r["kind"] in ("medal", "human_metric_score")
    )
    assert judgments_after == judgments_before


@pytest.mark.django_db
@pytest.mark.shared_data
def test_round_trip_on_the_released_data(scholarqa_dir):
    """The published figures survive export -> empty database -> import (compat mode too)."""
    from tests.builders.scholarqa import import_release
    from tests.metaeval.test_compat_reproduction import pct

    import_release(scholarqa_dir, "CS2")
    study = Study.objects.get(name="CS2")
    variants = [
        {},
        {"settings": ("near_expert", "deep_expert")},
        {"compat": "scholarqa-cs2", "settings": ("assigned",)},
        {"compat": "scholarqa-cs2", "settings": ("near_expert",)},
    ]
    before = [_report(study.pk, **v) for v in variants]
    bundle = pairwise_bundle_zip(study)
    _empty_database()
    import_pairwise_bundle(bundle, study="CS2 again")
    again = Study.objects.get(name="CS2 again")
    after = [_report(again.pk, **v) for v in variants]
    assert after == before
    assert pct(after[2]["iaa"]["strict"]) == 55.0  # seed 003 Table 2, after the round trip


@pytest.mark.django_db
def test_bundle_names_files_by_annotator_setting_and_split():
    study = populate()
    files = {(b.annotator, b.setting, b.split, b.consensus) for b in pairwise_bundle(study)}
    assert ("ann1", "assigned", "dev", False) in files
    assert ("agree", "assigned", "dev", True) in files
    assert any(a == "exp" and s == "near_expert" for a, s, _, _ in files)


@pytest.mark.django_db
def test_bad_bundle_is_refused_and_changes_nothing():
    from annotation.importers import ImportFailed

    with pytest.raises(ImportFailed, match="manifest"):
        import_pairwise_bundle(b"not a zip", study="X")
    assert not Study.objects.filter(name="X").exists()


@pytest.fixture
def world(annotator_user, other_annotator_user):
    return f.build_world(annotator_user, other_annotator_user)


@pytest.mark.django_db
@pytest.mark.parametrize("fmt", ["json", "jsonl", "csv", "xlsx"])
def test_judgments_export_formats(world, fmt):
    records = judgment_records(world.study)
    kinds = {r["kind"] for r in records}
    assert {"medal", "pairwise_preference", "human_metric_score"} <= kinds
    out = export_judgments(world.study, fmt)
    if fmt == "json":
        back = json.loads(out)
    elif fmt == "jsonl":
        back = [json.loads(line) for line in out.splitlines()]
    elif fmt == "csv":
        back = list(csv.DictReader(io.StringIO(out)))
        assert list(back[0]) == judgment_columns()
    else:
        ws = load_workbook(io.BytesIO(out)).active
        table = list(ws.values)
        assert list(table[0]) == judgment_columns()
        back = [dict(zip(table[0], row, strict=True)) for row in table[1:]]
    assert len(back) == len(records)
    assert [str(r["kind"]) for r in back] == [r["kind"] for r in records]
    # pseudonyms only; the system is named for researchers
    annotators = {r["annotator"] for r in back}
    assert annotators == {"Pseudo-annotator_t", "Pseudo-annotator_other"}
    medal = next(r for r in back if r["kind"] == "medal")
    assert medal["system"] in f.SYSTEM_NAMES and medal["medal"] in ("gold", "silver", "bronze")


@pytest.mark.django_db
def test_judgments_only_of_the_study(world):
    other = f.study("Another")
    assert judgment_records(other) == []
    assert export_judgments(other, "csv").splitlines() == [",".join(judgment_columns())]
    with pytest.raises(ValueError, match="unknown format"):
        export_judgments(world.study, "pdf")


@pytest.mark.django_db
def test_judgments_export_queries_do_not_grow(world, django_assert_max_num_queries):
    from tests.builders import world as f2

    # one per kind, and one for the known-answer items (the quality_check column)
    with django_assert_max_num_queries(len(JUDGMENT_KINDS) + 1):
        judgment_records(world.study)
    for _ in range(5):
        q = f2.question(world.study)
        made = f2.equip_question(world, q, world.annotator)
        assert made
    with django_assert_max_num_queries(len(JUDGMENT_KINDS) + 1):
        judgment_records(world.study)


@pytest.mark.django_db
def test_export_study_judgments_command(world, tmp_path):
    out = tmp_path / "j.jsonl"
    call_command("export_study_judgments", study=world.study.name, format="jsonl", out=str(out))
    assert len(out.read_text().splitlines()) == len(judgment_records(world.study))
    zpath = tmp_path / "p.zip"
    call_command(
        "export_study_judgments", study=world.study.name, format="pairwise", out=str(zpath)
    )
    assert zpath.read_bytes()[:2] == b"PK"
    from django.core.management.base import CommandError

    from annotation.models import Study

    Study.objects.create(name="No pairwise records")
    none = tmp_path / "none.zip"  # as the page's pairwise.zip: said, no zip of a manifest
    with pytest.raises(CommandError, match="nothing to export"):
        call_command("export_study_judgments", study="No pairwise records", format="pairwise",
                     out=str(none))  # fmt: skip
    assert not none.exists()


@pytest.mark.django_db
def test_bundle_keeps_questions_without_a_split_beside_split_ones(tmp_path):
    """One annotator judged dev questions and questions of no split: both are exported
    (the questions without a split were left out of the zip)."""
    from annotation.importers import run
    from annotation.models import MedalRanking
    from tests.annotation.test_import_common import DATA

    run("pairwise", DATA / "pairwise_dev_assigned_ann1.json", study="Mixed", annotator="ann1",
        setting="assigned", judge="j")  # fmt: skip
    unsplit = tmp_path / "pairwise_extra.json"
    unsplit.write_bytes((DATA / "pairwise_chosen.json").read_bytes())
    run("pairwise", unsplit, study="Mixed", annotator="ann1", setting="assigned", judge="j")
    study = Study.objects.get(name="Mixed")
    splits = set(MedalRanking.objects.filter(study=study).values_list("question__split", flat=True))
    assert splits == {"", "dev"}
    files = pairwise_bundle(study)
    assert sorted((b.split, len(b.records)) for b in files) == [
        ("", len(json.loads(unsplit.read_text()))),
        ("dev", len(json.loads((DATA / "pairwise_dev_assigned_ann1.json").read_text()))),
    ]
