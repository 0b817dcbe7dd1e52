"""The label kinds whose only analysis is their inter-annotator agreement here (issue 27,
METHODS §5 "α at the right level of measurement for every kind"): 5-point report ratings,
human metric scores, paragraph relevance R / U / O and rubric-item confidence, each as a
units × annotators matrix (NaN = not labelled). One query per kind the study has."""

from __future__ import annotations

import numpy as np

from annotation.models import HumanMetricScore, ParagraphRelevance, ReportRating, RubricItemQuality
from metaeval.stats.iaa import label_matrix

from ._db import fetch, settings_filter

#: The models read here (a section checks which the study has, in one query).
LABEL_KIND_MODELS = (ReportRating, HumanMetricScore, ParagraphRelevance, RubricItemQuality)

#: R / U / O as codes (the order is kept for reading; the level is declared in
#: :data:`metaeval.stats.label_iaa.LEVELS`)
RELEVANCE = {"O": 0.0, "U": 1.0, "R": 2.0}


def _matrix(rows: list[list], n_keys: int, value) -> np.ndarray:
    """units × annotators from columns ``(*unit key, annotator, label)``."""
    if not rows[0]:
        return np.full((0, 2), np.nan)
    keys = list(zip(*rows[:n_keys], strict=True)) if n_keys > 1 else rows[0]
    labels = [value(v) for v in rows[n_keys + 1]]
    mat, _, _ = label_matrix(keys, rows[n_keys], labels)
    return mat


def load_label_kinds(study_id: int, settings=None, present=None,
                     reports=None) -> dict[str, np.ndarray]:  # fmt: skip
    """``{kind: units × annotators}`` for the four kinds (only those with a label):
    ``rating`` (unit: report × dimension, 1–5), ``score`` (report × metric, the value),
    ``paragraph_relevance`` (paragraph, R / U / O), ``confidence`` (rubric item, 1–5).
    ``reports`` (ids; None: every report): only the labels of these reports, the report's
    selection of systems and comparisons (rubric-item confidence judges no report: kept)."""
    from annotation.models import (
        HumanMetricScore,
        ParagraphRelevance,
        ReportRating,
        RubricItemQuality,
    )

    where = {"study_id": study_id, **settings_filter(settings)}
    queries = {
        "rating": (ReportRating, ("report_id", "dimension"), "value", float),
        "score": (HumanMetricScore, ("report_id", "metric"), "value", float),
        "paragraph_relevance": (ParagraphRelevance, ("paragraph_id",), "label",
                                lambda v: RELEVANCE.get(v, np.nan)),
        "confidence": (RubricItemQuality, ("item_id",), "confidence", float),
    }  # fmt: skip
    report_of = {"rating": "report_id", "score": "report_id",
                 "paragraph_relevance": "paragraph__report_id"}  # fmt: skip
    out = {}
    for kind, (model, unit, field, value) in queries.items():
        if present is not None and model not in present:
            continue
        rows = model.objects.filter(**where)
        if reports is not None and kind in report_of:
            rows = rows.filter(**{f"{report_of[kind]}__in": list(reports)})
        cols = fetch(rows.order_by("pk")
                     .values_list(*unit, "annotator_id", field), len(unit) + 2)  # fmt: skip
        if cols[0]:
            out[kind] = _matrix(cols, len(unit), value)
    return out
