"""Helpers shared by the analyses: a figure with its interval, as a dict."""

from __future__ import annotations

import numpy as np

from metaeval.stats.figure import figure
from metaeval.stats.intervals import ratio_interval, statistic_interval


def interval(statistic, clusters, rounds: int, seed: int, n: int, undefined: str) -> dict:
    """A statistic of row indices with its cluster-bootstrap CI (or none when rounds = 0)."""
    clusters = np.asarray(clusters)
    if rounds <= 0 or clusters.size == 0:
        value = statistic(np.arange(clusters.size)) if clusters.size else float("nan")
        return figure(value, n, undefined=undefined).as_dict()
    return statistic_interval(
        statistic, clusters, n_rounds=rounds, seed=seed, n=n, undefined=undefined
    ).as_dict()


def share(num, den, clusters, rounds: int, seed: int, undefined: str) -> dict:
    """Σ num / Σ den with its cluster-bootstrap CI (or none when rounds = 0)."""
    num = np.asarray(num, dtype=float)
    den = np.asarray(den, dtype=float)
    if rounds <= 0 or num.size == 0:
        total = den.sum()
        return figure(num.sum() / total if total > 0 else None, int((den > 0).sum()),
                      undefined=undefined).as_dict()  # fmt: skip
    return ratio_interval(num, den, clusters, n_rounds=rounds, seed=seed,
                          undefined=undefined).as_dict()  # fmt: skip
