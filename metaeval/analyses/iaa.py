"""IAA of every doubly annotated label kind (METHODS §5 IAA; docs/ANALYSES.md §6)."""

from __future__ import annotations

import numpy as np

from metaeval.loaders.claims import ClaimData
from metaeval.loaders.coverage import CoverageData
from metaeval.loaders.pairwise import PairwiseData
from metaeval.loaders.quality import ITEM_KINDS, QUERY_KINDS, QualityData
from metaeval.stats.figure import number
from metaeval.stats.label_iaa import LEVELS, iaa_summary


def label_sets(pairwise: PairwiseData | None = None, coverage: CoverageData | None = None,
               quality: QualityData | None = None,
               claims: ClaimData | None = None) -> dict[str, np.ndarray]:  # fmt: skip
    """units × annotators matrices of every label kind the loaders give."""
    sets = {}
    if pairwise is not None:
        sets["preference"] = pairwise.human_matrix()
    if coverage is not None:
        sets["coverage"] = coverage.human_matrix("label")
        sets["coverage_binary"] = coverage.human_matrix("covered")
    if quality is not None:
        for kind in (*QUERY_KINDS, *ITEM_KINDS):
            sets[kind] = quality.matrix(kind)
    if claims is not None and claims.h_supported is not None:
        sets["claim_support"] = claims.human_matrix()
    return sets


def analyse_iaa(sets: dict[str, np.ndarray]) -> list[dict]:
    """Strict, Cohen (mean over annotator pairs), Fleiss, Krippendorff at the kind's level,
    per label kind."""
    out = []
    for kind, m in sets.items():
        level = LEVELS.get(kind, "nominal")
        res = iaa_summary(m if m.ndim == 2 and m.size else np.full((0, 2), np.nan), level)
        out.append({
            "kind": kind, "level": level, "units": res.n_units, "pairs": res.n_pairs,
            "strict": number(res.strict), "cohen_kappa": number(res.cohen_kappa),
            "fleiss_kappa": number(res.fleiss_kappa),
            "krippendorff_alpha": number(res.krippendorff_alpha),
            "note": None if res.n_pairs else "No unit has two labels.",
        })  # fmt: skip
    return out
