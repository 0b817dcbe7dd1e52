import math

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings

from metaeval.stats.kendall import (
    PairCounts,
    pair_counts,
    tau_b_decisions,
    tau_b_from_counts,
    tau_b_scores,
)

from .strategies import decision_arrays


def test_pair_counts_worked_example():
    # human [1, 0, -1, 1, 0] vs judge [1, 1, 1, 0, 0]:
    # 0: both +1 -> concordant; 1: human tie only; 2: opposite -> discordant;
    # 3: judge tie only; 4: joint tie.
    c = pair_counts([1, 0, -1, 1, 0], [1, 1, 1, 0, 0])
    assert c == PairCounts(1, 1, 1, 1, 1, 5)
    assert c.all_human_ties == 2 and c.all_judge_ties == 2


def test_tau_b_worked_example():
    # human [1,1,-1,0,1], judge [1,1,-1,1,0]: C = 3, D = 0, human ties 1, judge ties 1,
    # joint 0, N = 5 -> 3 / sqrt((5-1)(5-1)) = 0.75.
    assert tau_b_decisions([1, 1, -1, 0, 1], [1, 1, -1, 1, 0]) == pytest.approx(0.75)
    # A joint tie counts in both: human [1, 0], judge [1, 0] -> 1 / sqrt(1·1) = 1.
    assert tau_b_decisions([1, 0], [1, 0]) == 1.0


def test_tau_b_undefined_cases_are_nan():
    assert math.isnan(tau_b_decisions([], []))
    assert math.isnan(tau_b_decisions([0, 0], [1, -1]))  # human ties everywhere


def _brute_force_tau_b(human, judge):
    """Kendall's τ-b from its definition, over the pairs of reports the annotators judged.

    Each judgment i is the pair (report A_i, report B_i); the human orders it by h_i,
    the judge by m_i (each a two-item ranking, report B fixed at rank 0); it shares
    no code with pair_counts.
    """
    con = dis = x_untied = y_untied = 0
    for h, m in zip(human, judge, strict=True):
        human_rank = {"A": int(h), "B": 0}  # the human's ordering of the two reports
        judge_rank = {"A": int(m), "B": 0}
        x = np.sign(human_rank["A"] - human_rank["B"])
        y = np.sign(judge_rank["A"] - judge_rank["B"])
        x_untied += x != 0
        y_untied += y != 0
        if x and y:
            con += x == y
            dis += x != y
    if x_untied == 0 or y_untied == 0:
        return math.nan
    return (con - dis) / math.sqrt(x_untied * y_untied)


@settings(deadline=None)
@given(decision_arrays())
def test_tau_b_matches_definition(data):
    h, m = data
    assert np.allclose(tau_b_decisions(h, m), _brute_force_tau_b(h, m), equal_nan=True)


@settings(deadline=None)
@given(decision_arrays(n_min=1, n_max=1))
def test_tau_b_single_judgment_equals_scipy_with_fixed_reference(data):
    # True identity: one judgment = one pair of items (A, B); scipy's τ-b over the
    # two-item vectors [h, 0] and [m, 0] is the same number (NaN on any tie).
    h, m = data
    sp = scipy.stats.kendalltau([h[0], 0], [m[0], 0], variant="b").statistic
    assert np.allclose(tau_b_decisions(h, m), sp, equal_nan=True)


def test_tau_b_is_not_scipy_over_the_decision_vectors():
    # scipy compares judgments with each other (all N(N-1)/2 item pairs), which is a
    # different statistic. human = judge = [1, 1]: here 1.0, scipy NaN (constant x).
    assert tau_b_decisions([1, 1], [1, 1]) == 1.0
    assert math.isnan(scipy.stats.kendalltau([1, 1], [1, 1]).statistic)
    # human [1, -1, 0], judge [1, 0, 0]: here C=1, D=0, T_h=1, T_m=2 ->
    # 1/sqrt((3-1)(3-2)) = 0.7071; scipy over the vectors: item pairs (0,1): x+, y+ C;
    # (0,2): x+, y+ C; (1,2): x-, y tie -> 2/sqrt(3·2) = 0.8165.
    assert tau_b_decisions([1, -1, 0], [1, 0, 0]) == pytest.approx(1 / math.sqrt(2))
    sp = scipy.stats.kendalltau([1, -1, 0], [1, 0, 0], variant="b").statistic
    assert sp == pytest.approx(2 / math.sqrt(6))


@settings(deadline=None)
@given(decision_arrays())
def test_tau_b_orientation_free(data):
    h, m = data
    assert np.allclose(tau_b_decisions(h, m), tau_b_decisions(-h, -m), equal_nan=True)
    assert pair_counts(h, m) == pair_counts(-h, -m)


@settings(deadline=None)
@given(decision_arrays())
def test_counts_partition_and_add(data):
    h, m = data
    c = pair_counts(h, m)
    assert sum(c[:5]) == c.n == len(h)
    k = len(h) // 2
    assert pair_counts(h[:k], m[:k]) + pair_counts(h[k:], m[k:]) == c
    assert np.allclose(tau_b_from_counts(c), tau_b_decisions(h, m), equal_nan=True)


def test_tau_b_scores_is_scipy_and_handles_nan():
    # x = [1, 2, 3], y = [1, 3, 2]: pairs (0,1) C, (0,2) C, (1,2) D -> (2-1)/3 = 1/3.
    r = tau_b_scores([1, 2, 3], [1, 3, 2])
    assert r.statistic == pytest.approx(1 / 3) and r.n == 3
    r = tau_b_scores([1, 2, np.nan, 3], [1, 3, 5, 2], nan_policy="omit")
    assert r.statistic == pytest.approx(1 / 3) and r.n == 3
    assert math.isnan(tau_b_scores([1], [2]).statistic)
