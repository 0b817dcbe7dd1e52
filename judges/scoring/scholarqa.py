"""ScholarQA-CS2's four judge metrics and their overall score (seed 003 §3; METHODS §4).

Every metric is a share in [0, 1]; a report whose metric is undefined (no paragraphs, no
cited claims) gets NaN, never 0, so that an absent signal is not mistaken for a bad one.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

#: Citation credit (seed 003 §3, footnote 2): a citation with evidence snippets that
#: supports its claim earns 1; a title-only citation judged to support it earns half.
SUPPORTS = 1.0
TITLE_ONLY_SUPPORTS = 0.5
NO_SUPPORT = 0.0

METRICS = ("answer_relevance", "answer_recall", "citation_precision", "citation_recall")

NAN = float("nan")


def _mean(values: Sequence[float]) -> float:
    return math.fsum(values) / len(values) if values else NAN


def answer_relevance(irrelevant: Iterable[bool]) -> float:
    """Share of paragraphs *not* flagged irrelevant by the judge.

    Seed 003 §3 "Answer Relevance": "the fraction of paragraphs in the report that directly
    address the question. Given the full report, the LLM judge is instructed to flag all
    irrelevant paragraphs."
    """
    flags = [bool(f) for f in irrelevant]
    return _mean([0.0 if f else 1.0 for f in flags])


def answer_recall(
    ingredient_scores: Sequence[float], weights: Sequence[float] | None = None
) -> float:
    """Rubric-ingredient coverage: Σ wᵢ·sᵢ / Σ wᵢ with sᵢ ∈ [0, 1] (unweighted: the mean).

    Seed 003 §3 "Answer Recall": "the fraction of necessary points or 'rubric ingredients'
    covered by the report"; the ingredient weights of the rubric apply when given.
    """
    scores = [float(s) for s in ingredient_scores]
    if any(not 0.0 <= s <= 1.0 for s in scores):
        raise ValueError("ingredient scores must lie in [0, 1]")
    if weights is None:
        return _mean(scores)
    w = [float(x) for x in weights]
    if len(w) != len(scores):
        raise ValueError("one weight per ingredient")
    total = math.fsum(w)
    return math.fsum(a * b for a, b in zip(w, scores, strict=True)) / total if total > 0 else NAN


def citation_credit(supports: bool, title_only: bool) -> float:
    """One citation's credit towards its claim: 1, ½ for a title-only source, else 0."""
    if not supports:
        return NO_SUPPORT
    return TITLE_ONLY_SUPPORTS if title_only else SUPPORTS


def citation_precision(claims: Iterable[Sequence[float]]) -> float:
    """Mean citation credit per claim, macro-averaged over claims.

    Seed 003 §3: "citation precision measures the proportion of citations that fully or
    partially support the claims to which they are attached … the citation precision is
    the average of these scores macro-averaged by claim." ``claims`` holds, per claim, the
    credits of its citations (:func:`citation_credit`); claims without citations are left
    out (they have no precision).
    """
    per_claim = [_mean([float(c) for c in credits]) for credits in claims if len(credits)]
    return _mean(per_claim)


def citation_recall(fully_supported: Iterable[float]) -> float:
    """Share of claims fully supported by their citations (a credit of ½ counts half).

    Seed 003 §3: "citation recall measures the proportion of claims that are fully
    supported by their accompanying citations … an average over claims". ``fully_supported``
    holds 1 / 0 per claim, or ½ for a claim supported only through title-only sources.
    """
    return _mean([float(v) for v in fully_supported])


def overall(
    answer_relevance: float, answer_recall: float, citation_precision: float, citation_recall: float
) -> float:
    """The ScholarQA-CS2 score: the unweighted mean of the four metrics (seed 003 §3:
    "The final output score is an average of the four metrics"). NaN if any is NaN."""
    parts = [answer_relevance, answer_recall, citation_precision, citation_recall]
    return math.fsum(parts) / 4.0
