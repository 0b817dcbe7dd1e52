"""Cross-judge correlation and per-annotator alignment (METHODS §5 "Views").

* Cross-judge Pearson matrix (seed 003 Fig. 10): how similarly judges score the same
  reports, over aligned score vectors.
* Per-annotator alignment (seed 003 Fig. 3, 4): agreement and τ-b of the judge with
  each annotator's own judgments.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

import numpy as np

from .agreement import agreement
from .kendall import tau_b_decisions


class CorrelationMatrix(NamedTuple):
    names: list
    r: np.ndarray  # k × k Pearson r, NaN where undefined
    n: np.ndarray  # k × k number of rows where both judges have a score


def pearson_matrix(scores: Mapping[str, np.ndarray]) -> CorrelationMatrix:
    """Pearson r between every two judges' scores, over pairwise-complete rows.

    ``scores`` maps judge name → score vector, all aligned on the same reports (NaN =
    not scored). Each cell uses the rows both judges scored (pairwise deletion, said
    here because listwise deletion would give other numbers); NaN with fewer than two
    such rows or a constant vector.
    """
    names = list(scores)
    vectors = [np.asarray(scores[k], dtype=float).ravel() for k in names]
    if len({v.size for v in vectors}) > 1:
        raise ValueError("score vectors must have the same length (aligned reports)")
    x = np.array(vectors)
    k = len(names)
    r = np.full((k, k), np.nan)
    n = np.zeros((k, k), dtype=int)
    for i in range(k):
        for j in range(i, k):
            ok = np.isfinite(x[i]) & np.isfinite(x[j])
            n[i, j] = n[j, i] = int(ok.sum())
            xi, xj = x[i][ok], x[j][ok]
            if ok.sum() >= 2 and np.ptp(xi) > 0 and np.ptp(xj) > 0:
                r[i, j] = r[j, i] = float(np.corrcoef(xi, xj)[0, 1])
    return CorrelationMatrix(names, r, n)


class AnnotatorAlignment(NamedTuple):
    annotator: int
    agreement: float
    tau_b: float
    n: int


def per_annotator_alignment(
    annotator, human, judge, ties: str = "threshold"
) -> list[AnnotatorAlignment]:
    """Agreement (strategy ``ties``) and τ-b over decisions, per annotator code.

    ``annotator`` holds each judgment's annotator code; ``human`` / ``judge`` are the
    decisions (judge decisions as the strategy presupposes, see
    :func:`metaeval.stats.agreement.agreement`). Sorted by annotator code.
    """
    codes = np.asarray(annotator).ravel()
    h = np.asarray(human).ravel()
    m = np.asarray(judge).ravel()
    if not (codes.shape == h.shape == m.shape):
        raise ValueError("annotator, human and judge must have the same length")
    out = []
    for code in np.unique(codes):
        sel = codes == code
        res = agreement(h[sel], m[sel], ties=ties)
        out.append(
            AnnotatorAlignment(
                code.item(), res.value, tau_b_decisions(h[sel], m[sel]), int(sel.sum())
            )
        )
    return out
