"""Relevance adjudication outcomes (seed 003 A.6, Figure 2; METHODS §2 item 7).

Inputs, for one group of compared paragraphs (e.g. one setting): ``n`` paragraphs that both
the annotator and the judge labelled, of which ``d`` disagreed (``annotation.adjudication``
defines disagreement), and the decisions taken on the disagreements adjudicated so far
(``keep`` / ``switch`` / ``subjective``). A disagreement not adjudicated yet still counts as
a disagreement.

    pre-adjudication agreement   = (n − d) / n
    post-adjudication agreement  = (n − d + #switch) / n
    … counting subjective as agreement = (n − d + #switch + #subjective) / n
    share of keep / switch / subjective = count / #adjudicated      (Figure 2's bars)

A ratio with a zero denominator is NaN, not 0.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import NamedTuple

DECISIONS = ("keep", "switch", "subjective")


class AdjudicationOutcome(NamedTuple):
    n: int  # paragraphs compared
    disagreements: int
    adjudicated: int
    pre_agreement: float
    post_agreement: float
    post_agreement_subjective: float  # subjective differences counted as agreement
    keep: float  # shares of the adjudicated disagreements
    switch: float
    subjective: float


def _ratio(num: float, den: float) -> float:
    return num / den if den > 0 else float("nan")


def adjudication_outcome(
    n: int, disagreements: int, decisions: Iterable[str]
) -> AdjudicationOutcome:
    """The agreement before and after adjudication, and the share of each decision."""
    counts = Counter(decisions)
    unknown = set(counts) - set(DECISIONS)
    if unknown:
        raise ValueError(f"unknown decisions: {sorted(unknown)}")
    adjudicated = sum(counts.values())
    if not 0 <= disagreements <= n:
        raise ValueError(f"{disagreements} disagreements among {n} paragraphs")
    if adjudicated > disagreements:
        raise ValueError(f"{adjudicated} decisions for {disagreements} disagreements")
    agreed = n - disagreements
    return AdjudicationOutcome(
        n=n,
        disagreements=disagreements,
        adjudicated=adjudicated,
        pre_agreement=_ratio(agreed, n),
        post_agreement=_ratio(agreed + counts["switch"], n),
        post_agreement_subjective=_ratio(agreed + counts["switch"] + counts["subjective"], n),
        keep=_ratio(counts["keep"], adjudicated),
        switch=_ratio(counts["switch"], adjudicated),
        subjective=_ratio(counts["subjective"], adjudicated),
    )
