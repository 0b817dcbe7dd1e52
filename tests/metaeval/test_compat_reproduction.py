"""The ScholarQA-CS2 compatibility mode reproduces the published figures of seed 003.

Why: Concord's default definitions (METHODS §5) differ from the authors' released script
(METHODS §6); ``metaeval.compat`` copies the script's quirks so that a Concord report on the
released data shows the paper's numbers, and says what differs. These tests pin every
figure of Tables 2, 3, 4, 6 and 7 and footnote 7, as printed: percentages to one decimal,
τ to two. The paper rounds half up (Table 3 prints 47.25 % as 47.3 % and 42.25 % as 42.3 %,
both exact binary values), so figures are rounded half up, not with Python's half-even
``round``.

Data: ``../shared/data/scholarqa-cs2/`` beside the checkout (never copied into the repo).
Missing data skip the tests, except under ``CI=true`` where they fail.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import replace
from decimal import ROUND_HALF_UP, Decimal

import numpy as np
import pytest

from metaeval import compat
from metaeval.compat import COMPAT, DEFAULT, ROUND_GRID
from tests.metaeval.scholarqa_json import (
    AGREEMENT_ONLY_FILES,
    RELEASED_FILES,
    UNATTRIBUTED,
    data_dir,
    frame_from_records,
    read_records,
)

shared = pytest.mark.shared_data

BEST_2 = ("sqa", "qwen-sqa")  # Table 6: ScholarQA-CS2, ScholarQA-CS2-SFT
BEST_3 = ("sqa", "qwen-sqa", "openai-dr")
DISTINCT_2 = ("sqa", "perplexity")  # Table 7: high, low
DISTINCT_3 = ("sqa", "openai-dr", "perplexity")  # high, mid, low

#: The report whose judge citation scores are null in the released test
#: ``agreement_only`` file but 0.0 in the ann1/ann2 files (its overall score differs too).
NULL_CITATION_QUESTIONS = (
    "Find papers on how weight evolve through training in a transformer",
    "I need a detailed introduction about the principle of Topological Autoencoder.",
)


def pct(x: float) -> float:
    """A share as the paper prints it: percent, one decimal, half up."""
    return float(Decimal(repr(x * 100)).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def tau2(x: float) -> float:
    """A τ as the paper prints it: two decimals, half up."""
    return float(Decimal(repr(x)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


def _records(name: str) -> list[dict]:
    return read_records(data_dir() / "annotation" / name)


@pytest.fixture(scope="module")
def records():
    """Released records by (annotator, setting, split); skip (or fail on CI) if absent."""
    annotation = data_dir() / "annotation"
    if not all((annotation / name).is_file() for name in RELEASED_FILES.values()):
        message = f"ScholarQA-CS2 data missing at {annotation.resolve()}"
        if os.environ.get("CI") == "true":
            pytest.fail(f"{message}; CI must provide ../shared/data beside the checkout")
        pytest.skip(message)
    return {key: _records(name) for key, name in RELEASED_FILES.items()}


@pytest.fixture(scope="module")
def frame(records):
    return frame_from_records(records)


# --------------------------------------------------------------------------- loader


def test_loader_puts_systems_in_canonical_order_and_swaps_every_column():
    """METHODS §5 "Comparison": A < B by name; a reversed record swaps all a/b arrays."""
    record = {
        "question": "q",
        "models": ["storm", "elicit"],
        "preference_ranking_norm": [1.0, 0.0],
        "model_overall": [0.9, 0.2],
        "model_answer_precision": [0.8, 0.1],
        "human_citation_recall": [2, 1],
    }
    f = frame_from_records({("ann1", "assigned", "dev"): [record]})
    assert f.systems == ["elicit", "storm"]
    assert (f.system_a[0], f.system_b[0]) == (0, 1)
    assert f.preference[0].tolist() == [0.0, 1.0]
    assert f.judge["overall"][0].tolist() == [0.2, 0.9]
    assert f.judge["answer_relevance"][0].tolist() == [0.1, 0.8]  # renamed (METHODS §3)
    assert f.human["citation_recall"][0].tolist() == [1.0, 2.0]
    assert np.isnan(f.human["overall"][0]).all()  # absent field -> NaN
    assert np.isnan(f.judge["citation_precision"][0]).all()


def test_loader_keeps_null_judge_scores_as_nan_and_file_order():
    """A ``null`` judge score is "not collected"; row order is the order read (§6.3)."""
    records = [
        {"question": "q1", "models": ["a", "b"], "preference_ranking_norm": [1, 1],
         "model_citation_precision": [None, 0.5]},
        {"question": "q0", "models": ["b", "c"], "preference_ranking_norm": [0, 1]},
    ]  # fmt: skip
    f = frame_from_records({(UNATTRIBUTED, "near_expert", "test"): records})
    assert f.questions == ["q1", "q0"]
    assert np.isnan(f.judge["citation_precision"][0, 0])
    assert f.judge["citation_precision"][0, 1] == 0.5


# --------------------------------------------------------------------------- Table 2


@shared
@pytest.mark.parametrize(
    ("subset", "exclude", "printed"),
    [("all", (), 0.40), ("expert_agreed", (), 0.60),
     ("all", ("elicit",), 0.70), ("expert_agreed", ("elicit",), 1.00)],
)  # fmt: skip
def test_table2_system_tau(frame, subset, exclude, printed):
    """Table 2 system-level τ-b: per-slot τ averaged (§6.1), exact judge wins (§6.5)."""
    result = compat.compat_system_tau(frame, subset=subset, exclude_systems=exclude)
    assert tau2(result.tau_b) == printed


@shared
@pytest.mark.parametrize(("subset", "printed"), [("all", 0.25), ("expert_agreed", 0.36)])
def test_table2_instance_tau(frame, subset, printed):
    """Table 2 instance-level τ-b: preference vs judge overall, thresholded (§6.2)."""
    table = compat.compat_preference_table(frame, subset=subset)
    assert tau2(table.row("overall").tau_b) == printed


# --------------------------------------------------------------------------- Table 3


@shared
@pytest.mark.parametrize(
    ("metric", "printed"),
    [("overall", 51.6), ("answer_relevance", 34.5), ("answer_recall", 47.3),
     ("citation_precision", 42.3), ("citation_recall", 41.9)],
)  # fmt: skip
def test_table3_all_data(frame, metric, printed):
    """Table 3 "All Data": preference vs judge metric, slot-averaged agreement."""
    assert pct(compat.compat_preference_table(frame).row(metric).agreement) == printed


@pytest.fixture(scope="module")
def released_agreed(records):
    """The authors' agreement-only records as a frame of expert-agreed rows (what the
    script reads for ``--human_agreed``, and compat mode when the study has them)."""
    return frame_from_records(
        {
            (compat.AGREED_ANNOTATOR, "assigned", split): _records(name)
            for split, name in AGREEMENT_ONLY_FILES.items()
        }
    )


@shared
@pytest.mark.parametrize(
    ("metric", "printed"),
    [("overall", 62.4), ("answer_relevance", 35.2), ("answer_recall", 54.3),
     ("citation_precision", 59.0), ("citation_recall", 58.4)],
)  # fmt: skip
def test_table3_expert_agreed(released_agreed, metric, printed):
    """Table 3 "Expert-Agreed": the released records, every threshold 0.01 (§6.2)."""
    assert compat.is_released_agreed(released_agreed, "assigned")
    table = compat.compat_preference_table(released_agreed, subset="expert_agreed")
    assert pct(table.row(metric).agreement) == printed
    assert table.row(metric).n == (335 if metric in ("overall", "answer_relevance",
                                                     "answer_recall") else 332)  # fmt: skip


@shared
def test_table3_expert_agreed_derived_differs_on_citations(frame):
    """The subset derived from ann1/ann2 has 0.0 where the released records have null:
    335 citation pairs, 59.1 / 58.5 (issue 13), the other three figures unchanged."""
    table = compat.compat_preference_table(frame, subset="expert_agreed")
    assert pct(table.row("citation_precision").agreement) == 59.1
    assert pct(table.row("citation_recall").agreement) == 58.5
    assert table.row("citation_precision").n == 335
    assert pct(table.row("overall").agreement) == 62.4


@shared
def test_table3_expert_agreed_with_released_judge_scores(records):
    """With the agreement_only files' judge scores, Table 3's 59.0 / 58.4 reproduce.

    This pins the cause of the two expected failures above: only the judge scores of the
    3 records with null citation scores differ between the released files.
    """
    released = {
        (r["question"], tuple(r["models"])): r
        for name in AGREEMENT_ONLY_FILES.values()
        for r in _records(name)
    }
    patched = {}
    for key, recs in records.items():
        out = []
        for r in recs:
            agreed = released.get((r["question"], tuple(r["models"])))
            if agreed is not None and None in agreed["model_citation_precision"]:
                r = {**r, **{k: v for k, v in agreed.items() if k.startswith("model_")}}
            out.append(r)
        patched[key] = out
    table = compat.compat_preference_table(frame_from_records(patched), subset="expert_agreed")
    assert pct(table.row("citation_precision").agreement) == 59.0
    assert pct(table.row("citation_recall").agreement) == 58.4
    assert table.row("citation_precision").n == 332


@shared
def test_derived_expert_agreed_subset_matches_released_files(frame):
    """The derived subset (METHODS §5) is the authors' agreement_only files (157 + 178).

    Same comparisons in the same order, human values the mean of both annotators, judge
    scores equal except the 3 records whose citation scores the released file has null.
    """
    agreed = compat.expert_agreed(frame, "assigned")
    for split, name in AGREEMENT_ONLY_FILES.items():
        rows = np.flatnonzero(agreed.split == agreed.splits.index(split))
        released = frame_from_records({("x", "assigned", split): _records(name)})
        assert len(rows) == len(released) == {"dev": 157, "test": 178}[split]
        names = lambda f, i: (f.questions[f.question[i]], f.systems[f.system_a[i]],  # noqa: E731
                              f.systems[f.system_b[i]])  # fmt: skip
        assert [names(agreed, i) for i in rows] == [
            names(released, i) for i in range(len(released))
        ]
        np.testing.assert_allclose(agreed.preference[rows], released.preference, atol=1e-9)
        for metric, values in released.human.items():
            np.testing.assert_allclose(agreed.human[metric][rows], values, atol=1e-9)
        differing = set()
        for metric, values in released.judge.items():
            mine = agreed.judge[metric][rows]
            same = (mine == values) | (np.isnan(mine) & np.isnan(values))
            differing.update(np.flatnonzero(~same.all(axis=1)).tolist())
        questions = sorted({released.questions[released.question[i]] for i in differing})
        assert len(differing) == (3 if split == "test" else 0)
        assert all(q.startswith(NULL_CITATION_QUESTIONS) for q in questions)


# --------------------------------------------------------------------------- Table 4

TABLE4 = {  # (setting, signal): {metric: (agreement %, τ-b)}
    ("near_expert", "preference"): {
        "overall": (65.0, 0.50), "answer_relevance": (31.7, 0.00),
        "answer_recall": (25.0, 0.00), "citation_precision": (53.3, 0.38),
        "citation_recall": (43.3, 0.31)},
    ("near_expert", "metric"): {
        "overall": (66.7, 0.42), "answer_relevance": (43.3, 0.26),
        "answer_recall": (58.3, 0.49), "citation_precision": (50.0, 0.32),
        "citation_recall": (63.3, 0.59)},
    ("deep_expert", "preference"): {
        "overall": (57.3, 0.25), "answer_relevance": (22.7, -0.02),
        "answer_recall": (25.3, 0.09), "citation_precision": (49.3, 0.22),
        "citation_recall": (49.3, 0.29)},
    ("deep_expert", "metric"): {
        "overall": (58.7, 0.33), "answer_relevance": (54.7, 0.23),
        "answer_recall": (60.0, 0.21), "citation_precision": (50.7, 0.27),
        "citation_recall": (53.3, 0.43)},
}  # fmt: skip

#: Where the paper and the released script differ, compat copies the script (METHODS
#: §6.2 stands, issue 13): its answer-recall threshold is numpy.arange's
#: 0.15000000000000002, which ties the deep-expert pair 0.975 vs 0.825; the paper's
#: figures need t = 0.15 exactly. Values: the script's output (released-script-output/
#: README.md), the paper's beside them in the report's notes.
SCRIPT_NOT_PAPER = {
    ("deep_expert", "preference", "answer_recall", "tau_b"): (0.11, 0.09),
    ("deep_expert", "metric", "answer_recall", "agreement"): (61.3, 60.0),
}


def _table4_cases():
    for (setting, signal), rows in TABLE4.items():
        for metric, (agree, tau) in rows.items():
            for figure, printed in (("agreement", agree), ("tau_b", tau)):
                script, paper = SCRIPT_NOT_PAPER.get((setting, signal, metric, figure),
                                                     (printed, printed))  # fmt: skip
                assert paper == printed
                yield pytest.param(
                    setting, signal, metric, figure, script,
                    id=f"{setting}-{signal}-{metric}-{figure}",
                )  # fmt: skip


def _table4_figure(frame, setting, signal, metric, figure, mode=COMPAT):
    if signal == "preference":
        table = compat.compat_preference_table(frame, setting, mode=mode)
    else:
        table = compat.compat_metric_wise_table(frame, setting, mode=mode)
    value = getattr(table.row(metric), figure)
    return pct(value) if figure == "agreement" else tau2(value)


@shared
@pytest.mark.parametrize(
    ("setting", "signal", "metric", "figure", "printed"), list(_table4_cases())
)
def test_table4(frame, setting, signal, metric, figure, printed):
    """Table 4 as the script prints it: thresholds fitted once on near + deep together,
    metric-wise target (§6.2); two figures are the script's, not the paper's."""
    assert _table4_figure(frame, setting, signal, metric, figure) == printed


@shared
def test_table4_deep_answer_recall_round_grid(frame):
    """With the grid rounded to 0.01 … 0.15, every Table 4 figure reproduces.

    Documents the two script-vs-paper differences above: the paper used t = 0.15.
    """
    mode = replace(COMPAT, grid=tuple(ROUND_GRID.tolist()))
    for (setting, signal), rows in TABLE4.items():
        for metric, (agree, tau) in rows.items():
            assert _table4_figure(frame, setting, signal, metric, "agreement", mode) == agree
            assert _table4_figure(frame, setting, signal, metric, "tau_b", mode) == tau


# --------------------------------------------------------------------------- IAA, Tables 6-7


@shared
def test_iaa_footnote7(frame):
    """IAA 55.0 % strict, 82.9 % half credit (Table 2, footnote 7; METHODS §6.3)."""
    iaa = compat.compat_iaa(frame)
    assert (pct(iaa.strict), pct(iaa.half_credit), iaa.n) == (55.0, 82.9, 200)


@shared
def test_iaa_over_all_pairs_is_the_methods_statement(frame):
    """METHODS §6.3: over all 600 pairs the same data give 55.8 % and 68.8 %."""
    iaa = compat.compat_iaa(frame, mode=DEFAULT)
    assert (pct(iaa.strict), pct(iaa.half_credit), iaa.n) == (55.8, 68.8, 600)


@shared
@pytest.mark.parametrize(
    ("exclude", "only", "iaa", "agree"),
    [
        ((), (), 55.0, 51.6),
        (("elicit",), (), 57.0, 58.9),
        ((), BEST_2, 55.3, 43.4),
        ((), BEST_3, 57.0, 44.6),
        # the paper prints 73.1 %; the script 73.5 % (36/49), which no option changes
        ((), DISTINCT_2, 73.5, 83.7),
        ((), DISTINCT_3, 64.1, 71.4),
    ],
    ids=["all", "without-elicit", "best-2", "best-3", "distinct-2", "distinct-3"],
)  # fmt: skip
def test_tables6_7_system_subsets(frame, exclude, only, iaa, agree):
    """Tables 6 and 7: IAA and overall agreement restricted to subsets of systems (§6.4)."""
    got_iaa = compat.compat_iaa(frame, exclude_systems=exclude, only_systems=only)
    table = compat.compat_preference_table(frame, exclude_systems=exclude, only_systems=only)
    assert (pct(got_iaa.strict), pct(table.row("overall").agreement)) == (iaa, agree)


@shared
def test_subset_does_not_restrict_ranking_but_exclusion_does(frame):
    """§6.4: ``only_systems`` leaves the system ranking alone; ``exclude_systems`` does not."""
    full = compat.compat_system_tau(frame)
    assert compat.compat_system_tau(frame, only_systems=BEST_2) == full
    assert "elicit" not in compat.compat_system_tau(frame, exclude_systems=("elicit",)).judge_rates
    pooled = compat.compat_system_tau(frame, only_systems=BEST_2, mode=DEFAULT)
    assert set(pooled.human_rates) == set(BEST_2)


# --------------------------------------------------------------------------- quirks


@shared
def test_thresholds(frame):
    """§6.2: assigned thresholds averaged over slots; agreed subset all 0.01 (float grid)."""
    got = compat.compat_thresholds(frame, "assigned")
    assert got["overall"] == 0.01  # human_overall absent: target 0
    assert got["citation_precision"] == (0.15000000000000002 + 0.11) / 2
    assert got["citation_recall"] == 0.15000000000000002
    agreed = compat.compat_thresholds(frame, "assigned", subset="expert_agreed")
    assert set(agreed.values()) == {0.01}
    near = compat.compat_thresholds(frame, "near_expert")
    assert near == compat.compat_thresholds(frame, "deep_expert")  # calibrated together


def test_iaa_keeps_last_pair_per_question_and_drops_opposites_from_half_credit():
    """§6.3 on a toy: 2 questions, the last pair read decides; opposite leaves the denominator."""

    def rec(q, models, pref):
        return {"question": q, "models": models, "preference_ranking_norm": pref}

    ann1 = [
        rec("q1", ["a", "b"], [1, 0]),
        rec("q1", ["a", "c"], [1, 1]),
        rec("q2", ["a", "b"], [1, 0]),
    ]
    ann2 = [rec("q1", ["a", "b"], [1, 0]), rec("q1", ["a", "c"], [1, 0]),
            rec("q2", ["a", "b"], [0, 1])]  # fmt: skip
    f = frame_from_records({("ann1", "assigned", "dev"): ann1, ("ann2", "assigned", "dev"): ann2})
    iaa = compat.compat_iaa(f)
    assert (iaa.strict, iaa.half_credit, iaa.n, iaa.n_half_credit) == (0.0, 0.5, 2, 1)
    pairs = compat.compat_iaa(f, mode=DEFAULT)  # METHODS §5: 3 pairs, credit 1, ½, 0
    assert (pairs.strict, pairs.half_credit, pairs.n) == (1 / 3, 0.5, 3)


@shared
def test_differences_list_each_quirk_with_compat_and_default(frame):
    """The report's notes: every quirk that moved a figure, compat beside default."""
    notes = compat.differences(frame)
    by = {(d.quirk, d.figure): d for d in notes}
    iaa = by[("iaa_per_question", "IAA strict")]
    assert (pct(iaa.compat), pct(iaa.default)) == (55.0, 55.8)
    assert ("iaa_per_question", "IAA half credit") in by
    assert ("slot_average", "system tau_b") in by
    assert {d.quirk for d in notes} >= {"slot_average", "threshold_grid", "tie_target"}
    assert all(not math.isclose(d.compat, d.without_quirk) for d in notes)
    overall = by[("tie_target", "agreement: preference vs judge overall")]
    assert pct(overall.compat) == 51.6 and overall.compat != overall.default


