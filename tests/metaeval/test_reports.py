"""metaeval.reports: the report dict, default mode on a hand-worked example, compat mode on
the released ScholarQA-CS2 data (paper figures)."""

import math

import numpy as np
import pytest

from metaeval.frame import PairFrame
from metaeval.reports import ReportOptions, build_report, expert_agreed_rows


def tiny_frame() -> PairFrame:
    """One question, systems A < B < C, two annotators.

    x ranks A gold, B silver, C bronze  -> (A,B) +1, (A,C) +1, (B,C) +1
    y ranks A gold, B gold,   C bronze  -> (A,B)  0, (A,C) +1, (B,C) +1
    judge overall: A 0.8, B 0.7, C 0.2  -> |diffs| AB 0.1, AC 0.6, BC 0.5
    """
    pairs = [(0, 1), (0, 2), (1, 2)]
    medals = {0: {0: 1.0, 1: 0.5, 2: 0.0}, 1: {0: 1.0, 1: 1.0, 2: 0.0}}
    judge = {0: 0.8, 1: 0.7, 2: 0.2}
    rows = [(ann, a, b) for ann in (0, 1) for a, b in pairs]
    n = len(rows)
    return PairFrame(
        question=np.zeros(n, dtype=np.int64),
        system_a=np.array([a for _, a, _ in rows]),
        system_b=np.array([b for _, _, b in rows]),
        annotator=np.array([ann for ann, _, _ in rows]),
        setting=np.zeros(n, dtype=np.int64),
        split=np.zeros(n, dtype=np.int64),
        preference=np.array([[medals[ann][a], medals[ann][b]] for ann, a, b in rows]),
        human={},
        judge={"overall": np.array([[judge[a], judge[b]] for _, a, b in rows])},
        questions=["q1"],
        systems=["A", "B", "C"],
        annotators=["x", "y"],
        settings=["assigned"],
        splits=["dev"],
    )


def test_default_mode_hand_example():
    report = build_report(tiny_frame(), ReportOptions())
    overall = report["preference"]["overall"]
    # human tie rate 1/6; candidate thresholds {0, .1, .5, .6} give judge tie rates
    # {0, 2/6, 4/6, 1}: 0 and .1 are equally close, the smaller wins -> t = 0.
    assert overall["threshold"] == 0.0
    assert overall["human_tie_rate"] == pytest.approx(1 / 6)
    assert overall["n"] == 6
    # judge says +1 everywhere; only y's tie on (A,B) disagrees
    assert overall["agreement"] == pytest.approx(5 / 6)
    # C=5, D=0, T_h=1, T_m=0: 5 / sqrt((6-1) * 6)
    assert overall["tau_b"] == pytest.approx(5 / math.sqrt(30))
    # IAA: (A,B) +1 vs 0, (A,C) and (B,C) agree -> strict 2/3, half credit 2.5/3
    assert report["iaa"]["strict"] == pytest.approx(2 / 3)
    assert report["iaa"]["half_credit"] == pytest.approx(2.5 / 3)
    assert report["iaa"]["n"] == 3
    # win rates: human A (1+1+.5+1)/4, B (0+1+.5+1)/4, C 0; judge A 1, B .5, C 0
    rates = {s["system"]: s for s in report["system"]["systems"]}
    assert rates["A"]["human_win_rate"] == pytest.approx(0.875)
    assert rates["B"]["human_win_rate"] == pytest.approx(0.625)
    assert rates["B"]["judge_win_rate"] == pytest.approx(0.5)
    assert report["system"]["tau_b"] == pytest.approx(1.0)
    assert report["metric_wise"] == {}


def test_tie_strategies_change_the_figures_as_defined():
    frame = tiny_frame()
    partial = build_report(frame, ReportOptions(ties="partial"))["preference"]["overall"]
    assert partial["agreement"] == pytest.approx(5.5 / 6)  # y's tie vs judge +1: half credit
    exclude = build_report(frame, ReportOptions(ties="exclude"))["preference"]["overall"]
    assert exclude["n"] == 5 and exclude["agreement"] == pytest.approx(1.0)


def test_expert_agreed_subset_counts_each_agreed_comparison_once():
    frame = tiny_frame()
    human = np.sign(frame.preference[:, 0] - frame.preference[:, 1]).astype(int)
    rows = expert_agreed_rows(frame, human)
    assert len(rows) == 2  # (A,C) and (B,C)
    report = build_report(frame, ReportOptions(expert_agreed=True))
    assert report["preference"]["overall"]["n"] == 2
    assert report["preference"]["overall"]["agreement"] == pytest.approx(1.0)
    assert any("Expert-agreed" in note for note in report["notes"])


