"""Judgments as parquet: the same rows and columns as the CSV export, typed; refused with a
clear 400 on a server without pyarrow."""

import io
import json

import pyarrow.parquet as pq
import pytest

from annotation.exporters import export_judgments, judgment_columns
from tests.builders import world as f


@pytest.fixture
def world(annotator_user, other_annotator_user):
    w = f.build_world(annotator_user, other_annotator_user)
    w.own.update(f.other_kinds(w.own["assignment"]))
    return w


@pytest.mark.django_db
def test_parquet_holds_every_judgment_of_the_jsonl_export(world):
    table = pq.read_table(io.BytesIO(export_judgments(world.study, "parquet")))
    lines = [json.loads(x) for x in export_judgments(world.study, "jsonl").splitlines()]
    assert table.num_rows == len(lines) > 10
    assert table.column_names == judgment_columns()
    rows = table.to_pylist()
    assert sorted((r["kind"], r["id"]) for r in rows) == sorted((r["kind"], r["id"]) for r in lines)
    assert {r["kind"] for r in rows} >= {"medal", "pairwise_preference", "query_quality"}
    assert table.schema.field("id").type == "int64"


@pytest.mark.django_db
def test_the_times_are_timestamps_equal_to_the_json_export(world):
    """created_at / updated_at are UTC timestamps in parquet, not text (a researcher's
    notebook found them typed as strings), equal to the JSON export's ISO times."""
    from datetime import datetime

    import pyarrow as pa

    table = pq.read_table(io.BytesIO(export_judgments(world.study, "parquet")))
    lines = {
        (r["kind"], r["id"]): r
        for r in map(json.loads, export_judgments(world.study, "jsonl").splitlines())
    }
    for column in ("created_at", "updated_at"):
        assert table.schema.field(column).type == pa.timestamp("us", tz="UTC")
    stamped = 0
    for row in table.to_pylist():
        for column in ("created_at", "updated_at"):
            stamp = lines[(row["kind"], row["id"])].get(column)
            assert row[column] == (None if stamp is None else datetime.fromisoformat(stamp))
            stamped += stamp is not None
    assert stamped > 10


@pytest.mark.django_db
def test_every_study_exports_the_same_schema_so_two_concat(world):
    """The schema is the export's declared one, not the study's data: a column empty in a
    study (no rubric coverage there: ``covered``, ``item``, ``label``; no rating) keeps its
    type, so ``concat_tables`` of two studies' exports works (a researcher's finding: the
    empty columns were typed ``null`` and the concat failed)."""
    import pyarrow as pa

    from annotation.models import RubricItemQuality

    RubricItemQuality.objects.filter(study=world.study).update(flags=["vague", "redundant"])
    full = pq.read_table(io.BytesIO(export_judgments(world.study, "parquet")))
    other = f.study("Medals only")
    q = f.question(other)
    for name in ("s1", "s2"):
        f.report(q, f.system(other, name))
    f.judgments(f.assignment(world.own["assignment"].annotator, q))
    sparse = pq.read_table(io.BytesIO(export_judgments(other, "parquet")))
    empty = pq.read_table(io.BytesIO(export_judgments(f.study("Nothing yet"), "parquet")))
    assert sparse.num_rows > 0 and empty.num_rows == 0
    assert sparse.column("covered").null_count == sparse.num_rows
    assert full.schema == sparse.schema == empty.schema
    both = pa.concat_tables([full, sparse, empty])
    assert both.num_rows == full.num_rows + sparse.num_rows
    types = {name: str(full.schema.field(name).type) for name in full.column_names}
    assert types["covered"] == "bool" and types["item"] == "int64"
    assert types["value"] == "double" and types["label"] == "string"  # 0.5 and 4; 2 and "R"
    assert full.schema.field("flags").type.value_type == pa.string()
    assert types["flags"].startswith("list<") and types["updated_at"] == "timestamp[us, tz=UTC]"
    rows = {r["kind"]: r for r in full.to_pylist()}
    assert rows["rubric_item_quality"]["flags"] == ["vague", "redundant"]
    assert rows["rubric_coverage"]["covered"] is True and rows["rubric_coverage"]["label"] == "2"
    assert rows["report_rating"]["value"] == 4.0 and rows["human_metric_score"]["value"] == 0.5
    assert json.loads(rows["claim_assessment"]["citations"]) == [{"key": "1", "label": "supports"}]
