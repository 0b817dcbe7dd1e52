"""Over-long text through any importer is a refusal naming the field, never a 500 (issue 24,
"500s"). PostgreSQL refuses a value longer than its column with a DataError; SQLite stores
it, so these tests run on PostgreSQL (``DATABASE_URL=postgres://…``) and skip on SQLite.

The fuzz: for every importer with a sample file, every string value of the file's first
record (and every string option of the format) is replaced in turn by 5,000 characters; the
import either succeeds (a text column) or is refused with :class:`ImportFailed` naming that
field — any other exception (DataError) fails the test.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection, transaction
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.importers import ImportFailed, run
from annotation.importers.registry import FORMATS
from annotation.models import Study

DATA = Path(__file__).resolve().parents[1] / "data"
LONG = "x" * 5000

pytestmark = [pytest.mark.django_db]


@pytest.fixture(autouse=True)
def _postgres_only():
    if connection.vendor != "postgresql":
        pytest.skip("SQLite does not enforce column lengths: run with DATABASE_URL=postgres://…")


def _content(study: str) -> None:
    """Questions and reports the dependent imports (scores, labels, units) refer to."""
    run("questions", DATA / "researchqa_questions.jsonl", study=study, format="researchqa")
    run("reports", DATA / "researchqa_responses.json", study=study, format="researchqa",
        system="sys-a")  # fmt: skip
    run("reports", DATA / "deepscholar" / "toy-system", study=study, format="deepscholar")


#: (kind, format, sample file, options)
SAMPLES = [
    ("questions", "jsonl", "questions.jsonl", {}),
    ("questions", "researchqa", "researchqa_questions.jsonl", {}),
    ("questions", "researcherbench", "researcherbench_questions.json", {}),
    ("reports", "scholarqa", "scholarqa_reports.json", {"system": "sqa"}),
    ("reports", "researchqa", "researchqa_responses.json", {"system": "sys-b"}),
    ("reports", "researcherbench", "researcherbench_responses.json", {"system": "rb"}),
    ("pairwise", "scholarqa", "pairwise_dev_assigned_ann1.json",
     {"annotator": "ann1", "judge": "gemini", "setting": "assigned"}),
    ("deepscholar", "nuggets", "deepscholar/nuggets.jsonl", {}),
    ("deepscholar", "exemplar-references", "deepscholar/exemplar_references.jsonl", {}),
]  # fmt: skip


def _records(path: Path):
    text = path.read_text()
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in text.splitlines() if line.strip()], "jsonl"
    data = json.loads(text)
    return data, "json"


def _leaves(value, path=()):
    """Paths of every string in ``value`` (lists: their first element only)."""
    if isinstance(value, str):
        yield path
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _leaves(v, (*path, k))
    elif isinstance(value, list) and value:
        yield from _leaves(value[0], (*path, 0))


def _set(value, path, new):
    for step in path[:-1]:
        value = value[step]
    value[path[-1]] = new


def _first(data):
    if isinstance(data, list):
        return (0,), data[0]
    key = next(iter(data))
    return (key,), data[key]


def _attempt(kind, fmt, name, payload: bytes, options, study):
    try:
        with transaction.atomic():
            run(kind, payload, study=study, format=fmt, **options)
            raise _Undo
    except _Undo:
        return None
    except ImportFailed as failed:
        return failed


class _Undo(Exception):
    pass


@pytest.mark.parametrize(
    "kind, fmt, sample, options", SAMPLES, ids=[f"{k}-{f}" for k, f, *_ in SAMPLES]
)
def test_every_string_of_every_importer_is_refused_or_stored_never_a_500(
    kind, fmt, sample, options
):
    _content("Lengths")
    path = DATA / sample
    data, shape = _records(path)
    at, first = _first(data)
    tried = 0
    for leaf in _leaves(first):
        changed = copy.deepcopy(data)
        _set(changed, (*at, *leaf) if leaf else at, LONG)
        if shape == "jsonl":
            payload = "\n".join(json.dumps(r) for r in changed).encode()
        else:
            payload = json.dumps(changed).encode()
        upload = SimpleUploadedFile(path.name, payload)
        _attempt(kind, fmt, path.name, upload, options, "Lengths")
        tried += 1
    for option in FORMATS[(kind, fmt)].all_options():
        if option.type is str and not option.choices:
            failed = _attempt(kind, fmt, path.name, path, {**options, option.name: LONG}, "Lengths")
            if option.stored_as:
                assert failed is not None and any(p.field == option.name for p in failed.problems)
            tried += 1
    assert tried


@pytest.mark.parametrize(
    "sample, fmt, kind, where, field",
    [
        ("questions.jsonl", "jsonl", "questions", ("id",), "id"),
        ("questions.jsonl", "jsonl", "questions", ("field",), "field"),
        ("questions.jsonl", "jsonl", "questions", ("rubric_kind",), "rubric_kind"),
        ("deepscholar/nuggets.jsonl", "nuggets", "deepscholar", ("nuggets", 0, "id"),
         "nuggets[0].id"),
        ("deepscholar/exemplar_references.jsonl", "exemplar-references", "deepscholar",
         ("references", 0, "id"), "references[0].id"),
    ],
)  # fmt: skip
def test_the_named_fields_are_refused_through_the_api(admin_user, sample, fmt, kind, where, field):
    _content("Lengths")
    study = Study.objects.get(name="Lengths")
    records, _ = _records(DATA / sample)
    _set(records[0], where, LONG)
    payload = "\n".join(json.dumps(r) for r in records).encode()
    client = APIClient()
    client.force_login(admin_user)
    r = client.post(
        reverse("study-import", args=[study.pk]),
        {"kind": kind, "format": fmt, "file": SimpleUploadedFile(Path(sample).name, payload)},
        format="multipart",
    )
    assert r.status_code == 400, r.content[:300]
    assert field in r.content.decode() and "longer than" in r.content.decode()


@pytest.mark.parametrize(
    "kind, fmt, sample, option",
    [
        ("reports", "scholarqa", "scholarqa_reports.json", "system"),
        ("pairwise", "scholarqa", "pairwise_dev_assigned_ann1.json", "annotator"),
        ("pairwise", "scholarqa", "pairwise_dev_assigned_ann1.json", "judge"),
        ("judge_scores", "csv", None, "judge"),
    ],
)
def test_the_named_options_are_refused_through_the_api(admin_user, kind, fmt, sample, option):
    study = Study.objects.create(name="Options")
    given = {
        "pairwise": {"annotator": "ann1", "judge": "gemini", "setting": "assigned"},
        "reports": {"system": "sqa"},
        "judge_scores": {},
    }[kind]
    given[option] = LONG
    content = (DATA / sample).read_bytes() if sample else b"question,system,metric,value\n"
    sample = sample or "scores.csv"
    client = APIClient()
    client.force_login(admin_user)
    r = client.post(
        reverse("study-import", args=[study.pk]),
        {"kind": kind, "format": fmt, "options": json.dumps(given),
         "file": SimpleUploadedFile(sample, content)},
        format="multipart",
    )  # fmt: skip
    assert r.status_code == 400, r.content[:300]
    assert option in r.content.decode() and "longer than" in r.content.decode()