def test_single_annotator_gives_no_iaa():
    frame = tiny_frame()
    one = frame.take(frame.annotator == 0)
    report = build_report(one, ReportOptions())
    assert report["iaa"]["strict"] is None and report["iaa"]["n"] == 0
    assert any("No IAA" in note for note in report["notes"])


def test_swapping_every_pair_changes_nothing():
    frame = tiny_frame()
    swapped = frame.take(np.arange(len(frame)))
    swapped.system_a, swapped.system_b = frame.system_b.copy(), frame.system_a.copy()
    swapped.preference = frame.preference[:, ::-1].copy()
    swapped.judge = {m: v[:, ::-1].copy() for m, v in frame.judge.items()}
    a, b = build_report(frame, ReportOptions()), build_report(swapped, ReportOptions())
    assert a["preference"] == b["preference"]
    assert a["iaa"] == b["iaa"]


@pytest.mark.parametrize(
    "bad, field",
    [
        ({"ties": "sometimes"}, "ties"),
        ({"calibration": "grid"}, "calibration"),
        ({"compat": "x"}, "compat"),
        ({"bootstrap": -1}, "bootstrap"),
    ],  # fmt: skip
)
def test_bad_options_name_the_field(bad, field):
    with pytest.raises(ValueError, match=field):
        ReportOptions(**bad)
    with pytest.raises(ValueError, match="unknown option"):
        ReportOptions.from_dict({"tie": "threshold"})


@pytest.mark.shared_data
def test_compat_report_shows_the_published_figures(scholarqa_dir):
    from tests.metaeval.scholarqa_json import load_released

    frame = load_released(scholarqa_dir)
    assigned = frame.take(frame.setting == frame.settings.index("assigned"))
    report = build_report(assigned, ReportOptions(compat="scholarqa-cs2"))
    # seed 003 Table 3 (overall 51.6 %), Table 2 (system tau 0.40), IAA 55.0 %
    assert round(report["preference"]["overall"]["agreement"] * 100, 1) == 51.6
    assert round(report["system"]["tau_b"], 2) == 0.40
    assert round(report["iaa"]["strict"] * 100, 1) == 55.0
    # notes: each quirk that changed a figure, with the default figure beside it
    assert report["notes"]
    assert {"quirk", "figure", "compat", "default"} <= set(report["notes"][0])
    assert any(n["quirk"] == "iaa_per_question" for n in report["notes"])


def test_bootstrap_adds_intervals_that_contain_the_estimate():
    rng = np.random.default_rng(3)
    base = tiny_frame()
    # 40 questions: the tiny frame repeated with noisy judge scores
    frames = []
    for q in range(40):
        f = base.take(np.arange(len(base)))
        f.question = np.full(len(f), q)
        f.judge = {
            "overall": base.judge["overall"] + rng.normal(0, 0.2, base.judge["overall"].shape)
        }
        frames.append(f)
    frame = base.take(np.arange(len(base)))
    for name in ("question", "system_a", "system_b", "annotator", "setting", "split", "preference"):
        setattr(frame, name, np.concatenate([getattr(f, name) for f in frames]))
    frame.judge = {"overall": np.concatenate([f.judge["overall"] for f in frames])}
    frame.questions = [f"q{q}" for q in range(40)]
    report = build_report(frame, ReportOptions(bootstrap=300, seed=1))
    overall = report["preference"]["overall"]
    lo, hi = overall["ci"]["agreement"]
    assert lo <= overall["agreement"] <= hi and lo < hi
    lo, hi = overall["ci"]["tau_b"]
    assert lo <= overall["tau_b"] <= hi
    lo, hi = report["system"]["ci"]["tau_b"]
    assert -1 <= lo <= hi <= 1
    for system in report["system"]["systems"]:  # every win rate has its own interval
        for side in ("human_win_rate", "judge_win_rate"):
            lo, hi = system["ci"][side]
            assert 0 <= lo <= system[side] <= hi <= 1
    # same seed, same intervals; another seed, other intervals
    again = build_report(frame, ReportOptions(bootstrap=300, seed=1))
    assert again["preference"]["overall"]["ci"] == overall["ci"]
