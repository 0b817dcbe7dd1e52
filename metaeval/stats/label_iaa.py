"""Inter-annotator agreement of any doubly annotated label kind (issue 16; METHODS §5 IAA).

One summary per label kind, from a units × annotators matrix of numeric labels (NaN =
missing; :func:`.iaa.label_matrix`): strict agreement over annotator pairs, Cohen's κ on the
first two annotators of each unit (*slots*, so κ exists with any number of persons),
Fleiss' κ (generalised to unequal numbers of raters), Krippendorff's α at the kind's level
of measurement (:data:`LEVELS`: nominal for categories, ordinal for ordered scales,
interval for scores).

Undefined figures (no doubly annotated unit; a single category) are NaN here and null with
a note in the report (METHODS §7).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .iaa import cohen_kappa, fleiss_kappa, krippendorff_alpha, pairwise_agreement

#: Level of measurement of each label kind the platform stores (METHODS §5).
LEVELS: dict[str, str] = {
    "preference": "nominal",  # left / right / tie / both bad (oriented A / B / tie / both bad)
    "medal_decision": "nominal",
    "coverage": "ordinal",  # 0–4
    "coverage_binary": "nominal",
    "clarity": "ordinal",
    "naturalness": "ordinal",
    "relevance": "ordinal",
    "variability": "nominal",
    "emphasis": "ordinal",
    "necessity": "ordinal",
    "confidence": "ordinal",
    "claim_support": "nominal",
    "citation_support": "nominal",
    "paragraph_relevance": "ordinal",  # R > U > O
    "rating": "ordinal",  # 1–5 Likert
    "rubric_medal": "ordinal",
    "score": "interval",
}


def first_two_slots(labels) -> np.ndarray:
    """units × 2: each unit's first two labels in column order (NaN when fewer)."""
    m = np.asarray(labels, dtype=float)
    out = np.full((m.shape[0], 2), np.nan)
    present = ~np.isnan(m)
    order = np.argsort(~present, axis=1, kind="stable")  # present columns first
    for slot in range(2):
        if m.shape[1] > slot:
            col = order[:, slot]
            vals = m[np.arange(m.shape[0]), col]
            out[:, slot] = np.where(present[np.arange(m.shape[0]), col], vals, np.nan)
    return out


class IAASummary(NamedTuple):
    strict: float
    cohen_kappa: float
    fleiss_kappa: float
    krippendorff_alpha: float
    level: str
    n_units: int  # units with ≥ 2 labels
    n_pairs: int


def iaa_summary(labels, level: str = "nominal") -> IAASummary:
    """Strict agreement, Cohen's κ (slots), Fleiss' κ and α of one label kind."""
    m = np.asarray(labels, dtype=float)
    if m.ndim != 2:
        raise ValueError("labels must be a 2-D units × annotators array")
    pa = pairwise_agreement(m)
    if pa.n_pairs == 0:
        nan = float("nan")
        return IAASummary(nan, nan, nan, nan, level, 0, 0)
    return IAASummary(
        strict=pa.strict,
        cohen_kappa=cohen_kappa(first_two_slots(m)).value,
        fleiss_kappa=fleiss_kappa(m, unequal="generalized").value,
        krippendorff_alpha=krippendorff_alpha(m, level).value,
        level=level,
        n_units=pa.n_items,
        n_pairs=pa.n_pairs,
    )
