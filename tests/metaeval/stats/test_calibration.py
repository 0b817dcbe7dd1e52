from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings

from metaeval.stats.calibration import (
    agreement_curve,
    calibrate,
    calibrate_match_rate,
    calibrate_max_accuracy,
    candidate_thresholds,
    cross_fit,
    judge_tie_rates,
)
from metaeval.stats.decisions import score_decisions

from .strategies import grid_score, judged_pairs


def test_candidates_and_tie_rates():
    # |d| = [0.3, 0, 0.1, 0.3] -> {0} ∪ {0.3, 0, 0.1} = [0, 0.1, 0.3]
    u = np.array([0.3, 0.0, 0.1, 0.3])
    assert candidate_thresholds(u).tolist() == [0.0, 0.1, 0.3]
    # ties at t: 0 -> 1 of 4; 0.1 -> 2 of 4; 0.3 -> 4 of 4; 0.05 -> 1 of 4.
    assert judge_tie_rates(u, [0.0, 0.05, 0.1, 0.3]).tolist() == [0.25, 0.25, 0.5, 1.0]
    assert candidate_thresholds([]).tolist() == [0.0]


def test_match_rate_smallest_on_equal_distance_despite_float_noise():
    # |d| = [0, .1, .1, .3, .5]; rates at t = 0, .1, .3, .5 are 1/5, 3/5, 4/5, 5/5.
    # Target 2/5: distances 1/5, 1/5, 2/5, 3/5 -> t = 0 and t = .1 tie; take 0.
    # (In floats 0.6 - 0.4 < 0.4 - 0.2, so a naive argmin would pick 0.1.)
    cal = calibrate_match_rate([0, 0.1, 0.1, 0.3, 0.5], 0.4)
    assert cal.threshold == 0.0
    assert cal.judge_tie_rate == pytest.approx(0.2)
    assert cal.n == 5 and cal.method == "match_rate"


def test_match_rate_exact_hit():
    # Target 0.8 is reached exactly at t = 0.3 (4 of 5 |d| <= 0.3).
    assert calibrate_match_rate([0, 0.1, 0.1, 0.3, 0.5], 0.8).threshold == 0.3


def test_match_rate_explicit_grid():
    # Grid .01..; |d| = [0.005, 0.02, 0.2]: rates .01->1/3, .02->2/3 ...; target 2/3.
    grid = np.arange(0.01, 0.16, 0.01)
    cal = calibrate_match_rate([0.005, 0.02, 0.2], 2 / 3, candidates=grid)
    assert cal.threshold == pytest.approx(0.02)
    assert cal.judge_tie_rate == pytest.approx(2 / 3)


def test_empty_calibration_is_nan_not_zero():
    cal = calibrate_match_rate([], 0.3)
    assert np.isnan(cal.threshold) and cal.n == 0
    cal = calibrate_max_accuracy([], [], [])
    assert np.isnan(cal.threshold) and cal.n == 0
    with pytest.raises(ValueError):
        score_decisions([1.0], [0.0], cal.threshold)


def test_max_accuracy_worked_example():
    # human [1, 0, -1, 0]; a - b = [6, 1, -4, 2].
    # t=0: judge [1,1,-1,1] agrees on 2; t=1: [1,0,-1,1] -> 3; t=2: [1,0,-1,0] -> 4;
    # t=4: [1,0,0,0] -> 3; t=6: all ties -> 2. Best t = 2 with agreement 1.
    human = np.array([1, 0, -1, 0])
    a, b = np.array([6.0, 1, 0, 2]), np.array([0.0, 0, 4, 0])
    assert agreement_curve(human, a, b, [0, 1, 2, 4, 6]).tolist() == [2, 3, 4, 3, 2]
    cal = calibrate_max_accuracy(human, a, b)
    assert cal.threshold == 2.0 and cal.agreement == 1.0 and cal.judge_tie_rate == 0.5


