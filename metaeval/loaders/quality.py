"""Query quality and rubric-item quality → arrays (ResearchQA §3.1, §3.2; METHODS §7).

Labels are category codes in the scale order of
:data:`metaeval.stats.label_quality.BINARISATIONS` (NaN = not given). No judge counterpart.
Two queries.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from metaeval.stats.iaa import label_matrix
from metaeval.stats.label_quality import BINARISATIONS, encode

from ._db import codes, fetch, floats, ints, json_values, settings_filter

QUERY_KINDS = ("clarity", "naturalness", "relevance", "variability")
ITEM_KINDS = ("emphasis", "necessity")


@dataclass
class QualityData:
    # query quality: one row per annotator's judgment of a question
    q_question: np.ndarray
    q_annotator: np.ndarray
    q_origin: list[str]  # the question's origin (content- vs title-based comparisons)
    q_codes: dict[str, np.ndarray]  # kind → category codes
    # rubric-item quality: one row per annotator's judgment of an item
    i_question: np.ndarray
    i_item: np.ndarray
    i_annotator: np.ndarray
    i_rubric_kind: np.ndarray  # codes into ``rubric_kinds`` (hybrid / survey / parametric)
    rubric_kinds: list[str]
    i_codes: dict[str, np.ndarray]  # emphasis / necessity codes
    i_confidence: np.ndarray
    i_flags: list[list[str]]
    #: adjudicated signal only: kind -> {question id (query kinds) or item id -> code}
    adjudicated: dict[str, dict[int, float]] | None = None

    def matrix(self, kind: str) -> np.ndarray:
        """units × annotators of one kind's codes (units: questions or rubric items)."""
        if kind in QUERY_KINDS:
            unit, annotator, values = self.q_question, self.q_annotator, self.q_codes[kind]
        else:
            unit, annotator, values = self.i_item, self.i_annotator, self.i_codes[kind]
        ok = ~np.isnan(values)
        if not ok.any():
            return np.full((0, 0), np.nan)
        return label_matrix(unit[ok], annotator[ok], values[ok])[0]


def load_quality(study_id: int, settings=None, adjudicated: bool = False) -> QualityData:
    """Query and rubric-item quality; with ``adjudicated``, the decided query-quality and
    rubric-item-quality adjudications (one more query) by :func:`_adjudicated`."""
    from annotation.models import QueryQuality, RubricItemQuality

    q = fetch(
        QueryQuality.objects.filter(study_id=study_id, **settings_filter(settings))
        .order_by("pk")
        .values_list("question_id", "annotator_id", "question__origin", *QUERY_KINDS),
        3 + len(QUERY_KINDS),
    )
    i = fetch(
        RubricItemQuality.objects.filter(study_id=study_id, **settings_filter(settings))
        .order_by("pk")
        .values_list("question_id", "item_id", "annotator_id", "item__rubric__kind",
                     "emphasis", "necessity", "confidence", "flags", "item__position"),
        9,
    )  # fmt: skip
    kind_codes, kinds = codes(i[3])
    adj = None
    if adjudicated:
        items = {(i[0][k], i[3][k], i[8][k]): i[1][k] for k in range(len(i[0]))}
        adj = _adjudicated(study_id, items)
    return QualityData(
        q_question=ints(q[0]),
        q_annotator=ints(q[1]),
        q_origin=list(q[2]),
        q_codes={
            k: encode(q[3 + n], BINARISATIONS[k].categories) for n, k in enumerate(QUERY_KINDS)
        },
        i_question=ints(i[0]),
        i_item=ints(i[1]),
        i_annotator=ints(i[2]),
        i_rubric_kind=kind_codes,
        rubric_kinds=kinds,
        i_codes={
            k: encode(i[4 + n], BINARISATIONS[k].categories) for n, k in enumerate(ITEM_KINDS)
        },
        i_confidence=floats(i[6]),
        i_flags=json_values(i[7], list),
        adjudicated=adj,
    )


def _adjudicated(study_id: int, items: dict) -> dict[str, dict[int, float]]:
    """kind -> {unit -> category code} of the decided adjudications: a query-quality QC
    unit is the kind itself (``clarity``: the question is the unit), a rubric-item-quality
    one ``emphasis item <kind>:<position>`` (``items``: (question, rubric kind, position)
    -> item id). A label outside the kind's scale is not read."""
    from annotation.quality.labels import parse_scale

    from .signal import decided

    out: dict[str, dict[int, float]] = {k: {} for k in (*QUERY_KINDS, *ITEM_KINDS)}
    labels = decided(study_id, "query_quality", "rubric_item_quality")
    for (task, question, qc_unit), label in labels.items():
        if task == "query_quality":
            kind, unit = qc_unit, question
        else:
            parsed = parse_scale(qc_unit)
            kind, unit = (
                (None, None) if parsed is None else (parsed[0], items.get((question, *parsed[1:])))
            )
        if kind not in out or unit is None:
            continue
        index = {str(c): float(n) for n, c in enumerate(BINARISATIONS[kind].categories)}
        if label in index:
            out[kind][int(unit)] = index[label]
    return out
