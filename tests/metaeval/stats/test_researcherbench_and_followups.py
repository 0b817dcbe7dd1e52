"""ResearcherBench binary agreement (seed 004 §4.3, Tables 2 and 9), the ScholarQA-CS2
follow-ups (seed 003 A.4, A.5, A.6, Fig. 9), IAA of any label kind, judge-vs-judge
permutation test and cluster-bootstrap figures (issue 16)."""

import math
from math import comb

import numpy as np
import pytest
import scipy.stats

from metaeval.stats.adjudication_rates import (
    _log_table_probability,
    freeman_halton_2xk,
    setting_difference,
    setting_rates,
)
from metaeval.stats.claim_support import support_agreement
from metaeval.stats.figure import figure, nan_to_none
from metaeval.stats.iaa import mean_pairwise_cohen_kappa
from metaeval.stats.intervals import mean_interval, ratio_interval, statistic_interval
from metaeval.stats.judge_comparison import compare_judges
from metaeval.stats.label_iaa import LEVELS, iaa_summary
from metaeval.stats.ratings import align, correlation, group_means, report_means
from metaeval.stats.researcherbench import binary_judge_agreement, coverage_scores, f1_score
from metaeval.stats.rubric_comparison import (
    compare_sources,
    matches_from_rankings,
    source_records,
)

NA = np.nan

# --- ResearcherBench ----------------------------------------------------------------

#: 004 Table 2 (judge models) and Table 9 (rubric types): Acc., Prec., Rec., F1 as printed.
TABLE_2 = {
    "DeepSeek R1": (0.71, 0.83, 0.68, 0.75),
    "Gemini 2.5 Flash": (0.72, 0.75, 0.82, 0.78),
    "GPT-4.1": (0.72, 0.75, 0.85, 0.80),
    "o3": (0.76, 0.80, 0.83, 0.81),
    "o3-mini": (0.76, 0.85, 0.76, 0.80),
}
TABLE_9 = {
    "Rubric_dim": (0.91, 0.91, 0.99, 0.95),
    "Rubric_ref": (0.66, 0.83, 0.60, 0.70),
    "Expert-Designed": (0.76, 0.85, 0.76, 0.80),
}


@pytest.mark.parametrize(("row", "printed"), list({**TABLE_2, **TABLE_9}.items()))
def test_f1_of_every_printed_row_is_2pr_over_p_plus_r(row, printed):
    _, p, r, f1 = printed
    assert round(f1_score(p, r), 2) == f1


def test_table_2_rows_share_one_human_reference():
    # From acc, P, R the share π of human "covered" labels is
    # π = (1 − acc) / ((1 − R) + R(1 − P)/P). Every judge was compared with the same human
    # labels, so the five rows must give the same π up to the two-decimal rounding.
    pis = []
    for acc, p, r, _ in TABLE_2.values():
        pis.append((1 - acc) / ((1 - r) + r * (1 - p) / p))
    assert max(pis) - min(pis) < 0.035
    assert 0.61 < np.mean(pis) < 0.65


def test_o3_mini_row_from_a_confusion_table():
    # 1000 labels with π ≈ .642: TP 488, FN 154, FP 86, TN 272 → the printed row of o3-mini.
    human = np.r_[np.ones(488), np.ones(154), np.zeros(86), np.zeros(272)]
    judge = np.r_[np.ones(488), np.zeros(154), np.ones(86), np.zeros(272)]
    res = binary_judge_agreement(human, judge)
    u = res.unweighted
    assert (round(u.accuracy, 2), round(u.precision, 2), round(u.recall, 2), round(u.f1, 2)) == (
        TABLE_2["o3-mini"]
    )
    assert res.weighted.accuracy == pytest.approx(u.accuracy)  # unit weights


