"""A judge-score import lists the verdicts it changes, as report and rubric imports list
theirs (``ImportReport.changes``): a dry run re-importing a judge's file with one score
changed said "updated: 1 JudgeScore" and not which judge's score of which report, nor from
what to what. Now it names that one score, old -> new, in the report the command prints,
the API answers and the import page shows, and writes nothing.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.importers.base import Change
from annotation.models import Study
from judges.importers import import_judge_scores
from judges.models import JudgeCoverage, JudgeRelevance, JudgeScore
from tests.builders.judged import build_study

pytestmark = pytest.mark.django_db
DATA = Path(__file__).parent / "data"
SCORES = (DATA / "scores.csv").read_text()
CHANGED = SCORES.replace("0.25", "0.5")  # one score: q2 / gamma's answer_recall

SCORE_CHANGE = Change(
    "JudgeScore", "judge 'j', question 'q2', system 'gamma', metric 'answer_recall'",
    ("value",), detail="value 0.25 -> 0.5",
)  # fmt: skip


def stored_scores() -> list[tuple]:
    return sorted(JudgeScore.objects.values_list("report_id", "metric", "value", "rationale"))


@pytest.fixture
def imported():
    """The csv judge file imported once into study "chg"."""
    build_study("chg")
    import_judge_scores(SCORES.encode(), study="chg", judge="j", format="csv")
    return stored_scores()


def test_a_dry_run_lists_exactly_the_changed_score_and_writes_nothing(imported):
    rep = import_judge_scores(CHANGED.encode(), study="chg", judge="j", format="csv",
                              dry_run=True)  # fmt: skip
    assert rep.changes == [SCORE_CHANGE]
    assert rep.updated == {"JudgeScore": 1} and rep.unchanged["JudgeScore"] == 3
    assert stored_scores() == imported
    assert f"1 record(s) would change:\n- {SCORE_CHANGE}" in rep.summary()


def test_an_identical_reimport_lists_no_change(imported):
    rep = import_judge_scores(SCORES.encode(), study="chg", judge="j", format="csv",
                              dry_run=True)  # fmt: skip
    assert rep.changes == []


def test_the_command_prints_the_change(imported):
    out = io.StringIO()
    path = DATA.parent / "changed_scores.csv"
    path.write_text(CHANGED)
    try:
        call_command("import_judge_scores", str(path), study="chg", judge="j", format="csv",
                     dry_run=True, stdout=out)  # fmt: skip
    finally:
        path.unlink()
    assert (
        "- JudgeScore judge 'j', question 'q2', system 'gamma', metric 'answer_recall': "
        "value (value 0.25 -> 0.5)"
    ) in out.getvalue()
    assert stored_scores() == imported


def test_the_api_answers_the_change(imported, admin_user):
    api = APIClient()
    api.force_login(admin_user)
    upload = SimpleUploadedFile("scores.csv", CHANGED.encode(), content_type="text/csv")
    answer = api.post(reverse("study-import", args=[Study.objects.get(name="chg").pk]),
                      {"kind": "judge_scores", "format": "csv", "dry_run": "true",
                       "file": upload, "options": json.dumps({"judge": "j"})},
                      format="multipart")  # fmt: skip
    assert answer.status_code == 200, answer.content
    assert answer.json()["changes"] == [{
        "table": "JudgeScore", "id": SCORE_CHANGE.id, "fields": ["value"], "file": None,
        "record": None, "detail": "value 0.25 -> 0.5", "action": "updated",
    }]  # fmt: skip
    assert stored_scores() == imported


def test_a_coverage_reimport_names_the_changed_verdict():
    build_study("cov")
    options = {"study": "cov", "judge": "g", "format": "researchqa-coverage", "system": "alpha"}
    data = json.loads((DATA / "researchqa_coverage_alpha.json").read_text())
    import_judge_scores(json.dumps(data).encode(), **options)
    before = sorted(JudgeCoverage.objects.values_list("report_id", "item_id", "label"))
    data["q1"][0]["score"] = "Completely"  # was "Moderately"
    rep = import_judge_scores(json.dumps(data).encode(), dry_run=True, **options)
    [change] = rep.changes
    assert change.table == "JudgeCoverage" and "label" in change.fields
    assert change.id.startswith("judge 'g', question 'q1', system 'alpha', ")
    assert change.id.endswith("rubric item at position 1")
    assert "label " in change.detail
    assert sorted(JudgeCoverage.objects.values_list("report_id", "item_id", "label")) == before


def test_a_relevance_reimport_names_the_changed_paragraph():
    study = build_study("rel", questions=1, systems=("alpha",), paragraphs=2)
    lines = [{"question_id": "q1", "system": "alpha", "paragraph": n, "relevant": True}
             for n in (1, 2)]  # fmt: skip
    text = "\n".join(json.dumps(line) for line in lines) + "\n"
    import_judge_scores(text.encode(), study=study.name, judge="r", format="relevance")
    lines[1]["relevant"] = False
    text = "\n".join(json.dumps(line) for line in lines) + "\n"
    rep = import_judge_scores(text.encode(), study=study.name, judge="r", format="relevance",
                              dry_run=True)  # fmt: skip
    assert rep.changes == [Change(
        "JudgeRelevance", "judge 'r', question 'q1', system 'alpha', paragraph 2",
        ("relevant",), detail="relevant True -> False",
    )]  # fmt: skip
    assert JudgeRelevance.objects.filter(relevant=True).count() == 2
