"""Cluster-bootstrap intervals over questions for every figure of the analyses (METHODS §5
"Uncertainty", §7), on top of :mod:`.bootstrap`.

Two shapes cover every figure of issue 16:

* a *pooled ratio* Σ num / Σ den over units (agreement = Σ credit / Σ 1, weighted precision
  = Σ w·[tp] / Σ w·[j=1], a mean rating = Σ x / Σ 1 …): :func:`ratio_interval` uses the fast
  path (:func:`.bootstrap.bootstrap_from_cluster_sums`), since each round is a weighted sum
  of per-question totals;
* anything else (κ, Pearson, α, a majority vote recomputed per round):
  :func:`statistic_interval` resamples the questions and calls the statistic on the rows of
  the resample (:func:`.bootstrap.cluster_bootstrap`).

Both return a :class:`.figure.Figure`: the estimate on all data, the percentile interval,
and a note (instead of an interval) with fewer than two questions.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .bootstrap import (
    MIN_CLUSTERS,
    bootstrap_from_cluster_sums,
    cluster_bootstrap,
    cluster_sums,
)
from .figure import Figure, figure, with_interval

DEFAULT_ROUNDS = 1000


def _ratio(t: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(t[..., 1] > 0, t[..., 0] / np.where(t[..., 1] > 0, t[..., 1], 1), np.nan)


def ratio_interval(
    numerator,
    denominator,
    clusters,
    n_rounds: int = DEFAULT_ROUNDS,
    seed: int = 0,
    alpha: float = 0.05,
    undefined: str = "No unit to compute it on.",
) -> Figure:
    """Σ numerator / Σ denominator with a percentile CI resampling whole questions.

    Rows are units (one per label, item or pair), ``clusters`` their question. The figure's
    ``n`` is the number of rows with a positive denominator.
    """
    num = np.asarray(numerator, dtype=float).ravel()
    den = np.asarray(denominator, dtype=float).ravel()
    if not (num.shape == den.shape == np.shape(np.asarray(clusters).ravel())):
        raise ValueError("numerator, denominator and clusters must have the same length")
    n = int((den > 0).sum())
    if num.size == 0:
        return figure(None, 0, undefined=undefined)
    sums, _ = cluster_sums(clusters, np.stack((num, den), axis=1))
    counted = sums[:, 1] > 0
    if counted.sum() < MIN_CLUSTERS:
        # A question none of whose units counts (ResearchQA: a comparison only a judge
        # verdict reached) adds nothing to either sum: the figure rests on the questions
        # that count, and one question gives no interval, as elsewhere ("1 question").
        sums = sums[counted]
    res = bootstrap_from_cluster_sums(sums, _ratio, n_rounds=n_rounds, seed=seed, alpha=alpha)
    return with_interval(figure(res.estimate, n, undefined=undefined), res.low, res.high, res.note)


def mean_interval(values, clusters, **kwargs) -> Figure:
    """Mean of ``values`` (NaN rows left out) with its cluster-bootstrap CI."""
    v = np.asarray(values, dtype=float).ravel()
    ok = np.isfinite(v)
    return ratio_interval(np.where(ok, v, 0.0), ok.astype(float), clusters, **kwargs)


def statistic_interval(
    statistic: Callable[[np.ndarray], float],
    clusters,
    n_rounds: int = DEFAULT_ROUNDS,
    seed: int = 0,
    alpha: float = 0.05,
    n: int | None = None,
    undefined: str = "Not defined on this selection.",
) -> Figure:
    """Any scalar ``statistic(rows)`` of row indices, with a cluster-bootstrap CI.

    Rounds whose statistic is undefined (NaN, e.g. κ of a resample with one category) are
    left out of the interval, as :mod:`.bootstrap` does.
    """
    c = np.asarray(clusters).ravel()
    if c.size == 0:
        return figure(None, 0, undefined=undefined)

    def safe(rows):
        v = statistic(rows)
        return float("nan") if v is None else float(v)

    res = cluster_bootstrap(safe, c, n_rounds=n_rounds, seed=seed, alpha=alpha)
    fig = figure(res.estimate, c.size if n is None else n, undefined=undefined)
    return with_interval(fig, res.low, res.high, res.note)
