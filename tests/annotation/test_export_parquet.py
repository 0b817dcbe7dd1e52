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