def test_max_accuracy_smallest_on_equal():
    # human [1, 0], a - b = [1, 2]: t=0 -> [1,1] 1 agree; t=1 -> [0,1] 0; t=2 -> [0,0] 1.
    cal = calibrate_max_accuracy([1, 0], [1.0, 2.0], [0.0, 0.0])
    assert cal.threshold == 0.0 and cal.agreement == 0.5


def _brute_match_rate(human, a, b, grid):
    """Exact rational search: tie rate k/n vs human rate h/n, smallest t on equal."""
    n = len(human)
    target = Fraction(int(np.sum(human == 0)), n)
    best = None
    for t in sorted(grid):
        k = int(np.sum(score_decisions(a, b, t) == 0))
        dist = abs(Fraction(k, n) - target)
        if best is None or dist < best[0]:
            best = (dist, t)
    return best


def _brute_max_accuracy(human, a, b, grid):
    best = None
    for t in sorted(grid):
        agree = int(np.sum(score_decisions(a, b, t) == human))
        if best is None or agree > best[0]:
            best = (agree, t)
    return best


def _dense_grid(a, b):
    """Candidates plus midpoints and points beyond the largest |d|: any t >= 0."""
    c = candidate_thresholds(np.abs(a - b))
    mids = (c[:-1] + c[1:]) / 2
    return np.concatenate((c, mids, [c[-1] + 1.0]))


@settings(max_examples=200, deadline=None)
@given(judged_pairs(min_size=1))
def test_match_rate_is_optimal_against_brute_force(data):
    human, a, b = data
    cal = calibrate(human, a, b, method="match_rate")
    dist, t = _brute_match_rate(human, a, b, candidate_thresholds(np.abs(a - b)))
    assert cal.threshold == t
    # No threshold at all (midpoints, beyond the max) does better than the candidates.
    assert _brute_match_rate(human, a, b, _dense_grid(a, b))[0] == dist


@settings(max_examples=200, deadline=None)
@given(judged_pairs(min_size=1))
def test_max_accuracy_is_optimal_against_brute_force(data):
    human, a, b = data
    cal = calibrate(human, a, b, method="max_accuracy")
    agree, t = _brute_max_accuracy(human, a, b, candidate_thresholds(np.abs(a - b)))
    assert cal.threshold == t
    assert cal.agreement == agree / len(human)
    assert _brute_max_accuracy(human, a, b, _dense_grid(a, b))[0] == agree


@settings(deadline=None)
@given(judged_pairs(min_size=1, score=grid_score))
def test_calibration_is_orientation_free(data):
    human, a, b = data
    for method in ("match_rate", "max_accuracy"):
        one, other = calibrate(human, a, b, method), calibrate(-human, b, a, method)
        # NaN fields (target of max_accuracy, agreement of match_rate) compare unequal,
        # so compare as tuples with NaN made comparable.
        assert np.array_equal(_as_row(one), _as_row(other), equal_nan=True)
        assert one.method == other.method


def _as_row(cal):
    return np.array([cal.threshold, cal.judge_tie_rate, cal.target_tie_rate, cal.n, cal.agreement])


def test_cross_fit_uses_only_fit_subset():
    # Fit rows: |d| = [0, 1, 2, 3], human ties 2 of 4 -> rate 1/2 at t = 1.
    # Other rows (all human ties, |d| = 10) would pull t up if they were used.
    human = np.array([0, 0, 1, 1, 0, 0])
    a = np.array([0.0, 1, 2, 3, 10, 10])
    b = np.zeros(6)
    fit = np.array([True, True, True, True, False, False])
    cal = cross_fit(human, a, b, fit)
    assert cal.threshold == 1.0 and cal.n == 4
    # Pooled instead: |d| = [0, 1, 2, 3, 10, 10], target 4/6, reached at t = 3.
    assert calibrate(human, a, b).threshold == 3.0


def test_unknown_method_raises():
    with pytest.raises(ValueError):
        calibrate([1], [1.0], [0.0], method="grid")
