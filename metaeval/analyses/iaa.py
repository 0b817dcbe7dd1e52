"""IAA of every doubly annotated label kind (METHODS §5 IAA; docs/ANALYSES.md §6)."""

from __future__ import annotations

import numpy as np

from metaeval.loaders.claims import ClaimData
from metaeval.loaders.coverage import CoverageData
from metaeval.loaders.pairwise import PairwiseData
from metaeval.loaders.quality import ITEM_KINDS, QUERY_KINDS, QualityData
from metaeval.stats.figure import number
from metaeval.stats.iaa import label_matrix
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


def deepscholar_sets(rows) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    """units × annotators of each DeepScholar label kind (seed 002 §8.11) from rows
    ``(kind, question id, report id or None, unit, annotator id, label)``, the label coded by
    its position in the kind's label set; with each kind's level (ordinal when its task
    declares its labels an ordered scale: organization, nugget support, retrieval relevance).
    Kinds are named ``deepscholar_<kind>``."""
    from annotation.annotate.registry import SPECS
    from annotation.models.deepscholar import LABELS

    by_kind: dict[str, tuple[list, list, list]] = {}
    for kind, question, report, unit, annotator, label in rows:
        if label not in LABELS.get(kind, ()):
            continue  # a label outside the kind's set is not a code
        units, people, codes = by_kind.setdefault(kind, ([], [], []))
        units.append((question, report or 0, unit))
        people.append(annotator)
        codes.append(float(LABELS[kind].index(label)))
    sets, levels = {}, {}
    for kind in LABELS:
        if kind in by_kind:
            units, people, codes = by_kind[kind]
            sets[f"deepscholar_{kind}"] = label_matrix(units, people, codes, duplicates="last")[0]
            ordinal = getattr(SPECS.get(kind), "ordinal", False)
            levels[f"deepscholar_{kind}"] = "ordinal" if ordinal else "nominal"
    return sets, levels


def analyse_iaa(sets: dict[str, np.ndarray], levels: dict[str, str] | None = None) -> list[dict]:
    """Strict, Cohen (mean over annotator pairs), Fleiss, Krippendorff at the kind's level,
    per label kind (``levels`` overrides ``LEVELS`` for kinds named at run time). A kind
    without a single label is left out: graded coverage in a study labelled only yes/no
    (ResearcherBench) is no kind of that study, not one "with no unit labelled twice"."""
    out = []
    for kind, m in sets.items():
        if not (m.size and np.isfinite(m).any()):
            continue
        level = (levels or {}).get(kind) or LEVELS.get(kind, "nominal")
        res = iaa_summary(m if m.ndim == 2 and m.size else np.full((0, 2), np.nan), level)
        out.append({
            "kind": kind, "level": level, "units": res.n_units, "pairs": res.n_pairs,
            "strict": number(res.strict), "cohen_kappa": number(res.cohen_kappa),
            "fleiss_kappa": number(res.fleiss_kappa),
            "krippendorff_alpha": number(res.krippendorff_alpha),
            "note": None if res.n_pairs else "No unit has two labels.",
        })  # fmt: skip
    return out
