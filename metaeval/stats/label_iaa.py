"""Inter-annotator agreement of any doubly annotated label kind (issue 16; METHODS §5 IAA).

One summary per label kind, from a units × annotators matrix of numeric labels (NaN =
missing; :func:`.iaa.label_matrix`): strict agreement over annotator pairs, Cohen's κ as
the mean over annotator pairs (:func:`.iaa.mean_pairwise_cohen_kappa`, the rule of the
agreement report's IAA too),
Fleiss' κ (generalised to unequal numbers of raters), Krippendorff's α at the kind's level
of measurement (:data:`LEVELS`: nominal for categories, ordinal for ordered scales,
interval for scores).

Undefined figures (no doubly annotated unit; a single category) are NaN here and null with
a note in the report (METHODS §7).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .iaa import fleiss_kappa, krippendorff_alpha, mean_pairwise_cohen_kappa, pairwise_agreement

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
    "paragraph_relevance": "nominal",  # R / U / O: categories of a paragraph's fit (issue 27)
    "rating": "ordinal",  # 1–5 Likert
    "rubric_medal": "ordinal",
    "score": "interval",
}


class IAASummary(NamedTuple):
    strict: float
    cohen_kappa: float
    fleiss_kappa: float
    krippendorff_alpha: float
    level: str
    n_units: int  # units with ≥ 2 labels
    n_pairs: int


def iaa_summary(labels, level: str = "nominal") -> IAASummary:
    """Strict agreement, Cohen's κ (mean over annotator pairs), Fleiss' κ and α of one
    label kind."""
    m = np.asarray(labels, dtype=float)
    if m.ndim != 2:
        raise ValueError("labels must be a 2-D units × annotators array")
    pa = pairwise_agreement(m)
    if pa.n_pairs == 0:
        nan = float("nan")
        return IAASummary(nan, nan, nan, nan, level, 0, 0)
    return IAASummary(
        strict=pa.strict,
        cohen_kappa=mean_pairwise_cohen_kappa(m).value,
        fleiss_kappa=fleiss_kappa(m, unequal="generalized").value,
        krippendorff_alpha=krippendorff_alpha(m, level).value,
        level=level,
        n_units=pa.n_items,
        n_pairs=pa.n_pairs,
    )
