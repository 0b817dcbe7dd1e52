"""Rubric comparisons (seed 003 A.4) → one row per (comparison, rubric) medal. One query.

The rubric's *source* is its ``Rubric.kind`` (hybrid, expert, llm, …): what A.4 compares.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._db import codes, fetch, ints


@dataclass
class RubricComparisonData:
    comparison: np.ndarray  # one ranking
    question: np.ndarray
    annotator: np.ndarray
    rubric: np.ndarray
    source: np.ndarray  # codes into ``sources``
    sources: list[str]
    medal: np.ndarray  # gold 1, silver ½, bronze 0
    #: adjudicated signal only: question id -> {rubric kind: medal value} of its decided
    #: rubric-comparison adjudication (QC unit "", label ``hybrid=gold;expert=silver``)
    adjudicated: dict[int, dict[str, float]] | None = None


def load_rubric_comparisons(study_id: int, settings=None,
                            adjudicated: bool = False) -> RubricComparisonData:  # fmt: skip
    """The experts' rankings of rubrics; with ``adjudicated``, the decided rubric-comparison
    adjudications (one more query; the ranking names rubrics by kind, the source A.4
    compares)."""
    from annotation.models import Medal, RubricAssessment
    from annotation.quality.labels import parse_ranking

    setting = {} if settings is None else {"comparison__setting__in": list(settings)}
    r = fetch(
        RubricAssessment.objects.filter(comparison__study_id=study_id, **setting)
        .order_by("comparison_id", "pk")
        .values_list("comparison_id", "comparison__question_id", "comparison__annotator_id",
                     "rubric_id", "rubric__kind", "medal"),
        6,
    )  # fmt: skip
    source, sources = codes(r[4])
    adj = None
    if adjudicated:
        from .signal import decided

        adj = {}
        for (_, question, unit), label in decided(study_id, "rubric_comparison").items():
            medals = parse_ranking(label)
            if unit == "" and medals and all(m in Medal.SCORE for m in medals.values()):
                adj[question] = {kind: Medal.SCORE[m] for kind, m in medals.items()}
    return RubricComparisonData(
        comparison=ints(r[0]),
        question=ints(r[1]),
        annotator=ints(r[2]),
        rubric=ints(r[3]),
        source=source,
        sources=sources,
        medal=np.array([Medal.SCORE[m] for m in r[5]], dtype=float),
        adjudicated=adj,
    )
