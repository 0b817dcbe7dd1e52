"""Relevance adjudications (seed 003 A.6) → one row per decision. One query."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._db import fetch, ints, settings_filter


@dataclass
class AdjudicationData:
    question: np.ndarray
    annotator: np.ndarray
    setting: np.ndarray  # str: assigned / near_expert / deep_expert
    decision: np.ndarray  # str: keep / switch / subjective
    judge: list[str]  # whose verdict was adjudicated


def load_adjudications(study_id: int, settings=None) -> AdjudicationData:
    from annotation.models import RelevanceAdjudication

    a = fetch(
        RelevanceAdjudication.objects.filter(study_id=study_id, **settings_filter(settings))
        .order_by("pk")
        .values_list("question_id", "annotator_id", "setting", "decision",
                     "disagreement__judge__name"),
        5,
    )  # fmt: skip
    return AdjudicationData(
        question=ints(a[0]),
        annotator=ints(a[1]),
        setting=np.array(a[2], dtype=object),
        decision=np.array(a[3], dtype=object),
        judge=list(a[4]),
    )
