"""Agreement between human and judge decisions, with explicit tie strategies.

METHODS §5 "Agreement", pooled over human judgments: the share of judgments whose
judge decision equals the human decision. How ties are treated matters a great deal
(seed 003 footnote 7: IAA 55.0 % strict vs 82.9 % with half credit), so the strategy is
an argument, never implicit:

* ``threshold``: the judge decisions are thresholded (calibrated ``t``); ties are a
  class like any other. This equals acc_eq of Deutsch et al. (2023).
* ``partial``: judge ties only on exact score equality (``t = 0``); credit 1 for equal
  decisions, ½ where exactly one side ties, 0 for opposite decisions.
* ``exclude``: judgments with a human tie are dropped; the rest scored strictly.

NaN policy: decisions cannot be NaN (:func:`~metaeval.stats.decisions.as_decisions`
raises). Empty input (or nothing left after ``exclude``) gives ``value = NaN, n = 0``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .decisions import as_decisions, score_decisions
from .kendall import PairCounts, pair_counts

TIE_STRATEGIES = ("threshold", "partial", "exclude")


class AgreementResult(NamedTuple):
    """Agreement ``value`` in [0, 1] (NaN if undefined) over ``n`` judgments."""

    value: float
    n: int


def credit(human, judge) -> np.ndarray:
    """Per-judgment half credit: 1 equal, ½ exactly one side ties, 0 opposite.

    The ``partial`` strategy and the half-credit IAA (METHODS §5) both use it.
    """
    h = as_decisions(human)
    m = as_decisions(judge)
    if h.shape != m.shape:
        raise ValueError(f"shapes differ ({h.shape} vs {m.shape})")
    return np.where(h == m, 1.0, np.where((h == 0) ^ (m == 0), 0.5, 0.0))


def agreement(human, judge, ties: str = "threshold") -> AgreementResult:
    """Pooled agreement of ``judge`` with ``human`` decisions under tie strategy ``ties``.

    ``judge`` must be the decisions the strategy presupposes: thresholded at the
    calibrated ``t`` for ``threshold`` and ``exclude``; at ``t = 0`` (exact equality) for
    ``partial``. :func:`agreement_from_scores` builds the right ones from scores, and is
    the safer entry point.
    """
    h = as_decisions(human).ravel()
    m = as_decisions(judge).ravel()
    if h.shape != m.shape:
        raise ValueError(f"human and judge lengths differ ({h.size} vs {m.size})")
    if ties == "threshold":
        keep = slice(None)
        values = (h == m).astype(float)
    elif ties == "partial":
        keep = slice(None)
        values = credit(h, m)
    elif ties == "exclude":
        keep = h != 0
        values = (h == m).astype(float)
    else:
        raise ValueError(f"unknown tie strategy {ties!r}; expected one of {TIE_STRATEGIES}")
    values = values[keep]
    if values.size == 0:
        return AgreementResult(float("nan"), 0)
    return AgreementResult(float(values.mean()), int(values.size))


def agreement_from_scores(
    human, score_a, score_b, threshold: float = 0.0, ties: str = "threshold"
) -> AgreementResult:
    """Agreement from judge scores: decides at ``threshold`` (or at 0 for ``partial``)."""
    t = 0.0 if ties == "partial" else threshold
    return agreement(human, score_decisions(score_a, score_b, t), ties=ties)


def acc_eq_from_counts(c: PairCounts) -> float:
    """acc_eq = (C + T_hm) / (C + D + T_h + T_m + T_hm); NaN if empty."""
    return float((c.concordant + c.joint_ties) / c.n) if c.n else float("nan")


def tau_eq_from_counts(c: PairCounts) -> float:
    """τ_eq = (C + T_hm − D − T_h − T_m) / (C + D + T_h + T_m + T_hm); NaN if empty."""
    if not c.n:
        return float("nan")
    num = c.concordant + c.joint_ties - c.discordant - c.human_ties - c.judge_ties
    return float(num / c.n)


def acc_eq(human, judge) -> float:
    """Pairwise accuracy with ties as a class (Deutsch, Foster & Freitag 2023, §4).

    "Ties Matter" (arXiv:2305.14324) eq. acc_eq = (C + T_hm) / (C + D + T_h + T_m + T_hm)
    where T_h / T_m are ties of the human / metric only and T_hm joint ties; the
    mt-metrics-eval ``KendallVariants(variant='acc23')`` formula. With one pair per
    judgment it is exactly the ``threshold`` agreement.
    """
    return acc_eq_from_counts(pair_counts(human, judge))


def tau_eq(human, judge) -> float:
    """τ_eq (Deutsch et al. 2023; mt-metrics-eval ``variant='23'``).

    τ_eq = (C + T_hm − D − T_h − T_m) / (C + D + T_h + T_m + T_hm): agreements (including
    joint ties) minus disagreements (including one-sided ties), over all pairs. Since the
    denominator counts every pair, ``tau_eq = 2·acc_eq − 1``.
    """
    return tau_eq_from_counts(pair_counts(human, judge))
