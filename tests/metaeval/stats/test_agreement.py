import math

import numpy as np
import pytest
from hypothesis import given, settings

from metaeval.stats.agreement import (
    acc_eq,
    agreement,
    agreement_from_scores,
    credit,
    tau_eq,
)

from .strategies import decision_arrays, judged_pairs

HUMAN = [1, 0, -1, 1, 0]
JUDGE = [1, 1, 1, 0, 0]


def test_threshold_partial_exclude_worked_example():
    # Equal at positions 0 and 4 -> 2/5.
    assert agreement(HUMAN, JUDGE, "threshold") == (pytest.approx(0.4), 5)
    # Credits 1, ½ (human tie only), 0 (opposite), ½ (judge tie only), 1 -> 3/5.
    assert agreement(HUMAN, JUDGE, "partial") == (pytest.approx(0.6), 5)
    # Drop human ties (1, 4): human [1,-1,1] vs judge [1,1,0] -> 1/3.
    assert agreement(HUMAN, JUDGE, "exclude") == (pytest.approx(1 / 3), 3)


def test_tau_eq_and_acc_eq_worked_example():
    # C=1, D=1, T_h=1, T_m=1, T_hm=1: acc_eq = (1+1)/5; tau_eq = (1+1-1-1-1)/5.
    assert acc_eq(HUMAN, JUDGE) == pytest.approx(0.4)
    assert tau_eq(HUMAN, JUDGE) == pytest.approx(-0.2)


def test_partial_from_scores_uses_exact_equality():
    # Scores a - b = [0.05, 0, -0.3]; human [0, 0, -1].
    # partial ignores the threshold: judge [1, 0, -1] -> credits ½, 1, 1 = 2.5/3.
    # threshold 0.1: judge [0, 0, -1] -> 3/3.
    a, b = np.array([0.55, 0.5, 0.2]), np.array([0.5, 0.5, 0.5])
    assert agreement_from_scores([0, 0, -1], a, b, 0.1, "partial").value == pytest.approx(2.5 / 3)
    assert agreement_from_scores([0, 0, -1], a, b, 0.1, "threshold").value == 1.0


def test_empty_and_all_excluded_are_nan():
    assert math.isnan(agreement([], []).value) and agreement([], []).n == 0
    r = agreement([0, 0], [1, 0], "exclude")
    assert math.isnan(r.value) and r.n == 0
    assert math.isnan(acc_eq([], [])) and math.isnan(tau_eq([], []))


def test_unknown_strategy_raises():
    with pytest.raises(ValueError):
        agreement([1], [1], ties="half")


@settings(deadline=None)
@given(decision_arrays(n_min=1))
def test_agreement_bounds_and_relations(data):
    h, m = data
    for ties in ("threshold", "partial", "exclude"):
        v = agreement(h, m, ties).value
        assert math.isnan(v) or 0.0 <= v <= 1.0
    c = credit(h, m)
    assert ((c >= 0) & (c <= 1)).all()
    # Half credit never scores below strict agreement; acc_eq is threshold agreement.
    assert agreement(h, m, "partial").value >= agreement(h, m, "threshold").value
    assert acc_eq(h, m) == pytest.approx(agreement(h, m).value)
    assert tau_eq(h, m) == pytest.approx(2 * acc_eq(h, m) - 1)


@settings(deadline=None)
@given(judged_pairs(min_size=1))
def test_agreement_orientation_free(data):
    h, a, b = data
    for ties in ("threshold", "partial", "exclude"):
        one = agreement_from_scores(h, a, b, 0.25, ties)
        other = agreement_from_scores(-h, b, a, 0.25, ties)
        assert one.n == other.n
        assert np.allclose(one.value, other.value, equal_nan=True)
