"""Hypothesis strategies shared by the stats tests (no Django)."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

decision = st.sampled_from([-1, 0, 1])

# Scores on a coarse grid (quarters) produce many exact ties and repeated |differences|,
# the cases where calibration and tie handling can go wrong.
grid_score = st.integers(0, 8).map(lambda k: k / 4)
any_score = st.one_of(grid_score, st.floats(0, 1, allow_nan=False, width=32))


@st.composite
def judged_pairs(draw, min_size=0, max_size=40, score=any_score):
    """(human decisions, score_a, score_b) of equal length."""
    n = draw(st.integers(min_size, max_size))
    human = np.array(draw(st.lists(decision, min_size=n, max_size=n)), dtype=np.int8)
    a = np.array(draw(st.lists(score, min_size=n, max_size=n)), dtype=float)
    b = np.array(draw(st.lists(score, min_size=n, max_size=n)), dtype=float)
    return human, a, b


def decision_arrays(n_min=0, n_max=50):
    return st.integers(n_min, n_max).flatmap(
        lambda n: st.tuples(
            hnp.arrays(np.int8, n, elements=decision), hnp.arrays(np.int8, n, elements=decision)
        )
    )
