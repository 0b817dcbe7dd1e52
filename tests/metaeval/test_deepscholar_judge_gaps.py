"""A DeepScholar judge that left units unlabelled: the scoreboard's nugget coverage keeps
the question's nuggets as its denominator (DeepScholar's ``strict_all_score``: a nugget the
nuggetizer failed to assign counts, never as support), with a note naming how many nuggets
had no label; Table 3's ``unmatched`` counts, per judge, the expert labels that judge did
not label, whatever the other judges labelled. Judge labels come in through the
``judge_scores`` / ``deepscholar-labels`` import; figures are read through the analysis
command and the report's table downloads."""

import json
from pathlib import Path

import pytest
from django.core.management import call_command

from annotation.importers import run
from annotation.models import DeepScholarLabel, Nugget, Report
from tests.builders.judged import build_study

from .section_checks import command, csv_rows

pytestmark = pytest.mark.django_db

DS = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "deepscholar"
PAPER = "2506.02634v1"


def _labels(tmp_path, name: str, records: list[dict]) -> Path:
    path = tmp_path / f"{name}.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records))
    return path


def _support(system: str, question: str, labels: dict[str, str]) -> list[dict]:
    return [{"kind": "nugget_support", "question_id": question, "system": system, "unit": unit,
             "label": label} for unit, label in labels.items()]  # fmt: skip


def _board_rows(study, judge: str) -> dict:
    [board] = [b for b in command(study, "scoreboard")["boards"]
               if b["benchmark"] == "deepscholar" and b["judge"] == judge]  # fmt: skip
    return {r["system"]: r["figures"] for r in board["rows"]}


@pytest.mark.shared_data
def test_released_question_nugget_coverage_counts_the_nuggets_the_judge_skipped(
    tmp_path, client, researcher_user
):
    """The tester's case: ``sparse-judge`` labels 4 of the 12 nuggets of 2506.02634v1 for
    OpenScholar (2 supported, 2 not): coverage 2/12, not 2/4, and the note says 8 of 12."""
    if not DS.is_dir():
        pytest.skip("../shared/data/deepscholar not available")
    call_command("import_reports", str(DS / "baselines_results" / "openscholar"), "--study",
                 "DS", "--format", "deepscholar", "--papers",
                 str(DS / "test_dataset" / "related_works_combined.csv"))  # fmt: skip
    res = DS / "dataset" / "gt_nuggets_outputs" / "1" / "res.json"
    released = json.loads(res.read_text())
    assert released["qid"] == PAPER
    call_command("import_deepscholar", str(res), "--study", "DS", "--format", "nuggetizer")
    n_nuggets = len(released["nuggets"])
    keys = list(Nugget.objects.filter(question__external_id=PAPER).values_list("key", flat=True))
    assert len(keys) == n_nuggets
    labels = dict(zip(keys[:4], ["supported", "supported", "not_supported", "not_supported"],
                      strict=True))  # fmt: skip
    run("judge_scores", _labels(tmp_path, "sparse", _support("openscholar", PAPER, labels)),
        study="DS", format="deepscholar-labels", judge="sparse-judge")  # fmt: skip
    study = Report.objects.filter(question__external_id=PAPER).first().question.study
    fig = _board_rows(study, "sparse-judge")["openscholar"]["nugget_coverage"]
    assert fig["value"] == pytest.approx(2 / n_nuggets)
    assert f"{n_nuggets - 4} of the {n_nuggets} nuggets" in fig["note"]
    study.researchers.add(researcher_user)
    client.force_login(researcher_user)
    [row] = [r for r in csv_rows(client, study, "scoreboard")
             if r["judge"] == "sparse-judge" and r["metric"] == "nugget_coverage"]  # fmt: skip
    assert float(row["value"]) == pytest.approx(2 / n_nuggets)
    assert f"{n_nuggets - 4} of the {n_nuggets} nuggets" in row["note"]


def _study_with_nuggets(name: str, nuggets: int = 5):
    study = build_study(name, questions=2, systems=("alpha", "beta"), items=1, paragraphs=1)
    for q in study.questions.all():
        for i in range(1, nuggets + 1):
            Nugget.objects.create(question=q, key=f"n{i}", position=i, text=f"Fact {i}")
    return study


