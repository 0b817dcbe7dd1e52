"""ResearchQA analyses (seed 000/001 §3, §4.1; METHODS §7): plurality with ties, human vs
majority, binarised PA, footnote-6 credit, coverage agreement, quality merges, leaderboard."""

import math

import numpy as np
import pytest

from metaeval.stats.bradley_terry import elo_win_probability
from metaeval.stats.coverage_agreement import (
    annotator_pairs,
    coverage_agreement,
    human_coverage_agreement,
    weighted_kappa,
)
from metaeval.stats.label_quality import (
    BINARISATIONS,
    any_flag_share,
    binarised_agreement,
    encode,
    label_distribution,
)
from metaeval.stats.leaderboard import leaderboard, win_probability_matrix
from metaeval.stats.researchqa_pairwise import (
    A_BETTER,
    B_BETTER,
    BOTH_BAD,
    TIE,
    human_vs_majority,
    judge_accuracy,
    judge_credit,
    plurality_labels,
)
from metaeval.stats.researchqa_pairwise import binarised_agreement as preference_pa

NA = np.nan
A, B, T, X = A_BETTER, B_BETTER, TIE, BOTH_BAD


# --- pairwise -----------------------------------------------------------------------


def test_plurality_ties_are_no_majority_left_out_and_counted():
    m = np.array(
        [
            [A, A, B, NA],  # A by 2 to 1
            [A, B, T, X],  # four different labels: no majority
            [A, A, B, B],  # 2–2: no majority
            [X, X, A, NA],  # both bad
            [NA, NA, NA, NA],  # unlabelled: not counted at all
            [T, NA, NA, NA],  # one expert: their label
        ]
    )
    res = plurality_labels(m)
    assert res.label[[0, 3, 5]].tolist() == [A, X, T]
    assert np.isnan(res.label[[1, 2, 4]]).all()
    assert (res.n_items, res.n_no_majority, res.n_direction) == (5, 2, 1)
    assert plurality_labels(m, min_labels=2).n_items == 4


def test_human_vs_majority_of_the_others_on_direction_labels():
    # Item 1: A, A, B → ann1 vs {A, B}: no majority (skipped); ann2 vs {A, B} skipped;
    # ann3 (B) vs {A, A}: wrong. Item 2: A, A, A, T → T dropped; each A vs {A, A}: right ×3.
    m = np.array([[A, A, B, NA], [A, A, A, T]])
    res = human_vs_majority(m)
    assert (res.value, res.n, res.n_no_majority) == (pytest.approx(3 / 4), 4, 2)


def test_binarised_pairwise_agreement_drops_tie_and_both_bad():
    # Item 1: A, A, B → pairs (A,A) equal, (A,B) ×2 unequal; item 2: A, T, X → one direction
    # label: no pair. PA = 1/3 (Table 2's statistic).
    m = np.array([[A, A, B], [A, T, X]])
    res = preference_pa(m)
    assert (res.strict, res.n_pairs, res.n_items) == (pytest.approx(1 / 3), 3, 1)


@pytest.mark.parametrize(
    ("first", "second", "credit"),
    [
        (A, A, 1.0),  # both orders right
        (B, B, 0.0),  # both wrong
        (A, B, 0.5),  # footnote 6 (1): the two orders disagree → 50 %
        (A, T, 0.75),  # footnote 6 (2): one right, the other tie → 75 %
        (T, A, 0.75),
        (B, T, 0.25),  # by the same symmetry (METHODS §7)
        (T, T, 0.5),
        (T, NA, 0.5),  # footnote 6 (3): an ensemble tie → 50 %
        (A, NA, 1.0),
        (B, NA, 0.0),
    ],
)
def test_footnote_6_partial_credit(first, second, credit):
    assert judge_credit([A], [first], [second])[0] == credit


