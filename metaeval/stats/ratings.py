"""Generalized 5-point ratings per system and their correlation with preference and with
the judge's metrics (seed 003 Fig. 9; METHODS §2.5).

Fig. 9 shows, per annotator, the four ratings (informativeness, background, organization,
flow) of each system: "each annotator calibrates what constitutes a good answer
differently". Here:

* mean rating per (system, dimension), and per (annotator, system, dimension): Σ x / n;
* correlation over reports, per dimension, of the report's mean rating with (a) its
  preference score — the mean medal value its annotators gave it (gold 1, silver ½,
  bronze 0) — and (b) each judge metric of the report: Pearson r and Spearman ρ, over the
  reports with both values; NaN (→ null) with fewer than 3 reports or a constant side.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class GroupMean(NamedTuple):
    keys: list  # tuples of group codes, sorted
    mean: np.ndarray
    n: np.ndarray


def group_means(values, *groups) -> GroupMean:
    """Mean of ``values`` per combination of group codes (NaN values ignored)."""
    v = np.asarray(values, dtype=float).ravel()
    ok = ~np.isnan(v)
    cols = [np.asarray(g).ravel()[ok] for g in groups]
    v = v[ok]
    if not cols:
        raise ValueError("at least one grouping")
    stacked = np.rec.fromarrays(cols) if v.size else None
    if stacked is None:
        return GroupMean([], np.empty(0), np.empty(0, dtype=int))
    keys, codes = np.unique(stacked, return_inverse=True)
    codes = codes.ravel()
    n = np.bincount(codes, minlength=keys.size)
    mean = np.bincount(codes, v, keys.size) / n
    return GroupMean([tuple(k.tolist()) for k in keys], mean, n)


class Correlation(NamedTuple):
    pearson: float
    spearman: float
    n: int


def correlation(x, y) -> Correlation:
    """Pearson r and Spearman ρ over rows where both are finite (NaN when undefined)."""
    a = np.asarray(x, dtype=float).ravel()
    b = np.asarray(y, dtype=float).ravel()
    ok = np.isfinite(a) & np.isfinite(b)
    a, b = a[ok], b[ok]
    n = int(a.size)
    if n < 3 or np.ptp(a) == 0 or np.ptp(b) == 0:
        return Correlation(float("nan"), float("nan"), n)
    from scipy.stats import pearsonr, spearmanr

    return Correlation(float(pearsonr(a, b).statistic), float(spearmanr(a, b).statistic), n)


def report_means(report, values) -> tuple[np.ndarray, np.ndarray]:
    """(sorted report codes, mean value per report) — e.g. mean rating or mean medal."""
    r = np.asarray(report).ravel()
    v = np.asarray(values, dtype=float).ravel()
    ok = ~np.isnan(v)
    keys, codes = np.unique(r[ok], return_inverse=True)
    n = np.bincount(codes, minlength=keys.size)
    return keys, np.bincount(codes, v[ok], keys.size) / np.maximum(n, 1)


def align(keys_a, values_a, keys_b, values_b) -> tuple[np.ndarray, np.ndarray]:
    """Values of two report-keyed vectors on their common keys (sorted)."""
    common, ia, ib = np.intersect1d(keys_a, keys_b, return_indices=True)
    return np.asarray(values_a, float)[ia], np.asarray(values_b, float)[ib]