def test_weighted_binary_agreement_and_kappa_by_hand():
    # h = [1,1,0,0], j = [1,0,1,0], w = [3,1,1,2]: weighted acc (3 + 2)/7; P = R = 3/4.
    # κ unweighted: p_o = .5, p_e = .5·.5 + .5·.5 = .5 → 0.
    res = binary_judge_agreement([1, 1, 0, 0, NA], [1, 0, 1, 0, 1], weights=[3, 1, 1, 2, 3])
    assert res.n == 4
    assert res.weighted.accuracy == pytest.approx(5 / 7)
    assert (res.weighted.precision, res.weighted.recall) == pytest.approx((0.75, 0.75))
    assert res.kappa == pytest.approx(0.0)
    # κ of a 2 × 2 table by hand: [[20, 5], [10, 15]] → p_o = .7, p_e = .5·.6 + .5·.4 = .5
    h = np.r_[np.ones(25), np.zeros(25)]
    j = np.r_[np.ones(20), np.zeros(5), np.ones(10), np.zeros(15)]
    assert binary_judge_agreement(h, j).kappa == pytest.approx(0.4)
    assert math.isnan(binary_judge_agreement([1, 1], [1, 1]).kappa)  # one category


def test_coverage_score_per_report_is_equation_2():
    # S_c = Σ w·b / Σ w: report 7: (3·1 + 1·0 + 2·1)/6; report 9: (1·0)/1; NaN labels ignored.
    res = coverage_scores([7, 7, 7, 9, 9], [1, 0, 1, 0, NA], [3, 1, 2, 1, 3])
    assert res.report.tolist() == [7, 9]
    assert res.score.tolist() == pytest.approx([5 / 6, 0.0])
    assert res.n_items.tolist() == [3, 1]


# --- 003 A.4 rubric comparison --------------------------------------------------------

OURS, LLM, HUMAN = 0, 1, 2


def _a4_matches():
    """Head-to-head matches consistent with A.4: 25 three-way rankings (5 experts × 5
    questions), each rubric in 50 matches; ours 70 % wins with 10 % ties, LLM 40 %,
    human-written 28 %."""
    a, b, d = [], [], []

    def add(x, y, x_wins, ties, y_wins):
        for outcome, k in ((1, x_wins), (0, ties), (-1, y_wins)):
            a.extend([x] * k)
            b.extend([y] * k)
            d.extend([outcome] * k)

    add(OURS, LLM, 17, 3, 5)
    add(OURS, HUMAN, 18, 2, 5)
    add(LLM, HUMAN, 15, 1, 9)
    return np.array(a), np.array(b), np.array(d)


def test_a4_win_rates_of_each_rubric_source():
    records = {r.source: r for r in source_records(*_a4_matches())}
    assert {s: r.matches for s, r in records.items()} == {OURS: 50, LLM: 50, HUMAN: 50}
    assert records[OURS].win_rate == pytest.approx(0.70)  # "wins 70 % of all its matches
    assert records[OURS].tie_rate == pytest.approx(0.10)  # with 10 % ties"
    assert records[LLM].win_rate == pytest.approx(0.40)
    assert records[HUMAN].win_rate == pytest.approx(0.28)


def test_a4_binomial_p_value_matches_scipy_and_the_exact_sum():
    cmp = compare_sources(*_a4_matches(), OURS, LLM)
    assert (cmp.x_wins, cmp.y_wins, cmp.ties) == (17, 5, 3)
    exact = sum(comb(22, k) for k in range(22 + 1) if comb(22, k) <= comb(22, 17)) / 2**22
    assert cmp.pvalue == pytest.approx(exact)
    assert cmp.pvalue == pytest.approx(scipy.stats.binomtest(17, 22).pvalue)


def test_rankings_decompose_into_matches_and_permutation_p():
    ranking = np.repeat(np.arange(8), 3)
    source = np.tile([OURS, LLM, HUMAN], 8)
    medal = np.tile([1.0, 0.5, 0.0], 8)
    r, a, b, d = matches_from_rankings(ranking, source, medal)
    assert r.size == 24 and set(d.tolist()) == {1}
    cmp = compare_sources(a, b, d, OURS, LLM, method="permutation", ranking=r, n_rounds=1000)
    # 8 rankings, every swap flips the sign: exact test, 2 of 2^8 splits as extreme
    assert cmp.pvalue == pytest.approx(2 / 2**8)


# --- 003 A.5 claim check ------------------------------------------------------------


