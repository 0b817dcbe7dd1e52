"""Pairwise decisions: the unit every agreement statistic compares.

A *decision* about a comparison (question, system A, system B) is an int8 in
{+1 (A better), 0 (tie), -1 (B better)} (METHODS §5 "Comparison"). Humans give one
directly (preference, or a medal ranking decomposed by transitivity); a judge's decision
is derived from its two scores with a tie threshold (METHODS §5 "Judge decision").

NaN policy: a decision cannot be NaN, so the functions that build decisions from numbers
raise ``ValueError`` on NaN input instead of guessing; mask missing values first (e.g.
``np.isfinite(a) & np.isfinite(b)``). Empty inputs give empty outputs.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from itertools import combinations

import numpy as np

#: Medal values (ScholarQA-CS2, seed 003 §A.2; METHODS §2.4).
MEDAL_VALUES: dict[str, float] = {"gold": 1.0, "silver": 0.5, "bronze": 0.0}

A_BETTER, TIE, B_BETTER = 1, 0, -1


def as_decisions(decisions) -> np.ndarray:
    """Validate and return ``decisions`` as an int8 array in {-1, 0, +1}.

    Raises ``ValueError`` for NaN or any other value, because a silently coerced
    decision would change every statistic computed from it.
    """
    arr = np.asarray(decisions)
    if arr.dtype.kind == "f":
        if np.isnan(arr).any():
            raise ValueError("decisions contain NaN; mask missing judgments first")
        if not np.all(arr == np.round(arr)):
            raise ValueError("decisions must be integers in {-1, 0, +1}")
    elif arr.dtype.kind not in "iub" and arr.size:
        raise ValueError(f"decisions must be numeric, got dtype {arr.dtype}")
    out = arr.astype(np.int8)
    if out.size and (out.min() < -1 or out.max() > 1):
        raise ValueError("decisions must be in {-1, 0, +1}")
    return out


def _finite_pair(score_a, score_b, what: str) -> tuple[np.ndarray, np.ndarray]:
    a = np.asarray(score_a, dtype=float)
    b = np.asarray(score_b, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"{what}: shapes differ ({a.shape} vs {b.shape})")
    if np.isnan(a).any() or np.isnan(b).any():
        raise ValueError(f"{what}: NaN input; mask missing values before deciding")
    return a, b


def score_decisions(score_a, score_b, threshold: float = 0.0) -> np.ndarray:
    """Judge decisions from two score columns at tie threshold ``threshold``.

    ``d = 0 if |s_A - s_B| <= t else sign(s_A - s_B)`` (METHODS §5 "Judge decision";
    seed 003 §A.3). The comparison is ``<=`` so that ``t = 0`` ties exactly equal scores
    and a calibrated ``t`` equal to some pair's |difference| ties that pair, matching
    how :mod:`metaeval.stats.calibration` counts judge ties.

    Because IEEE subtraction is sign-symmetric (``a - b == -(b - a)`` exactly), swapping
    the columns negates every decision exactly.
    """
    t = float(threshold)
    if not t >= 0.0:  # also catches NaN
        raise ValueError(f"threshold must be a non-negative number, got {threshold!r}")
    a, b = _finite_pair(score_a, score_b, "score_decisions")
    diff = a - b
    out = np.sign(diff).astype(np.int8)
    out[np.abs(diff) <= t] = 0
    return out


def medal_decisions(medal_a, medal_b) -> np.ndarray:
    """Human decisions from medal values: ``sign(medal_A - medal_B)``.

    Medals are gold 1.0, silver 0.5, bronze 0.0 (seed 003 §A.2, METHODS §2.4); equal
    medals are a human tie, so no threshold applies (exact values).
    """
    a, b = _finite_pair(medal_a, medal_b, "medal_decisions")
    return np.sign(a - b).astype(np.int8)


def ranking_to_pairs(
    medals: Mapping[Hashable, float],
) -> list[tuple[Hashable, Hashable, int]]:
    """Decompose a medal ranking into its pairwise decisions by transitivity.

    Seed 003 §A.1 / Figure 5: a 3-way ranking of reports A, B, C yields (A, B), (A, C),
    (B, C), each with a winner or a tie. Keys are emitted in canonical (sorted) order,
    ``key_a < key_b``, so that the decision is oriented like every other array
    (METHODS §5 "Comparison"): ``+1`` means ``key_a``'s medal is higher. Rankings are
    normally 2–3 items; longer ones decompose the same way (all ``n(n-1)/2`` pairs).
    Values may be medal names (``"gold"``) or numbers.
    """
    if len(medals) < 2:
        raise ValueError("a ranking needs at least two items")
    values = {}
    for key, value in medals.items():
        v = MEDAL_VALUES[value] if isinstance(value, str) else float(value)
        if np.isnan(v):
            raise ValueError(f"ranking_to_pairs: medal of {key!r} is NaN")
        values[key] = v
    keys = sorted(values)
    return [(ka, kb, int(np.sign(values[ka] - values[kb]))) for ka, kb in combinations(keys, 2)]


def orient(decisions, flip_mask) -> np.ndarray:
    """Return ``decisions`` with the sign flipped where ``flip_mask`` is true.

    Use it to bring decisions recorded in display order (left/right) into canonical
    order, or to test orientation invariance.
    """
    d = as_decisions(decisions)
    flip = np.asarray(flip_mask, dtype=bool)
    return np.where(flip, -d, d).astype(np.int8)


def tie_rate(decisions) -> float:
    """Share of ties among ``decisions``; NaN for an empty input.

    The target of match-rate calibration when applied to human decisions (METHODS §5).
    """
    d = as_decisions(decisions)
    return float(np.mean(d == 0)) if d.size else float("nan")
