"""Tie-threshold calibration for judge scores.

Human judgments contain ties; judge scores are continuous. A judge decision ties when
``|s_A - s_B| <= t`` (METHODS §5 "Judge decision"); this module chooses ``t``.

* ``match_rate`` (default; seed 003 §A.3, METHODS §5 "Tie calibration"): the ``t`` whose
  judge tie rate is closest to the human tie rate of the judgments analysed, the smallest
  ``t`` on equal distance.
* ``max_accuracy`` (Deutsch, Foster & Freitag 2023, "Ties Matter: Meta-Evaluating Modern
  Metrics with Pairwise Accuracy and Tie Calibration", arXiv:2305.14324, §5): the ``t``
  that maximises agreement (their acc_eq), the smallest on equal.

Both are exact: the candidates are ``{0} ∪ {every distinct |s_A - s_B|}``, which is
sufficient because judge decisions only change when ``t`` crosses one of those values,
so every ``t >= 0`` behaves exactly like the largest candidate ``<= t``. Both run in
O(n log n) (a sort plus ``searchsorted``/cumulative sums). An explicit ``candidates``
grid is accepted for the ScholarQA-CS2 compatibility mode (METHODS §6.2).

NaN policy: NaN scores raise ``ValueError`` (mask them first). An empty input returns a
:class:`Calibration` with ``threshold = NaN`` and ``n = 0``;
:func:`metaeval.stats.decisions.score_decisions` refuses a NaN threshold, so an empty
calibration cannot silently produce decisions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .decisions import as_decisions, tie_rate

MATCH_RATE = "match_rate"
MAX_ACCURACY = "max_accuracy"
METHODS = (MATCH_RATE, MAX_ACCURACY)


@dataclass(frozen=True)
class Calibration:
    """A calibrated tie threshold and the figures that justify it.

    ``target_tie_rate`` is the human tie rate matched (NaN for ``max_accuracy``);
    ``agreement`` is the agreement reached at ``threshold`` (NaN for ``match_rate``,
    which does not look at the human decisions one by one); ``n`` is the number of
    judgments the threshold was fitted on.
    """

    threshold: float
    judge_tie_rate: float
    target_tie_rate: float
    method: str
    n: int
    agreement: float = float("nan")


def _abs_diffs(abs_diffs) -> np.ndarray:
    u = np.asarray(abs_diffs, dtype=float).ravel()
    if np.isnan(u).any():
        raise ValueError("abs_diffs contain NaN; mask missing scores first")
    if (u < 0).any():
        raise ValueError("abs_diffs must be non-negative (pass |s_A - s_B|)")
    return u


def _candidates(u: np.ndarray, candidates) -> np.ndarray:
    if candidates is None:
        return candidate_thresholds(u)
    c = np.asarray(candidates, dtype=float).ravel()
    if c.size == 0 or np.isnan(c).any() or (c < 0).any():
        raise ValueError("candidates must be a non-empty grid of non-negative numbers")
    return np.unique(c)  # sorted ascending: "smallest on equal" = first optimum


def candidate_thresholds(abs_diffs) -> np.ndarray:
    """``{0} ∪ {distinct |s_A - s_B|}``, sorted ascending (METHODS §5).

    Judge decisions are a step function of ``t`` that changes only at these values,
    so searching them is the same as searching every ``t >= 0``.
    """
    u = _abs_diffs(abs_diffs)
    return np.unique(np.concatenate(([0.0], u)))


def judge_tie_rates(abs_diffs, thresholds) -> np.ndarray:
    """Judge tie rate ``mean(|d| <= t)`` at each threshold, in O((n + k) log n).

    Sorting the differences once and ``searchsorted(..., side="right")`` counts the
    pairs with ``|d| <= t`` for every ``t`` at once. NaN for every ``t`` if empty.
    """
    u = np.sort(_abs_diffs(abs_diffs))
    t = np.asarray(thresholds, dtype=float)
    if u.size == 0:
        return np.full(t.shape, np.nan)
    return np.searchsorted(u, t, side="right") / u.size


def calibrate_match_rate(
    abs_diffs, target_tie_rate: float, candidates=None, *, tol: float = 1e-12
) -> Calibration:
    """Threshold whose judge tie rate is closest to ``target_tie_rate`` (seed 003 §A.3).

    "We choose the threshold that yields a proportion of model ties closest to the
    observed proportion of human ties. If multiple thresholds achieve the same match,
    we select the smaller threshold value." Distances within ``tol`` of the best count
    as equal: tie rates are ratios ``k/n`` and in floating point two mathematically equal
    distances (e.g. 0.2 and 0.4 from 0.3) can differ in the last bit; distinct distances
    differ by at least ``1/(n·m)`` for ``n`` judge and ``m`` human judgments, far above
    the default ``tol`` for any realistic size. Pass ``tol=0`` to compare raw floats.
    """
    u = _abs_diffs(abs_diffs)
    target = float(target_tie_rate)
    if u.size == 0 or np.isnan(target):
        return Calibration(float("nan"), float("nan"), target, MATCH_RATE, int(u.size))
    cand = _candidates(u, candidates)
    rates = judge_tie_rates(u, cand)
    dist = np.abs(rates - target)
    i = int(np.flatnonzero(dist <= dist.min() + tol)[0])
    return Calibration(float(cand[i]), float(rates[i]), target, MATCH_RATE, int(u.size))


def agreement_curve(human, score_a, score_b, thresholds) -> np.ndarray:
    """Number of judgments whose judge decision at ``t`` equals the human one, per ``t``.

    Sweep: at ``t`` below every |d| each judge decision is ``sign(d)``; as ``t`` passes
    ``|d_i|`` judgment ``i`` switches to a tie, changing the agreement count by
    ``δ_i = [h_i = 0] − [h_i = sign(d_i)]``. So
    ``agree(t) = Σ_i [h_i = sign(d_i)] + Σ_{i: |d_i| <= t} δ_i``, a cumulative sum over
    the judgments sorted by |d| read with ``searchsorted`` — O(n log n) in total.
    (For ``d_i = 0`` both terms coincide, as they should.)
    """
    h = as_decisions(human).ravel()
    a = np.asarray(score_a, dtype=float).ravel()
    b = np.asarray(score_b, dtype=float).ravel()
    if not (h.shape == a.shape == b.shape):
        raise ValueError("human, score_a and score_b must have the same length")
    if np.isnan(a).any() or np.isnan(b).any():
        raise ValueError("scores contain NaN; mask missing scores first")
    d = a - b
    s = np.sign(d).astype(np.int8)
    u = np.abs(d)
    base = int(np.sum(h == s))
    delta = (h == 0).astype(np.int64) - (h == s).astype(np.int64)
    order = np.argsort(u, kind="stable")
    cum = np.concatenate(([0], np.cumsum(delta[order])))
    k = np.searchsorted(u[order], np.asarray(thresholds, dtype=float), side="right")
    return base + cum[k]


def calibrate_max_accuracy(human, score_a, score_b, candidates=None) -> Calibration:
    """Threshold maximising agreement with ``human`` (Deutsch et al. 2023, §5).

    Exact over all candidates via :func:`agreement_curve` (integer counts, so "smallest
    on equal" needs no tolerance). This is the tie calibration of "Ties Matter"; our
    threshold agreement is their acc_eq when each judgment is one pair.
    """
    h = as_decisions(human).ravel()
    a = np.asarray(score_a, dtype=float).ravel()
    b = np.asarray(score_b, dtype=float).ravel()
    if h.size == 0:
        return Calibration(float("nan"), float("nan"), float("nan"), MAX_ACCURACY, 0)
    u = _abs_diffs(np.abs(a - b))
    cand = _candidates(u, candidates)
    agree = agreement_curve(h, a, b, cand)
    i = int(np.argmax(agree))  # argmax returns the first maximum = smallest t
    rate = float(np.mean(u <= cand[i]))
    return Calibration(
        float(cand[i]), rate, float("nan"), MAX_ACCURACY, int(h.size), float(agree[i] / h.size)
    )


def calibrate(human, score_a, score_b, method: str = MATCH_RATE, candidates=None) -> Calibration:
    """Calibrate a threshold for ``score_a``/``score_b`` against ``human`` decisions.

    ``match_rate`` targets the tie rate of ``human`` pooled over the same judgments
    (METHODS §5); ``max_accuracy`` maximises agreement with them.
    """
    if method == MATCH_RATE:
        h = as_decisions(human).ravel()
        a = np.asarray(score_a, dtype=float).ravel()
        b = np.asarray(score_b, dtype=float).ravel()
        if not (h.shape == a.shape == b.shape):
            raise ValueError("human, score_a and score_b must have the same length")
        return calibrate_match_rate(np.abs(a - b), tie_rate(h), candidates)
    if method == MAX_ACCURACY:
        return calibrate_max_accuracy(human, score_a, score_b, candidates)
    raise ValueError(f"unknown calibration method {method!r}; expected one of {METHODS}")


def cross_fit(
    human,
    score_a,
    score_b,
    fit_mask,
    method: str = MATCH_RATE,
    candidates=None,
) -> Calibration:
    """Calibrate on the judgments selected by ``fit_mask`` only (METHODS §5).

    The cross-fitted option: fit the threshold on one split (e.g. dev) and apply
    ``result.threshold`` with :func:`~metaeval.stats.decisions.score_decisions` to
    another (e.g. test), so the threshold is not tuned on the data it is scored on.
    """
    m = np.asarray(fit_mask, dtype=bool)
    return calibrate(
        np.asarray(human)[m],
        np.asarray(score_a)[m],
        np.asarray(score_b)[m],
        method=method,
        candidates=candidates,
    )