def test_a5_agreement_and_leniency():
    human = [1, 0, 0, 1, 0, NA]
    judge = [1, 1, 1, 1, 0, 1]
    res = support_agreement(human, judge)
    assert (res.agreement, res.n, res.n_disagreements) == (pytest.approx(3 / 5), 5, 2)
    assert res.judge_lenient == 1.0  # both disagreements: judge supported, human not
    without = support_agreement(human, judge, exclude=[False, True, False, False, False, False])
    assert without.agreement == pytest.approx(3 / 4)


# --- 003 A.6 adjudication -----------------------------------------------------------


def test_freeman_halton_equals_fisher_on_2x2_and_scipy_on_2x3():
    for table in ([[3, 7], [9, 2]], [[10, 0], [0, 10]], [[5, 5], [5, 5]]):
        assert freeman_halton_2xk(table) == pytest.approx(scipy.stats.fisher_exact(table).pvalue)
    t = np.array([[10, 3, 12], [9, 14, 4]])
    res = scipy.stats.fisher_exact(t)  # R × C: Monte Carlo p and the observed table's P
    assert np.exp(_log_table_probability(t)) == pytest.approx(res.statistic)
    assert freeman_halton_2xk(t) == pytest.approx(res.pvalue, abs=0.01)


def test_setting_rates_and_difference():
    settings = ["near_expert"] * 20 + ["deep_expert"] * 20
    decisions = (["keep"] * 3 + ["switch"] * 12 + ["subjective"] * 5
                 + ["keep"] * 3 + ["switch"] * 2 + ["subjective"] * 15)  # fmt: skip
    rates = {r.setting: r for r in setting_rates(settings, decisions)}
    assert rates["near_expert"].rates == pytest.approx((0.15, 0.6, 0.25))
    diff = setting_difference(rates["near_expert"], rates["deep_expert"])
    assert diff.pvalue_per_decision["keep"] == pytest.approx(1.0)
    assert diff.pvalue_per_decision["switch"] == pytest.approx(
        scipy.stats.fisher_exact([[12, 8], [2, 18]]).pvalue
    )
    assert diff.pvalue_all < 0.01
    with pytest.raises(ValueError, match="unknown"):
        setting_rates(["a"], ["maybe"])


# --- Fig. 9 ratings ---------------------------------------------------------------


def test_ratings_per_system_and_correlations():
    gm = group_means([4, 2, 5, 3, NA], [0, 1, 0, 1, 0])
    assert gm.keys == [(0,), (1,)] and gm.mean.tolist() == [4.5, 2.5] and gm.n.tolist() == [2, 2]
    keys, means = report_means([1, 1, 2, 3], [4, 2, 5, 1])
    assert keys.tolist() == [1, 2, 3] and means.tolist() == [3.0, 5.0, 1.0]
    x, y = align(keys, means, np.array([2, 3, 4]), np.array([0.9, 0.1, 0.5]))
    assert x.tolist() == [5.0, 1.0] and y.tolist() == [0.9, 0.1]
    c = correlation([1, 2, 3, 4], [1, 3, 2, 4])
    assert c.pearson == pytest.approx(scipy.stats.pearsonr([1, 2, 3, 4], [1, 3, 2, 4])[0])
    assert c.spearman == pytest.approx(0.8)
    assert math.isnan(correlation([1, 2], [2, 1]).pearson)  # fewer than 3 reports
    assert math.isnan(correlation([1, 2, 3], [2, 2, 2]).pearson)  # constant side


# --- IAA of any label kind -----------------------------------------------------------


def test_iaa_summary_levels_and_kappa_over_annotator_pairs():
    assert LEVELS["coverage"] == "ordinal" and LEVELS["preference"] == "nominal"
    m = np.array([[1, 1, NA], [NA, 2, 2], [0, NA, 1], [3, NA, NA]])
    res = iaa_summary(m, "ordinal")
    assert (res.n_units, res.n_pairs) == (3, 3)
    assert res.strict == pytest.approx(2 / 3)
    # Cohen's κ, mean over annotator pairs: (0, 1) share one unit labelled 1 by both and
    # (1, 2) one labelled 2 by both: a single category, undefined, left out; (0, 2) share
    # one unit, 0 vs 1: p_o = 0, p_e = 0, κ = 0. The mean of the defined pairs: 0.
    assert res.cohen_kappa == 0.0
    pairs = mean_pairwise_cohen_kappa(m)
    assert (pairs.n_pairs, pairs.n_undefined) == (1, 2)
    # two annotators: their Cohen's κ (p_o = 3/4; marginals (½, ½) and (¼, ¾): p_e = ½)
    two = np.array([[1, 1], [0, 0], [0, 1], [1, 1]], dtype=float)
    assert mean_pairwise_cohen_kappa(two).value == pytest.approx((0.75 - 0.5) / 0.5)
    empty = iaa_summary(np.array([[1.0, NA]]))
    assert empty.n_pairs == 0 and math.isnan(empty.strict)


