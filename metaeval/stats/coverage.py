"""Rubric-coverage alignment between judge and human 0–4 labels.

Labels: 0 Not at all · 1 Barely · 2 Moderately · 3 Mostly · 4 Completely (METHODS §2.3;
ResearchQA §3.3, Figure 11 confusion matrices). Coverage % = mean(label)/4·100
(METHODS §3, §4).

NaN policy: items where either side is NaN are dropped (``nan_policy="omit"``, the
default, because missing coverage labels are routine) or refused (``"raise"``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

LEVELS = np.arange(5)
COMPLETELY = 4


class CoverageAlignment(NamedTuple):
    pearson: float  # NaN when either side is constant
    mean_difference: float  # mean(judge − human), in label points
    confusion: np.ndarray  # 5 × 5, rows human label, columns judge label
    human_complete: float  # share of human labels that are 4 (Completely)
    judge_complete: float  # share of judge labels that are 4
    n: int


def coverage_percent(labels) -> float:
    """Coverage % = mean(label) / 4 · 100 over non-NaN labels; NaN if none."""
    x = np.asarray(labels, dtype=float).ravel()
    x = x[~np.isnan(x)]
    return float(x.mean() / 4 * 100) if x.size else float("nan")


def coverage_alignment(human, judge, nan_policy: str = "omit") -> CoverageAlignment:
    """Pearson r, mean difference, 5×5 confusion matrix and share of "Completely"."""
    h = np.asarray(human, dtype=float).ravel()
    j = np.asarray(judge, dtype=float).ravel()
    if h.shape != j.shape:
        raise ValueError("human and judge must have the same length")
    missing = np.isnan(h) | np.isnan(j)
    if missing.any():
        if nan_policy == "raise":
            raise ValueError("NaN labels; pass nan_policy='omit' to drop them")
        if nan_policy != "omit":
            raise ValueError("nan_policy must be 'omit' or 'raise'")
        h, j = h[~missing], j[~missing]
    if not (np.isin(h, LEVELS).all() and np.isin(j, LEVELS).all()):
        raise ValueError("coverage labels must be integers 0–4")
    confusion = np.zeros((5, 5), dtype=np.int64)
    np.add.at(confusion, (h.astype(int), j.astype(int)), 1)
    if h.size == 0:
        nan = float("nan")
        return CoverageAlignment(nan, nan, confusion, nan, nan, 0)
    if h.size >= 2 and np.ptp(h) > 0 and np.ptp(j) > 0:
        import scipy.stats  # here: importing it costs ~1 s to commands that never get here

        r = float(scipy.stats.pearsonr(h, j).statistic)
    else:
        r = float("nan")
    return CoverageAlignment(
        pearson=r,
        mean_difference=float(np.mean(j - h)),
        confusion=confusion,
        human_complete=float(np.mean(h == COMPLETELY)),
        judge_complete=float(np.mean(j == COMPLETELY)),
        n=int(h.size),
    )
