"""Metric-wise human judgments -> scores on the judge's scale (METHODS §3). Pure functions.

answer_relevance   = mean paragraph credit (R 1, U 0.5, O 0 by default)
answer_recall      = (likert − 1) / 4
citation_precision = Σ supporting credit / Σ citations, over the chosen claims
citation_recall    = mean claim coverage credit (fully 1, partially 0.5, none 0)
overall            = mean of the four
The credits are study settings (``relevance_credit``, ``support_credit``,
``coverage_credit``); the defaults are those of METHODS §3 and the guidelines.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

DEFAULT_RELEVANCE_CREDIT = {"R": 1.0, "U": 0.5, "O": 0.0}
DEFAULT_SUPPORT_CREDIT = {"snippet_supports": 1.0, "title_likely_supports": 0.5, "none": 0.0}
DEFAULT_COVERAGE_CREDIT = {"fully": 1.0, "partially": 0.5, "none": 0.0}


@dataclass(frozen=True)
class Claim:
    """One chosen claim: the support label of each of its citations and its coverage."""

    supports: tuple[str, ...]
    coverage: str


def answer_relevance(
    labels: Sequence[str], credit: Mapping[str, float] = DEFAULT_RELEVANCE_CREDIT
) -> float:
    if not labels:
        raise ValueError("answer_relevance needs at least one paragraph label")
    return sum(credit[label] for label in labels) / len(labels)


def answer_recall(likert: int) -> float:
    if not 1 <= likert <= 5:
        raise ValueError(f"answer recall is a 1–5 rating, got {likert}")
    return (likert - 1) / 4


def supporting_credit(
    supports: Sequence[str], credit: Mapping[str, float] = DEFAULT_SUPPORT_CREDIT
) -> float:
    return sum(credit[s] for s in supports)


def citation_precision(
    claims: Sequence[Claim], credit: Mapping[str, float] = DEFAULT_SUPPORT_CREDIT
) -> float:
    cited = sum(len(c.supports) for c in claims)
    if not cited:
        raise ValueError("citation_precision needs at least one cited claim")
    return sum(supporting_credit(c.supports, credit) for c in claims) / cited


def citation_recall(
    claims: Sequence[Claim], credit: Mapping[str, float] = DEFAULT_COVERAGE_CREDIT
) -> float:
    if not claims:
        raise ValueError("citation_recall needs at least one claim")
    return sum(credit[c.coverage] for c in claims) / len(claims)


def report_scores(
    labels: Sequence[str],
    likert: int,
    claims: Sequence[Claim],
    *,
    relevance_credit: Mapping[str, float] = DEFAULT_RELEVANCE_CREDIT,
    support_credit: Mapping[str, float] = DEFAULT_SUPPORT_CREDIT,
    coverage_credit: Mapping[str, float] = DEFAULT_COVERAGE_CREDIT,
) -> dict[str, float]:
    """The five HumanMetricScore values of one report."""
    scores = {
        "answer_relevance": answer_relevance(labels, relevance_credit),
        "answer_recall": answer_recall(likert),
        "citation_precision": citation_precision(claims, support_credit),
        "citation_recall": citation_recall(claims, coverage_credit),
    }
    scores["overall"] = sum(scores.values()) / 4
    return scores