def test_judge_accuracy_counts_only_direction_majorities():
    majority = np.array([A, B, T, X, NA, A])
    first = np.array([A, T, A, A, A, NA])
    second = np.array([T, B, A, A, A, NA])
    res = judge_accuracy(majority, first, second)
    assert res.value == pytest.approx((0.75 + 0.75) / 2)
    assert (res.n, res.n_not_direction, res.n_no_verdict) == (2, 3, 1)
    assert math.isnan(judge_accuracy([T], [A]).value)


# --- coverage -----------------------------------------------------------------------


def test_quadratic_weighted_kappa_by_hand():
    # x = [0,0,1,2], y = [0,1,1,2]: observed weighted disagreement .25·¼ = .0625;
    # chance from the marginals (.5,.25,.25) × (.25,.5,.25): .3125 → κ = 1 − .0625/.3125.
    assert weighted_kappa([0, 0, 1, 2], [0, 1, 1, 2], levels=3) == pytest.approx(0.8)
    # the weights' scale cancels: the same labels on the 0–4 scale give the same κ
    assert weighted_kappa([0, 0, 1, 2], [0, 1, 1, 2]) == pytest.approx(0.8)
    # linear, w = |i − j|/2: observed .25·.5 = .125; chance .125 + .125 + .03125 + .03125
    # + .0625 + .0625 = .4375
    lin = weighted_kappa([0, 0, 1, 2], [0, 1, 1, 2], levels=3, weights="linear")
    assert lin == pytest.approx(1 - 0.125 / 0.4375)


def test_quadratic_weighted_kappa_equals_its_moment_form():
    # QWK = 2·cov(x, y) / (var x + var y + (x̄ − ȳ)²), population moments (Cohen 1968).
    rng = np.random.default_rng(3)
    for _ in range(20):
        x = rng.integers(0, 5, 60)
        y = np.clip(x + rng.integers(-2, 3, 60), 0, 4)
        cov = np.mean((x - x.mean()) * (y - y.mean()))
        expected = 2 * cov / (x.var() + y.var() + (x.mean() - y.mean()) ** 2)
        assert weighted_kappa(x, y) == pytest.approx(expected)


def test_weighted_kappa_undefined_with_one_label():
    assert math.isnan(weighted_kappa([2, 2, 2], [2, 2, 2]))
    assert math.isnan(weighted_kappa([], []))


def test_coverage_agreement_figures():
    h = [0, 1, 2, 3, 4, 4, 2, 1, np.nan]
    j = [0, 2, 2, 4, 4, 3, 1, 1, 3]
    res = coverage_agreement(h, j)
    assert res.n == 8
    assert res.exact == pytest.approx(4 / 8)
    # binarised {0,1} vs {2,3,4}: disagreements (1,2) and (2,1) → 6/8
    assert res.binarised == pytest.approx(6 / 8)
    assert res.mean_difference == pytest.approx(0.0)
    assert res.confusion.sum() == 8 and res.confusion[1, 2] == 1 and res.confusion[2, 1] == 1
    assert res.pearson == pytest.approx(np.corrcoef(h[:8], j[:8])[0, 1])


def test_human_vs_human_coverage_on_doubly_annotated_units():
    m = np.array([[0, 1, NA], [2, 2, 3], [4, NA, NA]])
    x, y, units = annotator_pairs(m)
    assert x.size == 8  # (0,1) + three pairs of unit 1, both orders
    res = human_coverage_agreement(m)
    assert (res.n_units, res.n_pairs) == (2, 4)
    assert res.exact == pytest.approx(1 / 4)  # only (2, 2) agrees
    assert res.binarised == pytest.approx(1.0)  # 0 ~ 1 and 2 ~ 2 ~ 3 in the binary view
    assert math.isnan(human_coverage_agreement(np.array([[1.0, NA]])).exact)


# --- query and rubric-item quality ------------------------------------------------


def test_merges_follow_table_2():
    assert BINARISATIONS["clarity"].merged == (4, 5)  # Largely explicit + Explicit
    assert BINARISATIONS["variability"].merged == ("semi_open", "closed")
    assert BINARISATIONS["emphasis"].merged == ("none", "lt_sentence")
    assert BINARISATIONS["necessity"].merged == ("significant_improvement", "minor_improvement")
    assert [b.paper_pa for b in BINARISATIONS.values()] == [0.72, 0.73, 0.83, 0.88, 0.91, 0.94]


