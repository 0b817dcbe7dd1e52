import math

import numpy as np
import pytest

from metaeval.stats.binary import binary_agreement
from metaeval.stats.coverage import coverage_alignment, coverage_percent


def test_binary_weighted_worked_example():
    # human [1,1,0,0], judge [1,0,1,0], weights [3,1,1,2]:
    # accuracy = (3 + 2)/7; TP weight 3; judge-positive weight 3 + 1 = 4 -> P = 3/4;
    # human-positive weight 3 + 1 = 4 -> R = 3/4; F1 = 3/4.
    r = binary_agreement([1, 1, 0, 0], [1, 0, 1, 0], weights=[3, 1, 1, 2])
    assert r.accuracy == pytest.approx(5 / 7)
    assert (r.precision, r.recall, r.f1) == pytest.approx((0.75, 0.75, 0.75))
    assert r.n == 4 and r.weight == 7


def test_binary_unweighted_and_unknowns():
    # human [1,1,1,0], judge [1,0,0,0]: acc 2/4, P = 1/1, R = 1/3, F1 = 2·(1/3)/(4/3) = .5
    r = binary_agreement([1, 1, 1, 0, np.nan], [1, 0, 0, 0, 1], nan_policy="omit")
    assert (r.accuracy, r.precision, r.recall, r.f1, r.n) == pytest.approx(
        (0.5, 1.0, 1 / 3, 0.5, 4)
    )
    with pytest.raises(ValueError):
        binary_agreement([1, np.nan], [1, 1])


def test_binary_no_positive_prediction_is_nan():
    r = binary_agreement([1, 0], [0, 0])
    assert math.isnan(r.precision) and r.recall == 0 and math.isnan(r.f1)


def test_coverage_alignment_worked_example():
    # human [0,4,2,3], judge [1,4,4,3]: diffs [1,0,2,0] -> mean .75.
    # Pearson: h mean 2.25, j mean 3; dev h [-2.25,1.75,-.25,.75], j [-2,1,1,0];
    # Σ dh·dj = 4.5+1.75-.25+0 = 6; Σ dh² = 5.0625+3.0625+.0625+.5625 = 8.75; Σ dj² = 6
    # -> r = 6 / sqrt(8.75·6) = 0.8281.
    r = coverage_alignment([0, 4, 2, 3], [1, 4, 4, 3])
    assert r.mean_difference == 0.75
    assert r.pearson == pytest.approx(6 / math.sqrt(8.75 * 6))
    assert r.confusion[0, 1] == r.confusion[4, 4] == r.confusion[2, 4] == r.confusion[3, 3] == 1
    assert r.confusion.sum() == 4
    assert (r.human_complete, r.judge_complete, r.n) == (0.25, 0.5, 4)


def test_coverage_percent_and_nan():
    assert coverage_percent([4, 2, np.nan]) == 75.0  # mean 3 / 4
    r = coverage_alignment([4, np.nan], [4, 1])
    assert r.n == 1 and math.isnan(r.pearson)
    with pytest.raises(ValueError):
        coverage_alignment([5], [1])
