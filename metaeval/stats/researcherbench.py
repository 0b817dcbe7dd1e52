"""ResearcherBench binary rubric coverage (seed 004 §4.1 eq. 2, §4.3, Table 2; METHODS §4,
§7 "ResearcherBench binary").

* Coverage score of one report: S_c = Σ w_i·b_i / Σ w_i over its rubric items, b_i = 1 when
  item i is covered (eq. 2), w_i the item's weight (1–3).
* Judge vs human (the human's covered / not covered is the reference; 004 §4.3): accuracy,
  precision, recall and F1 = 2PR / (P + R) (:func:`.binary.binary_agreement`), unweighted
  and weighted by item weight — Table 2 "considers the assigned importance for each
  criterion" — and Cohen's κ of the two raters.

Check from the paper's own numbers: each row of Table 2 (and Table 9) has F1 = 2PR/(P+R)
of its printed P and R, to the two printed decimals (tests).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .binary import BinaryAgreement, binary_agreement
from .iaa import cohen_kappa


def f1_score(precision: float, recall: float) -> float:
    """F1 = 2PR / (P + R); NaN when P + R = 0 or either is NaN."""
    p, r = float(precision), float(recall)
    if np.isnan(p) or np.isnan(r) or p + r <= 0:
        return float("nan")
    return 2 * p * r / (p + r)


class ReportCoverage(NamedTuple):
    report: np.ndarray  # report codes, sorted
    score: np.ndarray  # S_c per report (NaN when Σ w = 0)
    n_items: np.ndarray  # labelled items per report


def coverage_scores(report, covered, weights=None) -> ReportCoverage:
    """S_c = Σ w·b / Σ w per report (rows: one (report, item) label; NaN labels ignored)."""
    rep = np.asarray(report).ravel()
    b = np.asarray(covered, dtype=float).ravel()
    w = np.ones_like(b) if weights is None else np.asarray(weights, dtype=float).ravel()
    if not (rep.shape == b.shape == w.shape):
        raise ValueError("report, covered and weights must have the same length")
    ok = ~np.isnan(b)
    keys, codes = np.unique(rep[ok], return_inverse=True)
    k = keys.size
    num = np.bincount(codes, w[ok] * b[ok], k)
    den = np.bincount(codes, w[ok], k)
    with np.errstate(invalid="ignore", divide="ignore"):
        score = np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)
    return ReportCoverage(keys, score, np.bincount(codes, minlength=k))


class BinaryJudgeAgreement(NamedTuple):
    unweighted: BinaryAgreement
    weighted: BinaryAgreement
    kappa: float  # Cohen's κ, human vs judge; NaN with a single category
    n: int


def binary_judge_agreement(human, judge, weights=None) -> BinaryJudgeAgreement:
    """Judge vs human on binary coverage; NaN on either side ('unknown') is excluded."""
    h = np.asarray(human, dtype=float).ravel()
    j = np.asarray(judge, dtype=float).ravel()
    w = np.ones_like(h) if weights is None else np.asarray(weights, dtype=float).ravel()
    ok = ~(np.isnan(h) | np.isnan(j))
    h, j, w = h[ok], j[ok], w[ok]
    unweighted = binary_agreement(h, j)
    weighted = binary_agreement(h, j, weights=w)
    kappa = cohen_kappa(np.stack((h, j), axis=1)).value if h.size else float("nan")
    return BinaryJudgeAgreement(unweighted, weighted, kappa, int(h.size))
