"""The report's IAA is computed on the rows of the figures beside it, or is null with a
note (found by a researcher with a token on the released ScholarQA-CS2 data):

* with ``expert_agreed`` the default report gave IAA 0.558 over all 600 pairs, beside
  figures of the subset, with no note. The subset keeps each unanimous comparison once
  (METHODS §5), so it has no comparison with two judgments, which IAA needs (§5): null,
  with a note saying so (as compat, which computes none there either);
* with a bootstrap, the IAA had no interval and no word of why: strict and half credit get
  the cluster bootstrap over questions of every other figure (METHODS §5 "Uncertainty"),
  checked here against an independent resampling of per-comparison pair counts; κ and α
  get a note saying why they have none.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from metaeval.exports import report_tables
from metaeval.pipeline import decide
from metaeval.reports import ReportOptions, build_report
from metaeval.stats.bootstrap import cluster_bootstrap

from .test_reports import tiny_frame


@pytest.fixture(scope="module")
def released(scholarqa_dir):
    from tests.metaeval.scholarqa_json import load_released

    frame = load_released(scholarqa_dir)
    return frame.take(frame.setting == frame.settings.index("assigned"))


@pytest.mark.shared_data
def test_expert_agreed_iaa_is_null_with_a_note_on_the_released_data(released):
    """All judgments: 55.8 % over 600 pairs (METHODS §6.3); the subset: null, said why."""
    every = build_report(released, ReportOptions())["iaa"]
    assert (round(every["strict"] * 100, 1), every["n_pairs"]) == (55.8, 600)
    report = build_report(released, ReportOptions(expert_agreed=True))
    iaa = report["iaa"]
    figures = ("strict", "half_credit", "cohen_kappa", "fleiss_kappa", "krippendorff_alpha")
    assert all(iaa[k] is None for k in figures) and iaa["n_pairs"] == 0
    assert all("expert-agreed subset" in iaa["notes"][k] for k in figures)
    assert any(n.startswith("IAA undefined on the expert-agreed subset") for n in report["notes"])


def test_expert_agreed_iaa_is_null_on_a_hand_example():
    """tiny_frame: two annotators, three comparisons, two unanimous (IAA 2/3 on all)."""
    assert build_report(tiny_frame(), ReportOptions())["iaa"]["strict"] == pytest.approx(2 / 3)
    iaa = build_report(tiny_frame(), ReportOptions(expert_agreed=True))["iaa"]
    assert iaa["strict"] is None and "expert-agreed subset" in iaa["notes"]["strict"]


def _pair_counts(frame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per comparison judged twice or more, by enumerating its annotator pairs: (question,
    agreeing pairs + ½ per pair with exactly one tie, agreeing pairs, pairs)."""
    decisions = decide(frame.preference)
    groups: dict[tuple, list[int]] = {}
    for i in range(len(frame)):
        key = (frame.setting[i], frame.question[i], frame.system_a[i], frame.system_b[i])
        groups.setdefault(key, []).append(int(decisions[i]))
    question, half, equal, pairs = [], [], [], []
    for key, ds in groups.items():
        if len(ds) < 2:
            continue
        both = list(combinations(ds, 2))
        question.append(key[1])
        equal.append(sum(a == b for a, b in both))
        half.append(sum(1.0 if a == b else 0.5 if 0 in (a, b) else 0.0 for a, b in both))
        pairs.append(len(both))
    return np.array(question), np.array([half, equal, pairs], dtype=float).T, np.array(pairs)


@pytest.mark.shared_data
def test_bootstrap_gives_the_iaa_an_interval_over_questions(released):
    options = ReportOptions(bootstrap=200, seed=7)
    report = build_report(released, options)
    iaa = report["iaa"]
    question, sums, _ = _pair_counts(released)
    # every question of the setting has a comparison judged twice: the same clusters as
    # the report's (the questions its rows have), so the same draws for the same seed
    assert np.unique(question).size == np.unique(released.question).size

    def statistic(rows):
        t = sums[rows].sum(axis=0)
        return np.array([t[1] / t[2], t[0] / t[2]])

    expected = cluster_bootstrap(statistic, question, n_rounds=200, seed=7)
    assert iaa["strict"] == pytest.approx(expected.estimate[0])
    assert iaa["ci"]["strict"] == pytest.approx([expected.low[0], expected.high[0]])
    assert iaa["ci"]["half_credit"] == pytest.approx([expected.low[1], expected.high[1]])
    assert iaa["ci"]["strict"][0] < iaa["strict"] < iaa["ci"]["strict"][1]
    assert (iaa["ci"]["rounds"], iaa["ci"]["level"]) == (200, 0.95)
    assert "κ" in iaa["ci"]["note"] and "no interval" in iaa["ci"]["note"]
    assert any("no interval" in n for n in report["notes"] if n.startswith("IAA"))
    # the iaa table (CSV / XLSX / JSON downloads, ?tables=true) carries them too
    [row], columns = report_tables(report)["iaa"]
    assert [row[f"ci_strict_{e}"] for e in ("low", "high")] == iaa["ci"]["strict"]
    assert "ci_half_credit_high" in columns and "κ" in row["note"]


def test_one_question_gives_the_iaa_no_interval_and_says_why():
    """tiny_frame has one question: fewer than two clusters, no interval (METHODS §7)."""
    iaa = build_report(tiny_frame(), ReportOptions(bootstrap=200))["iaa"]
    assert iaa["strict"] == pytest.approx(2 / 3)
    assert iaa["ci"]["strict"] == [None, None]
    assert "cluster" in iaa["ci"]["note"] or "question" in iaa["ci"]["note"]