def test_distribution_and_binarised_pa():
    kind = BINARISATIONS["variability"]
    codes = encode(["closed", "semi_open", "open_ended", None, "closed"], kind.categories)
    dist = label_distribution(codes, kind)
    assert dist.counts.tolist() == [1, 1, 2] and dist.n == 4
    assert dist.merged_share == pytest.approx(3 / 4)
    # unit 1: semi_open vs closed agree once merged; unit 2: open vs closed disagree
    m = np.array([[1, 2], [0, 2]], dtype=float)
    assert binarised_agreement(m, kind).strict == pytest.approx(0.5)
    with pytest.raises(ValueError, match="not one of"):
        encode(["sometimes"], kind.categories)
    assert any_flag_share([[], ["unclear"], [], []]) == (0.25, 4)


# --- leaderboard -------------------------------------------------------------------


def test_win_probability_from_table_3_ratings():
    # Table 3: sonar-deep-research 1505, gemini-2.5-pro 1244 → 0.818 (the paper's check).
    p = win_probability_matrix([1505, 1244])
    assert p[0, 1] == pytest.approx(0.818, abs=5e-4)
    assert p[0, 1] + p[1, 0] == pytest.approx(1.0)
    assert np.isnan(p[0, 0])


def test_bradley_terry_recovers_the_rating_gap_of_a_0818_win_rate():
    # The inverse check: 818 wins in 1000 battles is a gap of 400·log10(818/182) ≈ 261
    # Elo points, the gap between 1505 and 1244.
    n_win, n = 818, 1000
    a = np.zeros(n, int)
    b = np.ones(n, int)
    d = np.where(np.arange(n) < n_win, 1, -1)
    board = leaderboard(a, b, d, 2, n_rounds=50, seed=1)
    top, bottom = board.rows
    assert top.system == 0 and top.rating - bottom.rating == pytest.approx(1505 - 1244, abs=1.0)
    assert elo_win_probability(top.rating, bottom.rating) == pytest.approx(0.818, abs=1e-3)
    assert top.low <= top.median <= top.high and top.sd > 0
    assert (top.battles, top.wins) == (1000, 818.0)


def test_leaderboard_ties_count_half_and_undefined_ratings_have_notes():
    a = [0, 0, 1, 1, 2]
    b = [1, 2, 2, 0, 0]
    d = [1, 0, 1, -1, 1]
    board = leaderboard(a, b, d, 3, n_rounds=20)
    # 0 beats 1, 0 ties 2, 1 beats 2, 0 beats 1 (as B), 2 beats 0: a tie is half to each
    assert {row.system: row.wins for row in board.rows} == {0: 2.5, 1: 1.0, 2: 1.5}
    assert all(np.isfinite(row.rating) for row in board.rows)
    # a system that won every battle has no rating
    lone = leaderboard([0, 0, 1], [1, 2, 2], [1, 1, 1], 3, n_rounds=5)
    assert any("won every battle" in note for note in lone.notes)
    assert all(math.isnan(row.rating) for row in lone.rows if row.system == 0)


def test_cluster_resampling_by_question():
    rng = np.random.default_rng(0)
    a = rng.integers(0, 3, 300)
    b = (a + rng.integers(1, 3, 300)) % 3
    d = rng.choice([-1, 0, 1], 300)
    q = np.repeat(np.arange(100), 3)
    board = leaderboard(a, b, d, 3, n_rounds=30, clusters=q)
    assert board.resampled == "questions"
    assert all(row.low <= row.high for row in board.rows)