# --- across judges -----------------------------------------------------------------


def test_compare_judges_exact_permutation_and_alignment():
    a = [1, 1, 1, 1, 0.5, NA]
    b = [0, 0, 1, 0, 0, 1]
    q = [1, 1, 2, 3, 4, 5]
    res = compare_judges(a, b, q, n_rounds=1000)
    assert res.n_units == 5 and res.n_clusters == 4 and res.exact
    assert res.difference == pytest.approx((4.5 - 1) / 5)
    # 4 clusters: 16 swaps; |Δ*| ≥ |Δ| for the identity and the full swap, each twice
    # because question 2 (1 vs 1) is the same swapped or not
    assert res.pvalue == pytest.approx(4 / 16)
    assert math.isnan(compare_judges([NA], [1], [1]).pvalue)


# --- figures with intervals -----------------------------------------------------------


def test_figures_are_null_with_a_note_never_nan():
    f = figure(float("nan"), 0, undefined="κ with one category")
    assert f.value is None and f.note == "κ with one category"
    assert nan_to_none([[1.0, np.nan]]) == [[1.0, None]]
    one_question = mean_interval([1.0, 0.0], [7, 7])
    assert one_question.value == 0.5 and one_question.low is None
    assert "at least 2" in one_question.note


def test_ratio_and_statistic_intervals_agree_on_a_sum_statistic():
    rng = np.random.default_rng(0)
    q = np.repeat(np.arange(30), 4)
    v = rng.integers(0, 2, q.size).astype(float)
    fast = ratio_interval(v, np.ones_like(v), q, n_rounds=300, seed=5)
    slow = statistic_interval(lambda rows: v[rows].mean(), q, n_rounds=300, seed=5)
    assert fast.value == pytest.approx(v.mean()) and fast.n == 120
    assert (fast.low, fast.high) == pytest.approx((slow.low, slow.high))
    assert fast.low < fast.value < fast.high


def test_expertise_coverage_and_agreement_by_level():
    from metaeval.stats.expertise import agreement_by_level, coverage, ranking_decisions

    rows, rated = coverage(["q1", "q1", "q2"], ["within", "near", "near"], ks=[1, 2])
    got = {(r["level"], r["k"]): r["questions"] for r in rows}
    assert rated == 2 and got[("near", 1)] == 2 and got[("within_or_near", 2)] == 1
    assert got[("within", 2)] == 0
    # two rankings of three reports on q1: a ranks 1 > 2 = 3, b ranks 3 > 2 > 1
    decisions = ranking_decisions([1, 1, 1, 2, 2, 2], ["q1"] * 6, ["a"] * 3 + ["b"] * 3,
                                  [1, 2, 3, 1, 2, 3], [1.0, 0.5, 0.5, 0.0, 0.5, 1.0])  # fmt: skip
    assert [d[3:] for d in decisions[:3]] == [(1, 2, 1), (1, 3, 1), (2, 3, 0)]
    out = agreement_by_level(decisions, {("a", "q1"): "within"}, {1: 0.9, 2: 0.1, 3: 0.1})
    by = {(r["level"], r["reference"]): (r["value"], r["n"]) for r in out}
    assert by[("within", "judge")] == (1.0, 3)  # a agrees with the judge on all three pairs
    assert by[("unrated", "judge")] == (0.0, 3)  # b on none (its 2-vs-3 is not a tie)
    assert by[("within", "consensus")] == (0.0, 3)  # a against b on every pair
    assert by[("near", "judge")][0] is None
