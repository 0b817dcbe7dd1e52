"""Every file importer against damaged input (issue 8, "hostile and broken input").

For each import kind and format, with the fixture of real shape it round-trips elsewhere:

* the file cut in half (a truncated upload or copy),
* a file of another format (the wrong ``--format``, or the wrong file picked),

must be refused with a problem that names the file, and change nothing in any table the
importers touch; then the intact file imports, so the refusals are the damage's doing and
not a missing prerequisite. A contradictory pairwise file (the same pair ranked both ways)
is refused the same way.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from annotation.importers import ImportFailed, run
from judges.importers import import_judge_scores
from tests.annotation.test_import_common import table_counts
from tests.builders.judged import build_study

pytestmark = pytest.mark.django_db
DATA = Path(__file__).resolve().parents[1] / "data"
JUDGE_DATA = Path(__file__).resolve().parents[1] / "judges" / "data"


@dataclass(frozen=True)
class Spec:
    """One importer: ``kind`` (or ``judge`` for import_judge_scores), its options, the
    intact fixture, and a file of another format with a suffix the importer accepts."""

    kind: str
    fixture: Path
    other_format: Path
    options: dict = field(default_factory=dict)
    needs_questions: bool = False  # ResearchQA responses refer to imported questions
    needs_judge_study: bool = False  # judge scores refer to an existing study's reports

    def run(self, source):
        if self.kind == "judge":
            return import_judge_scores(source, study="H", judge="j", **self.options)
        return run(self.kind, source, study="H", **self.options)


SPECS = {
    "reports-scholarqa": Spec(
        "reports", DATA / "scholarqa_reports.json", DATA / "researchqa_responses.json",
        {"format": "scholarqa", "system": "s"},
    ),
    "reports-scholarqa-jsonl": Spec(
        "reports", DATA / "scholarqa_reports.jsonl", DATA / "researchqa_questions.jsonl",
        {"format": "scholarqa", "system": "s"},
    ),
    "reports-researchqa": Spec(
        "reports", DATA / "researchqa_responses.json", DATA / "scholarqa_reports.json",
        {"format": "researchqa", "system": "s"}, needs_questions=True,
    ),
    "reports-researcherbench": Spec(
        "reports", DATA / "researcherbench_responses.json", DATA / "pairwise_chosen.json",
        {"format": "researcherbench", "system": "s"},
    ),
    "questions-researchqa": Spec(
        "questions", DATA / "researchqa_questions.jsonl", DATA / "scholarqa_reports.jsonl",
        {"format": "researchqa"},
    ),
    "questions-researcherbench": Spec(
        "questions", DATA / "researcherbench_questions.json", DATA / "scholarqa_reports.json",
        {"format": "researcherbench"},
    ),
    "questions-jsonl": Spec(
        "questions", DATA / "questions.jsonl", DATA / "scholarqa_reports.jsonl",
        {"format": "jsonl"},
    ),
    "pairwise": Spec(
        "pairwise", DATA / "pairwise_chosen.json", DATA / "scholarqa_reports.json",
        {"annotator": "a", "judge": "j"},
    ),
    "judge-researchqa-coverage": Spec(
        "judge", JUDGE_DATA / "researchqa_coverage_alpha.json",
        JUDGE_DATA / "researchqa_pairwise.json",
        {"format": "researchqa-coverage", "system": "alpha"}, needs_judge_study=True,
    ),
    "judge-researchqa-pairwise": Spec(
        "judge", JUDGE_DATA / "researchqa_pairwise.json",
        JUDGE_DATA / "researchqa_coverage_alpha.json",
        {"format": "researchqa-pairwise"}, needs_judge_study=True,
    ),
    "judge-csv": Spec(
        "judge", JUDGE_DATA / "scores.csv", JUDGE_DATA / "researchqa_pairwise.json",
        {"format": "csv"}, needs_judge_study=True,
    ),
}  # fmt: skip


def prepare(spec: Spec) -> None:
    if spec.needs_questions:
        run("questions", DATA / "researchqa_questions.jsonl", study="H", format="researchqa")
    if spec.needs_judge_study:
        build_study("H")


def refused(spec: Spec, source: Path) -> list:
    """Run an import that must fail; nothing may change, and a problem names the file."""
    before = table_counts()
    with pytest.raises(ImportFailed) as info:
        spec.run(source)
    assert table_counts() == before, "a refused import changed the database"
    problems = info.value.problems
    assert problems and any(source.name in p.file for p in problems), problems
    return problems


@pytest.mark.parametrize("name", list(SPECS))
def test_truncated_and_wrong_format_files_change_nothing(name, tmp_path):
    spec = SPECS[name]
    prepare(spec)
    data = spec.fixture.read_bytes()
    # Each damaged copy keeps the fixture's file name (some formats read a setting from it).
    for damage, content in {
        "truncated": data[: len(data) // 2],
        "wrong-format": spec.other_format.read_bytes(),
        "empty": b"",
    }.items():
        path = tmp_path / damage / spec.fixture.name
        path.parent.mkdir()
        path.write_bytes(content)
        problems = refused(spec, path)
        if damage == "truncated":  # says where the file breaks off, in plain words
            assert any(p.record is not None or " at line " in p.message for p in problems)
            assert not any(" at at " in p.message for p in problems), problems

    report = spec.run(spec.fixture)  # the intact file: the refusals were the damage's
    assert report.records > 0 and sum(report.created.values()) > 0


def test_contradictory_pairwise_file_changes_nothing(tmp_path):
    """The same question and pair of systems ranked twice, once each way: refused whole."""
    records = json.loads((DATA / "pairwise_chosen.json").read_text())
    flipped = dict(records[0])
    flipped["preference_ranking_norm"] = list(reversed(records[0]["preference_ranking_norm"]))
    assert flipped["preference_ranking_norm"] != records[0]["preference_ranking_norm"]
    path = tmp_path / "pairwise_chosen.json"  # the setting is read from the file name
    path.write_text(json.dumps([*records, flipped]))
    problems = refused(SPECS["pairwise"], path)
    assert any(p.record == len(records) + 1 for p in problems), problems