def test_coverage_figures_from_sums_equal_the_direct_ones():
    from metaeval.stats.coverage_agreement import figures_of_totals, moment_rows

    rng = np.random.default_rng(7)
    h = rng.integers(0, 5, 200).astype(float)
    j = np.clip(h + rng.integers(-2, 3, 200), 0, 4)
    h[::17] = np.nan
    direct = coverage_agreement(h, j)
    fast = figures_of_totals(moment_rows(h, j).sum(axis=0))
    expected = [direct.exact, direct.binarised, direct.weighted_kappa, direct.pearson,
                direct.mean_difference]  # fmt: skip
    assert fast == pytest.approx(expected)
    assert np.isnan(figures_of_totals(moment_rows([2, 2], [2, 2]).sum(axis=0))[2:4]).all()
    assert np.isnan(figures_of_totals(np.zeros(8))).all()


# --- METHODS §7: human vs majority, stated precisely (issue 27) ---------------------------


def _methods_7(rows):
    """METHODS §7 read literally, per comparison: keep the direction labels (Left / Right);
    compare each with the plurality of the *other* direction labels of the comparison;
    leave out a label with no other direction label, or whose others' plurality is tied."""
    from collections import Counter

    agree = n = tied = alone = 0
    for row in rows:
        directions = [v for v in row if v in (1, -1)]
        for k, label in enumerate(directions):
            others = directions[:k] + directions[k + 1 :]
            if not others:
                alone += 1
                continue
            top = Counter(others).most_common()
            if len(top) > 1 and top[0][1] == top[1][1]:
                tied += 1
                continue
            n += 1
            agree += label == top[0][0]
    return (agree / n if n else None), n, tied, alone


def test_human_vs_majority_is_methods_7():
    from metaeval.stats.researchqa_pairwise import human_vs_majority

    A, B, T, X = 1, -1, 0, 2  # A better, B better, tie, both bad
    rows = [
        [A, A, B, T],  # A vs {A, B}: tied, left out; A vs {A, B}: tied; B vs {A, A}: wrong
        [A, A, A, np.nan],  # each A vs {A, A}: right (3)
        [A, T, X, np.nan],  # one direction label: alone
        [B, A, B, B],  # B vs {A,B,B} right (×3); A vs {B,B,B} wrong
    ]
    got = human_vs_majority(np.array(rows, dtype=float))
    assert (got.value, got.n, got.n_no_majority, got.n_alone) == (6 / 8, 8, 2, 1)
    assert _methods_7(rows) == (6 / 8, 8, 2, 1)
    rng = np.random.default_rng(27)
    for _ in range(200):
        m = rng.choice([A, B, T, X, np.nan], size=(rng.integers(1, 8), 4),
                       p=[0.35, 0.3, 0.1, 0.05, 0.2])  # fmt: skip
        got = human_vs_majority(m)
        value, n, tied, alone = _methods_7(m.tolist())
        assert (got.n, got.n_no_majority, got.n_alone) == (n, tied, alone)
        assert (got.value if n else None) == (pytest.approx(value) if n else None)


def test_human_agreement_figures_are_ratios_of_per_comparison_sums():
    """The bootstrap resamples per-comparison sums (issue 29): Σ agree / Σ compared is
    human_vs_majority and Σ equal / Σ pairs the binarised PA, on any label matrix."""
    from metaeval.stats.researchqa_pairwise import (
        binarised_agreement,
        binarised_agreement_rows,
        human_vs_majority,
        human_vs_majority_rows,
    )

    rng = np.random.default_rng(29)
    for _ in range(100):
        m = rng.choice([1, -1, 0, 2, np.nan], size=(rng.integers(1, 9), 4),
                       p=[0.35, 0.3, 0.1, 0.05, 0.2])  # fmt: skip
        agree, n = human_vs_majority_rows(m)
        hm = human_vs_majority(m)
        assert n.sum() == hm.n
        assert (agree.sum() / n.sum() if n.sum() else None) == (
            pytest.approx(hm.value) if hm.n else None)  # fmt: skip
        equal, pairs = binarised_agreement_rows(m)
        pa = binarised_agreement(m)
        assert pairs.sum() == pa.n_pairs
        if pa.n_pairs:
            assert equal.sum() / pairs.sum() == pytest.approx(pa.strict)
