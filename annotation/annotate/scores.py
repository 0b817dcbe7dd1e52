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

import difflib
import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

#: The metric-wise scores of one report (:func:`report_scores`' keys, METHODS §3).
METRICS: tuple[str, ...] = (
    "overall",
    "answer_relevance",
    "answer_recall",
    "citation_precision",
    "citation_recall",
)
#: ScholarQA-CS2 ``assigned`` files hold rank-like values (1, 2, 3 and their means) in these
#: human fields, not metric-wise scores: they are stored under these names instead.
RANK_LIKE = {
    "citation_precision": "rank_citation_precision",
    "citation_recall": "rank_citation_recall",
    "overall_citation": "rank_overall_citation",
}
#: Agreement-only records hold the mean medal score of the two annotations (0.25, 0.75 …).
CONSENSUS_METRIC = "consensus_medal_score"


@dataclass(frozen=True)
class MetricScale:
    """One metric: its name, its scale [low, high] and where the scale comes from. The one
    shape of the human metrics here and of the judges' (``judges.scoring.metrics``)."""

    name: str
    source: str
    low: float = 0.0
    high: float = 1.0

    def scale(self) -> str:
        return f"[{self.low:g}, {self.high:g}]"


#: Every metric a human metric score may be stored under, with its scale, declared once: the
#: metric-wise page's five (:func:`report_scores`: shares in [0, 1], METHODS §3), the
#: release's ``overall_citation`` (a share, as the judge's), its rank-like fields (ranks of
#: a medal ranking's 1–3 reports and their means: [1, 3]) and the consensus score (the mean
#: of two medal scores, ``Medal.SCORE``: [0, 1]). A study cannot declare metrics of its own
#: (its ``config`` has no such setting), so a name outside this table is a mistake
#: (``answer_recal``), and a value outside its metric's scale too (``overall`` 7, NaN): the
#: judgments import and the API refuse both (:func:`metric_problem`, :func:`value_problem`)
#: instead of storing what no analysis can read.
_SHARE = "a share, as the metric-wise page computes it (METHODS §3)"
HUMAN_METRICS: dict[str, MetricScale] = {
    m.name: m
    for m in (
        *(MetricScale(name, _SHARE) for name in METRICS),
        MetricScale("overall_citation", "ScholarQA-CS2 release: a share"),
        *(
            MetricScale(name, "ScholarQA-CS2 release: a rank of 1-3 reports or a mean", 1.0, 3.0)
            for name in RANK_LIKE.values()
        ),
        MetricScale(CONSENSUS_METRIC, "mean of two medal scores (gold 1, silver 0.5, bronze 0)"),
    )
}

DEFAULT_RELEVANCE_CREDIT = {"R": 1.0, "U": 0.5, "O": 0.0}
DEFAULT_SUPPORT_CREDIT = {"snippet_supports": 1.0, "title_likely_supports": 0.5, "none": 0.0}
DEFAULT_COVERAGE_CREDIT = {"fully": 1.0, "partially": 0.5, "none": 0.0}


@dataclass(frozen=True)
class Claim:
    """One chosen claim: the support label of each of its citations and its coverage."""

    supports: tuple[str, ...]
    coverage: str


def unknown_name(value: str, known: Collection[str], what: str) -> str | None:
    """What is wrong with ``value`` as a name of ``known`` (None: nothing); the message names
    the close known name when there is one, and every known name (``what`` says whose)."""
    if value in known:
        return None
    close = difflib.get_close_matches(str(value), list(known), n=1)
    hint = f"did you mean {close[0]!r}? " if close else ""
    return f"unknown metric {value!r}; {hint}the {what} are {', '.join(known)}"


def metric_problem(metric: str) -> str | None:
    """What is wrong with ``metric`` as a human metric name (None: nothing)."""
    return unknown_name(metric, HUMAN_METRICS, "human metrics")


def value_problem(metric: str, value) -> str | None:
    """What is wrong with ``value`` as a score on the human ``metric`` (None: nothing; an
    unknown metric is :func:`metric_problem`'s): not a finite number, or outside the scale."""
    known = HUMAN_METRICS.get(metric)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return f"{value!r} is not a finite number"
    if known is None or known.low <= value <= known.high:
        return None
    return f"{value!r} is outside the scale of {metric}, {known.scale()}"


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
