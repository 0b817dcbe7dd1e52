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