def test_released_files_table_is_what_the_loader_reads():
    """Guard the setting mapping the figures rely on (brief: ann files = assigned)."""
    assert {k[1] for k in RELEASED_FILES} == {"assigned", "near_expert", "deep_expert"}
    assert RELEASED_FILES[(UNATTRIBUTED, "deep_expert", "authored")] == "pairwise_authored.json"
    assert json.dumps(sorted(AGREEMENT_ONLY_FILES)) == '["dev", "test"]'


@shared
def test_fixed_threshold_replaces_every_fitted_one(frame):
    """Issue 13: ``threshold`` is the judge threshold of every metric and slot, not fitted;
    partial compares exactly, so only 0 combines with it."""
    for setting in ("assigned", "deep_expert"):
        for ties in ("threshold", "exclude"):
            table = compat.compat_preference_table(frame, setting, ties=ties, threshold=0.05)
            assert {row.threshold for row in table.rows} == {0.05}
    exact = compat.compat_preference_table(frame, "assigned", threshold=0.0)
    partial = compat.compat_preference_table(frame, "assigned", ties="partial")
    for metric in ("overall", "citation_recall"):  # same judge decisions, other credit
        assert exact.row(metric).tau_b == partial.row(metric).tau_b
        assert exact.row(metric).agreement < partial.row(metric).agreement
    with pytest.raises(ValueError, match="ties=partial compares judge scores exactly"):
        compat.compat_preference_table(frame, ties="partial", threshold=0.05)
    with pytest.raises(ValueError, match="ties: 'sometimes'"):
        compat.compat_preference_table(frame, ties="sometimes")
