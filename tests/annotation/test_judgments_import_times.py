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


def _changed(lines: list[dict], times: dict) -> list[dict]:
    """The same records with a query quality's clarity, the first medal and the expertise
    level changed, each given ``times`` (its keys set, the others left out)."""
    out = []
    first_medal = True
    for r in lines:
        r = {k: v for k, v in r.items() if k not in ("created_at", "updated_at")}
        if r["kind"] == "query_quality":
            r["clarity"] = 1 if r["clarity"] != 1 else 2
        elif r["kind"] == "medal" and first_medal:
            r["medal"], first_medal = "bronze", False
        elif r["kind"] == "expertise_rating":
            r["level"] = "outside"
        else:
            out.append({**r, "created_at": CREATED.isoformat(), "updated_at": UPDATED.isoformat()})
            continue
        out.append({**r, **{k: v.isoformat() for k, v in times.items()
                            if k == "updated_at" or r["kind"] != "expertise_rating"}})  # fmt: skip
    return out


def _import(lines, study) -> None:
    run("judgments", "\n".join(json.dumps(r) for r in lines).encode(), study=study)


def test_a_re_import_that_changes_a_judgment_without_times_moves_its_update_time(exported):
    """A stored judgment kept its ``updated_at`` when a re-import changed its values (the
    report cache reads that time); a changed one is updated now, an unchanged one keeps its
    times, and a changed medal is a change of its ranking."""
    _, b, lines = exported
    _import(lines, b)
    before = datetime.now(UTC)
    _import(_changed(lines, {}), b)
    q = m.QueryQuality.objects.get(study=b)
    assert q.clarity in (1, 2) and q.updated_at >= before and q.created_at == CREATED
    ranking = m.MedalRanking.objects.get(study=b)
    assert ranking.medals.filter(medal="bronze").exists()
    assert ranking.updated_at >= before and ranking.created_at == CREATED
    rating = m.ExpertiseRating.objects.get(question__study=b)
    assert rating.level == "outside" and rating.rated_at >= before
    unchanged = m.PairwisePreference.objects.get(study=b)
    assert (unchanged.created_at, unchanged.updated_at) == (CREATED, UPDATED)


def test_a_re_import_that_changes_a_judgment_moves_its_update_time_whatever_it_says(exported):
    """An exported file edited and imported again holds the times of its export: a changed
    judgment is updated now all the same (else the report cache, keyed by each kind's
    largest update time, served the report of the old values), and keeps its creation."""
    from metaeval.cache import study_fingerprint

    _, b, lines = exported
    _import(lines, b)
    fingerprint = study_fingerprint(b.pk)
    before = datetime.now(UTC)
    _import(_changed(lines, {"created_at": CREATED, "updated_at": UPDATED}), b)
    q = m.QueryQuality.objects.get(study=b)
    assert q.created_at == CREATED and q.updated_at >= before
    ranking = m.MedalRanking.objects.get(study=b)
    assert ranking.created_at == CREATED and ranking.updated_at >= before
    assert m.ExpertiseRating.objects.get(question__study=b).rated_at >= before
    unchanged = m.PairwisePreference.objects.get(study=b)
    assert (unchanged.created_at, unchanged.updated_at) == (CREATED, UPDATED)
    assert study_fingerprint(b.pk) != fingerprint
