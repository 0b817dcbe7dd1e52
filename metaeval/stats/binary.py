"""Binary judge vs human verdicts (ResearcherBench, seed 004 Table 2; METHODS §5).

The human verdict is the reference; "positive" is 1 (e.g. rubric item covered, claim
supported). With weights ``w`` (ResearcherBench rubric weights 1–3) every count is a sum
of weights:

    accuracy  = Σ w·[j = h] / Σ w
    precision = Σ w·[j = 1 ∧ h = 1] / Σ w·[j = 1]
    recall    = Σ w·[j = 1 ∧ h = 1] / Σ w·[h = 1]
    F1        = 2·P·R / (P + R)

NaN policy: ``nan_policy="raise"`` (default) refuses NaN verdicts; ``"omit"`` drops the
items where either side is NaN, the ResearcherBench rule that 'unknown' verdicts are
excluded (METHODS §4). A ratio with a zero denominator is NaN, not 0.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class BinaryAgreement(NamedTuple):
    accuracy: float
    precision: float
    recall: float
    f1: float
    n: int  # items used
    weight: float  # Σ w over the items used (= n when unweighted)


def _ratio(num: float, den: float) -> float:
    return float(num / den) if den > 0 else float("nan")


def binary_agreement(human, judge, weights=None, nan_policy: str = "raise") -> BinaryAgreement:
    """Accuracy, precision, recall and F1 of ``judge`` against ``human`` (0/1 arrays)."""
    h = np.asarray(human, dtype=float).ravel()
    j = np.asarray(judge, dtype=float).ravel()
    w = np.ones_like(h) if weights is None else np.asarray(weights, dtype=float).ravel()
    if not (h.shape == j.shape == w.shape):
        raise ValueError("human, judge and weights must have the same length")
    missing = np.isnan(h) | np.isnan(j)
    if missing.any():
        if nan_policy == "raise":
            raise ValueError("NaN verdicts; pass nan_policy='omit' to exclude them")
        if nan_policy != "omit":
            raise ValueError("nan_policy must be 'raise' or 'omit'")
        h, j, w = h[~missing], j[~missing], w[~missing]
    if not np.isin(h, (0.0, 1.0)).all() or not np.isin(j, (0.0, 1.0)).all():
        raise ValueError("verdicts must be 0 or 1")
    if np.isnan(w).any() or (w < 0).any():
        raise ValueError("weights must be non-negative numbers")
    tp = float(w[(j == 1) & (h == 1)].sum())
    precision = _ratio(tp, w[j == 1].sum())
    recall = _ratio(tp, w[h == 1].sum())
    f1 = (
        2 * precision * recall / (precision + recall)
        if not np.isnan(precision) and not np.isnan(recall) and precision + recall > 0
        else float("nan")
    )
    return BinaryAgreement(
        accuracy=_ratio(w[j == h].sum(), w.sum()),
        precision=precision,
        recall=recall,
        f1=float(f1),
        n=int(h.size),
        weight=float(w.sum()),
    )
