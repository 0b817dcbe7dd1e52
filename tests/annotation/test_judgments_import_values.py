"""The judgments import checks every value as the task form does (issue 24, "Invalid values
through the judgments import break backups"): an invalid value is refused naming the record
and the field and writes nothing; two records of one judgment that disagree are refused
naming both; the report says which annotator each pseudonym matched (a warning when it is a
person with an account); and a study filled through the import backs up and restores."""

import json

import pytest

from annotation import protection
from annotation.importers import ImportFailed, run
from annotation.models import Annotator, Study
from studio.backup.dump import export_study
from studio.backup.restore import import_study
from tests.annotation.test_export_formats import _content_twice, _judge_every_kind
from tests.builders.users import make_user

pytestmark = pytest.mark.django_db


def exported_lines(study) -> list[dict]:
    from annotation.importers.registry import FORMATS

    text = FORMATS[("judgments", "jsonl")].dump(study)["judgments.jsonl"]
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def stored(study) -> int:
    return sum(m.objects.filter(study=study).count() for m in protection.judgment_models())


def as_file(records) -> bytes:
    return "\n".join(json.dumps(r) for r in records).encode()


@pytest.fixture
def two():
    a, b = _content_twice()
    _judge_every_kind(a)
    return a, b, exported_lines(a)


def of_kind(lines, kind):
    return next(n for n, r in enumerate(lines) if r["kind"] == kind)


@pytest.mark.parametrize(
    "kind, field, value, says",
    [
        ("query_quality", "setting", "xx", "'xx' is not one of assigned"),
        ("query_quality", "clarity", True, "true is not"),
        ("query_quality", "clarity", 9, "9 is not a rating from 1 to 5"),
        ("query_quality", "variability", "sometimes", "'sometimes' is not"),
        ("pairwise_preference", "choice", "maybe", "'maybe' is not"),
        ("report_rating", "value", 0, "0 is not a rating from 1 to 5"),
        ("report_rating", "dimension", "vibes", "'vibes' is not one of answer_recall"),
        ("rubric_coverage", "label", 7, "7 is not a label from 0 to 4"),
        ("rubric_coverage", "covered", "yes", "'yes' is not true, false or null"),
        ("rubric_item_quality", "emphasis", "huge", "'huge' is not an emphasis level"),
        ("rubric_item_quality", "confidence", 6, "6 is not from 1 to 5"),
        ("rubric_item_quality", "flags", ["nonsense"], "'nonsense' is not an error flag"),
        ("paragraph_relevance", "label", "X", "'X' is not"),
    ],
)
def test_an_invalid_value_is_refused_naming_record_and_field(two, kind, field, value, says):
    _, b, lines = two
    n = of_kind(lines, kind)
    lines[n][field] = value
    people = Annotator.objects.count()
    with pytest.raises(ImportFailed) as failed:
        run("judgments", as_file(lines), study=b)
    problems = [(p.record, p.field) for p in failed.value.problems]
    assert (n + 1, field) in problems, str(failed.value)
    assert says in str(failed.value)
    assert stored(b) == 0 and Annotator.objects.count() == people


def test_two_records_of_one_judgment_that_disagree_are_refused_naming_both(two):
    _, b, lines = two
    n = of_kind(lines, "query_quality")
    twin = {**lines[n], "clarity": 1}
    lines.append(twin)
    with pytest.raises(ImportFailed) as failed:
        run("judgments", as_file(lines), study=b)
    text = str(failed.value)
    assert f"record {len(lines)}" in text and f"conflicts with record {n + 1}" in text
    assert "clarity: 3 vs 1" in text
    assert stored(b) == 0
    # an exact repeat is the same judgment, not a conflict
    lines[-1] = dict(lines[n])
    rep = run("judgments", as_file(lines), study=b)
    assert rep.created.get("QueryQuality") == 1


def test_the_report_says_whom_each_pseudonym_matched(two):
    _, b, lines = two
    person = make_user("real_person", "annotator", annotator=True).annotator
    for r in lines[:2]:
        r["annotator"] = person.pseudonym
    rep = run("judgments", as_file(lines), study=b)
    assert rep.annotators[person.pseudonym] == "existing annotator with the account “real_person”"
    assert rep.annotators["Pseudo-x"] == "existing annotator (no account)"
    warned = [w for w in rep.warnings if w.field == "annotator" and "now theirs" in w.message]
    assert len(warned) == 1 and warned[0].record == 1
    assert "has the account “real_person”" in warned[0].message
    assert f"{person.pseudonym} = existing annotator with the account" in rep.summary()


def test_a_study_filled_through_the_import_backs_up_and_restores(two, tmp_path):
    _, b, lines = two
    run("judgments", as_file(lines), study=b)
    before = stored(b)
    assert before >= 9
    path = tmp_path / "b.zip"
    export_study(b, path)
    import_study(path, new_name="B restored")
    assert stored(Study.objects.get(name="B restored")) == before
