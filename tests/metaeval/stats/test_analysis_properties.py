"""Properties of issue 16's statistics on random inputs: orientation invariance of the
pairwise analyses, footnote-6 credit bounds, weighted κ symmetry, Freeman–Halton bounds."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from metaeval.stats.adjudication_rates import freeman_halton_2xk
from metaeval.stats.coverage_agreement import weighted_kappa
from metaeval.stats.researchqa_pairwise import (
    BOTH_BAD,
    binarised_agreement,
    human_vs_majority,
    judge_accuracy,
    judge_credit,
    plurality_labels,
)

label = st.sampled_from([1.0, -1.0, 0.0, 2.0, np.nan])
verdict = st.sampled_from([1.0, -1.0, 0.0, np.nan])


def _swap(x):
    """The same comparisons with A and B exchanged: direction labels change sign."""
    x = np.asarray(x, dtype=float)
    return np.where((x == BOTH_BAD) | np.isnan(x), x, -x)


@settings(max_examples=60, deadline=None)
@given(
    hnp.arrays(float, st.tuples(st.integers(1, 12), st.integers(1, 4)), elements=label),
    st.data(),
)
def test_pairwise_figures_do_not_depend_on_which_system_is_a(m, data):
    n = m.shape[0]
    first = data.draw(hnp.arrays(float, n, elements=verdict))
    second = data.draw(hnp.arrays(float, n, elements=verdict))
    maj, maj_swapped = plurality_labels(m), plurality_labels(_swap(m))
    np.testing.assert_array_equal(_swap(maj.label), maj_swapped.label)
    np.testing.assert_equal(human_vs_majority(m), human_vs_majority(_swap(m)))
    np.testing.assert_equal(binarised_agreement(m), binarised_agreement(_swap(m)))
    acc = judge_accuracy(maj.label, first, second)
    swapped = judge_accuracy(maj_swapped.label, _swap(first), _swap(second))
    np.testing.assert_equal(acc, swapped)
    # the order the judge was asked in does not matter either
    np.testing.assert_equal(acc, judge_accuracy(maj.label, second, first))
    c = judge_credit(maj.label, first, second)
    assert np.all((c[~np.isnan(c)] >= 0) & (c[~np.isnan(c)] <= 1))
    assert set(np.unique(c[~np.isnan(c)]).tolist()) <= {0.0, 0.25, 0.5, 0.75, 1.0}


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 40).flatmap(lambda n: st.tuples(
    hnp.arrays(np.int64, n, elements=st.integers(0, 4)),
    hnp.arrays(np.int64, n, elements=st.integers(0, 4)))))  # fmt: skip
def test_weighted_kappa_is_symmetric_and_at_most_one(xy):
    x, y = xy
    k = weighted_kappa(x, y)
    assert np.isnan(k) or (k <= 1 + 1e-12 and np.isclose(k, weighted_kappa(y, x)))
    if not np.isnan(weighted_kappa(x, x)):
        assert np.isclose(weighted_kappa(x, x), 1.0)


@settings(max_examples=60, deadline=None)
@given(hnp.arrays(np.int64, (2, 3), elements=st.integers(0, 8)))
def test_freeman_halton_is_a_probability_and_symmetric_in_rows(t):
    if t.sum() == 0:
        return
    p = freeman_halton_2xk(t)
    assert 0 < p <= 1
    assert np.isclose(p, freeman_halton_2xk(t[::-1]))
    assert np.isclose(p, freeman_halton_2xk(t[:, [2, 0, 1]]))
