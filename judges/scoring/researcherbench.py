"""ResearcherBench's rubric and factual scores (seed 004 §4.1–4.2; METHODS §4)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

SUPPORTED, UNSUPPORTED, UNKNOWN = "supported", "unsupported", "unknown"


def weighted_coverage(weights: Sequence[float], covered: Sequence[bool]) -> float:
    """S_c = Σ wᵢ·bᵢ / Σ wᵢ (seed 004 eq. 2), wᵢ ∈ {1, 2, 3}, bᵢ = 1 if criterion i is covered.

    Criteria whose verdict is unknown (``None``) are excluded (METHODS §4).
    """
    if len(weights) != len(covered):
        raise ValueError("one weight per criterion")
    pairs = [(float(w), bool(b)) for w, b in zip(weights, covered, strict=True) if b is not None]
    if any(w <= 0 for w, _ in pairs):
        raise ValueError("criterion weights must be positive")
    total = math.fsum(w for w, _ in pairs)
    return math.fsum(w for w, b in pairs if b) / total if total > 0 else float("nan")


def faithfulness(verdicts: Iterable[str | None]) -> float:
    """S_f = N_supported / N_cited (seed 004 eq. 4): of the claims that carry a citation,
    the share whose source supports them. ``verdicts`` holds one verdict per *cited* claim;
    'unknown' verdicts are excluded (METHODS §4)."""
    known = [v for v in verdicts if v in (SUPPORTED, UNSUPPORTED)]
    return sum(v == SUPPORTED for v in known) / len(known) if known else float("nan")


def groundedness(cited: Iterable[bool]) -> float:
    """S_g = N_cited / N_claims (seed 004 eq. 4): the share of all extracted claims that
    carry a citation."""
    flags = [bool(c) for c in cited]
    return sum(flags) / len(flags) if flags else float("nan")


def f1(precision: float, recall: float) -> float:
    """F1 = 2PR / (P + R), the judge-selection figure of seed 004 Table 2."""
    return 2 * precision * recall / (precision + recall) if precision + recall > 0 else float("nan")
