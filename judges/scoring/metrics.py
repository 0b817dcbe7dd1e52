"""The judge metrics a per-report judge score may be stored under, and each one's scale,
declared once (:data:`JUDGE_METRICS`; METHODS §4).

A ``JudgeScore`` row is a judge's score of one report on one metric. Every metric METHODS
§4 defines per report is a share in [0, 1]: ScholarQA-CS2's four metrics and their mean
(``overall``; ``overall_citation`` as the release writes it), ResearchQA's coverage of
one answer (mean(label) / 4; coverage % is its mean over answers · 100, a figure, not a
stored score) which is also ResearcherBench's S_c (``rubric_coverage``), ResearcherBench's
faithfulness and groundedness, and DeepScholar-Bench's Table 2 columns and their
geometric mean. A study cannot declare metrics of its own (its ``config`` has no such
setting), so a name outside this table is a mistake (``overal``): the importers and the
API refuse it, naming the close known name, and refuse a value outside its metric's scale
(``1.7``), naming the scale (:func:`metric_problem`, :func:`value_problem`).

Pure: no Django (the scoring modules' rule).
"""

from __future__ import annotations

from annotation.annotate.scores import MetricScale as JudgeMetric
from annotation.annotate.scores import unknown_name

from . import deepscholar, scholarqa

_SQA = "ScholarQA-CS2 (METHODS §4)"
JUDGE_METRICS: dict[str, JudgeMetric] = {
    m.name: m
    for m in (
        JudgeMetric("overall", f"{_SQA}: mean of the four metrics"),
        *(JudgeMetric(name, f"{_SQA}: a share") for name in scholarqa.METRICS),
        JudgeMetric("overall_citation", f"{_SQA}: the release's citation overall"),
        JudgeMetric(
            "rubric_coverage",
            "ResearchQA coverage of one answer, mean(label)/4; ResearcherBench S_c (§4)",
        ),
        JudgeMetric("faithfulness", "ResearcherBench: supported / cited claims (§4)"),
        JudgeMetric("groundedness", "ResearcherBench: cited / all claims (§4)"),
        *(
            JudgeMetric(name, "DeepScholar-Bench Table 2 (§4)")
            for name in deepscholar.COLUMNS
            if name not in scholarqa.METRICS
        ),
        JudgeMetric("geometric_mean", "DeepScholar-Bench: the columns' geometric mean (§4)"),
    )
}


def metric_problem(metric: str) -> str | None:
    """What is wrong with ``metric`` as a judge metric name (None: nothing); the message
    names the close known name when there is one, else every known name."""
    return unknown_name(metric, JUDGE_METRICS, "judge metrics")


def value_problem(metric: str, value: float) -> str | None:
    """What is wrong with ``value`` as a score on the known ``metric`` (None: nothing)."""
    m = JUDGE_METRICS[metric]
    if m.low <= value <= m.high:
        return None
    return f"{value!r} is outside the scale of {metric}, {m.scale()}"
