"""The vectorised τ-b used by the system-level bootstrap equals scipy's, row by row."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import kendalltau

from metaeval.stats.system import tau_b_rows

values = st.lists(st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]), min_size=6, max_size=6)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(values, values), min_size=1, max_size=8))
def test_equals_scipy_kendalltau_b_per_row(rows):
    x = np.array([r[0] for r in rows])
    y = np.array([r[1] for r in rows])
    got = tau_b_rows(x, y)
    for k in range(len(rows)):
        want = kendalltau(x[k], y[k], variant="b").statistic
        if np.isnan(want):
            assert np.isnan(got[k])
        else:
            assert got[k] == np.float64(want) or abs(got[k] - want) < 1e-12


def test_nan_columns_are_left_out_of_their_row():
    x = np.array([[0.1, 0.5, np.nan, 0.9]])
    y = np.array([[0.2, 0.1, 0.3, 0.8]])
    want = kendalltau([0.1, 0.5, 0.9], [0.2, 0.1, 0.8]).statistic
    assert abs(tau_b_rows(x, y)[0] - want) < 1e-12
