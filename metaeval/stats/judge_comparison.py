"""Is judge A's agreement with the experts higher than judge B's? (METHODS §5
"Uncertainty", issue 16 "Across judges").

Works on any per-unit agreement vector (1 agree / 0 not, footnote-6 credit, |h − j| …):
the two judges' vectors are aligned on the units both judged (NaN = not judged, dropped on
both sides), summed per question, and compared with the paired permutation test of
:func:`.bootstrap.paired_permutation_test`: under H0 the two judges are exchangeable on
each question, so each round swaps their per-question sums with probability ½ and
recomputes Δ = pooled mean(A) − pooled mean(B), pooled = Σ credit / Σ units. Two-sided p
(exact when the 2^K swaps are no more than the rounds).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .bootstrap import cluster_sums, paired_permutation_test


class JudgeDifference(NamedTuple):
    agreement_a: float
    agreement_b: float
    difference: float  # a − b
    pvalue: float  # NaN with no common unit
    n_units: int
    n_clusters: int
    exact: bool


def _pooled(t):
    t = np.asarray(t, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(t[..., 1] > 0, t[..., 0] / np.where(t[..., 1] > 0, t[..., 1], 1), np.nan)


def compare_judges(
    credit_a, credit_b, clusters, n_rounds: int = 10_000, seed: int = 0
) -> JudgeDifference:
    """Paired permutation test between two judges' per-unit agreement (module docstring)."""
    a = np.asarray(credit_a, dtype=float).ravel()
    b = np.asarray(credit_b, dtype=float).ravel()
    c = np.asarray(clusters).ravel()
    if not (a.shape == b.shape == c.shape):
        raise ValueError("credit_a, credit_b and clusters must be aligned on the same units")
    ok = ~(np.isnan(a) | np.isnan(b))
    a, b, c = a[ok], b[ok], c[ok]
    nan = float("nan")
    if a.size == 0:
        return JudgeDifference(nan, nan, nan, nan, 0, 0, False)
    ones = np.ones_like(a)
    sa, _ = cluster_sums(c, np.stack((a, ones), axis=1))
    sb, _ = cluster_sums(c, np.stack((b, ones), axis=1))
    res = paired_permutation_test(sa, sb, n_rounds=n_rounds, seed=seed, statistic=_pooled)
    return JudgeDifference(float(a.mean()), float(b.mean()), res.difference, res.pvalue,
                           int(a.size), res.n_clusters, res.exact)  # fmt: skip
