import numpy as np
import pytest
from hypothesis import given, settings

from metaeval.stats.decisions import (
    as_decisions,
    medal_decisions,
    orient,
    ranking_to_pairs,
    score_decisions,
    tie_rate,
)

from .strategies import judged_pairs


def test_score_decisions_threshold_is_inclusive():
    # diffs a-b = [0.0, 0.25, -0.25, 0.5, -1.0]; at t = 0.25 the |diff| <= 0.25 tie.
    a = np.array([0.5, 0.75, 0.25, 1.0, 0.0])
    b = np.array([0.5, 0.5, 0.5, 0.5, 1.0])
    assert score_decisions(a, b).tolist() == [0, 1, -1, 1, -1]
    assert score_decisions(a, b, 0.25).tolist() == [0, 0, 0, 1, -1]
    assert score_decisions(a, b, 0.25).dtype == np.int8


def test_score_decisions_rejects_nan_and_bad_threshold():
    with pytest.raises(ValueError):
        score_decisions([np.nan], [0.0])
    with pytest.raises(ValueError):
        score_decisions([1.0], [0.0], threshold=float("nan"))
    with pytest.raises(ValueError):
        score_decisions([1.0], [0.0], threshold=-0.1)


def test_empty_input_gives_empty_decisions():
    assert score_decisions([], []).size == 0
    assert np.isnan(tie_rate([]))


def test_medal_decisions():
    # gold 1 vs silver .5 -> A better; bronze vs bronze -> tie; bronze vs gold -> B.
    assert medal_decisions([1.0, 0.0, 0.0], [0.5, 0.0, 1.0]).tolist() == [1, 0, -1]


def test_ranking_to_pairs_three_way_with_a_tie():
    # c gold, a and b silver: (a,b) tie, c beats both; keys in sorted order so the
    # decision for (a, c) is -1 (the second key, c, is better).
    pairs = ranking_to_pairs({"c": "gold", "a": "silver", "b": "silver"})
    assert pairs == [("a", "b", 0), ("a", "c", -1), ("b", "c", -1)]


def test_ranking_to_pairs_transitive_numbers():
    # z gold (1), x silver (.5), y bronze (0): x>y, x<z, y<z.
    assert ranking_to_pairs({"z": 1.0, "y": 0.0, "x": 0.5}) == [
        ("x", "y", 1),
        ("x", "z", -1),
        ("y", "z", -1),
    ]
    with pytest.raises(ValueError):
        ranking_to_pairs({"only": 1.0})


def test_orient_flips_only_masked():
    assert orient([1, 0, -1, 1], [True, True, True, False]).tolist() == [-1, 0, 1, 1]


def test_as_decisions_validates():
    with pytest.raises(ValueError):
        as_decisions([2, 0])
    with pytest.raises(ValueError):
        as_decisions([0.5])
    with pytest.raises(ValueError):
        as_decisions([np.nan])


def test_tie_rate():
    assert tie_rate([0, 1, 0, -1]) == 0.5


@settings(deadline=None)
@given(judged_pairs())
def test_swapping_columns_negates_decisions(data):
    _, a, b = data
    for t in (0.0, 0.25, 0.1):
        assert np.array_equal(score_decisions(b, a, t), -score_decisions(a, b, t))