def test_a_judge_that_skipped_nuggets_scores_them_as_not_supported(tmp_path):
    """Per report, supported / the question's 5 nuggets; the mean over a system's reports.
    A complete judge beside it keeps its own figure and gets no note."""
    study = _study_with_nuggets("ds-gaps")
    every = {f"n{i}": "supported" if i <= 3 else "not_supported" for i in range(1, 6)}
    records = (_support("alpha", "q1", {"n1": "supported", "n2": "partially_supported"})
               + _support("alpha", "q2", {"n1": "supported", "n2": "supported",
                                          "n3": "supported"})
               + _support("beta", "q1", every))  # fmt: skip
    run("judge_scores", _labels(tmp_path, "gaps", records), study=study.name,
        format="deepscholar-labels", judge="sparse-judge")  # fmt: skip
    run("judge_scores", _labels(tmp_path, "full", _support("alpha", "q1", every)),
        study=study.name, format="deepscholar-labels", judge="full-judge")  # fmt: skip
    rows = _board_rows(study, "sparse-judge")
    # alpha: q1 1/5 (partial is not support), q2 3/5 -> 0.4; 3 + 2 of its 10 nuggets unlabelled
    assert rows["alpha"]["nugget_coverage"]["value"] == pytest.approx((1 / 5 + 3 / 5) / 2)
    assert "5 of the 10 nuggets" in rows["alpha"]["nugget_coverage"]["note"]
    assert rows["beta"]["nugget_coverage"]["value"] == pytest.approx(3 / 5)
    assert "have no label" not in (rows["beta"]["nugget_coverage"]["note"] or "")
    full = _board_rows(study, "full-judge")["alpha"]["nugget_coverage"]
    assert full["value"] == pytest.approx(3 / 5)
    assert "have no label" not in (full["note"] or "")


def test_unmatched_counts_each_judges_own_missing_labels(tmp_path, client, researcher_user,
                                                         annotator_user):  # fmt: skip
    """8 expert organization labels (2 questions × 4 systems). gpt-4.1 labels no
    organization (only nugget importance): 8 unmatched, before and after test-judge, which
    labels all 8, is imported; a partial judge labelling 2 of them: 6 unmatched."""
    study = _study_with_nuggets("ds-unmatched")
    study.researchers.add(researcher_user)
    for s in ("gamma", "delta"):
        study.systems.create(name=s)
    for q in study.questions.all():
        for s in ("gamma", "delta"):
            Report.objects.create(question=q, system=study.systems.get(name=s))
    reports = list(Report.objects.filter(question__study=study).select_related(
        "question", "system").order_by("pk"))  # fmt: skip
    assert len(reports) == 8
    for r in reports:
        DeepScholarLabel.objects.create(study=study, annotator=annotator_user.annotator,
                                        question=r.question, kind="organization", report=r,
                                        unit="", label="win")  # fmt: skip
    org = [{"kind": "organization", "question_id": r.question.external_id,
            "system": r.system.name, "unit": "", "label": "win"} for r in reports]  # fmt: skip
    importance = [{"kind": "nugget_importance", "question_id": "q1", "unit": "n1",
                   "label": "vital"}]  # fmt: skip

    def load(judge, records):
        run("judge_scores", _labels(tmp_path, judge, records), study=study.name,
            format="deepscholar-labels", judge=judge)  # fmt: skip

    def organization():
        got = command(study, "deepscholar_agreement")
        return {j["judge"]: next(k for k in j["kinds"] if k["kind"] == "organization")
                for j in got["judges"]}  # fmt: skip

    load("gpt-4.1", importance)
    alone = organization()["gpt-4.1"]
    assert (alone["human_labels"], alone["n_units"], alone["unmatched"]) == (8, 0, 8)
    load("test-judge", org)
    load("partial-judge", org[:2])
    rows = organization()
    got = {j: (k["human_labels"], k["n_units"], k["unmatched"]) for j, k in rows.items()}
    assert got == {"gpt-4.1": (8, 0, 8), "test-judge": (8, 8, 0), "partial-judge": (8, 2, 6)}
    client.force_login(researcher_user)
    table = {r["judge"]: (r["n_units"], r["unmatched"])
             for r in csv_rows(client, study, "deepscholar_agreement")
             if r["kind"] == "organization"}  # fmt: skip
    assert table == {"gpt-4.1": ("0", "8"), "test-judge": ("8", "0"), "partial-judge": ("2", "6")}
