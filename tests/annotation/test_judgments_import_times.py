"""Re-imported judgments keep the times the export wrote (``created_at`` / ``updated_at``):
before, every judgment imported into a fresh study was stamped with the import time. A
record without times gets the import time; an unparseable time is refused naming the
record and the field, and nothing is written."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from annotation import models as m
from annotation import protection
from annotation.exporters import judgment_records
from annotation.importers import ImportFailed, run
from annotation.importers.registry import FORMATS
from tests.annotation.test_export_formats import _content_twice, _judge_every_kind

pytestmark = pytest.mark.django_db

CREATED = datetime(2024, 3, 1, 9, 30, 15, 123456, tzinfo=UTC)
UPDATED = datetime(2024, 3, 2, 17, 5, tzinfo=UTC)


def _lines(study) -> list[dict]:
    text = FORMATS[("judgments", "jsonl")].dump(study)["judgments.jsonl"]
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _times(study) -> list[tuple]:
    """(kind, created_at, updated_at) of every exported record, in a stable order."""
    return sorted(
        (r["kind"], r.get("question"), r.get("system") or r.get("left_system") or "",
         r.get("created_at"), r.get("updated_at"))
        for r in judgment_records(study)
    )  # fmt: skip


@pytest.fixture
def exported():
    a, b = _content_twice()
    _judge_every_kind(a)
    m.ExpertiseRating.objects.create(
        annotator=m.Annotator.objects.get(), question=a.questions.get(), level="within"
    )
    for model in protection.judgment_models():
        names = {f.name for f in model._meta.concrete_fields}
        stamps = {k: v for k, v in (("created_at", CREATED), ("updated_at", UPDATED)) if k in names}
        if stamps and "study" in names:
            model.objects.filter(study=a).update(**stamps)
    m.ExpertiseRating.objects.update(rated_at=UPDATED)
    return a, b, _lines(a)


def test_the_exported_times_are_kept(exported):
    a, b, lines = exported
    assert {r["kind"] for r in lines} >= {"medal", "expertise_rating", "query_quality"}
    run("judgments", "\n".join(json.dumps(r) for r in lines).encode(), study=b)
    assert _times(b) == _times(a)
    assert m.MedalRanking.objects.get(study=b).created_at == CREATED
    assert m.QueryQuality.objects.get(study=b).updated_at == UPDATED
    assert m.ExpertiseRating.objects.get(question__study=b).rated_at == UPDATED


def test_without_times_a_judgment_gets_the_import_time(exported):
    _, b, lines = exported
    for r in lines:
        r.pop("created_at", None)
        r["updated_at"] = None
    before = datetime.now(UTC)
    run("judgments", "\n".join(json.dumps(r) for r in lines).encode(), study=b)
    q = m.QueryQuality.objects.get(study=b)
    assert q.created_at >= before and q.updated_at >= before


@pytest.mark.parametrize(
    ("field", "value", "says"),
    [
        ("created_at", "yesterday", "'yesterday' is not an ISO 8601 date and time"),
        ("created_at", 1709285415, "1709285415 is not an ISO 8601 date and time"),
        ("updated_at", "2024-03-02T17:05:00", "has no time zone"),
        ("updated_at", "2024-02-01T00:00:00+00:00", "is before created_at"),
    ],
)
def test_a_bad_time_is_refused_naming_record_and_field(exported, field, value, says):
    _, b, lines = exported
    n = next(i for i, r in enumerate(lines, start=1) if r["kind"] == "query_quality")
    lines[n - 1][field] = value
    before = sum(model.objects.count() for model in protection.judgment_models())
    with pytest.raises(ImportFailed) as info:
        run("judgments", "\n".join(json.dumps(r) for r in lines).encode(), study=b)
    ((p),) = info.value.problems
    assert (p.record, p.field) == (n, field) and says in p.message
    assert sum(model.objects.count() for model in protection.judgment_models()) == before
