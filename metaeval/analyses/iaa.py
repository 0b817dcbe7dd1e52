"""IAA of every doubly annotated label kind (METHODS §5 IAA; docs/ANALYSES.md §6)."""

from __future__ import annotations

import numpy as np

from metaeval.loaders.claims import ClaimData
from metaeval.loaders.coverage import CoverageData
from metaeval.loaders.pairwise import PairwiseData
from metaeval.loaders.quality import ITEM_KINDS, QUERY_KINDS, QualityData
from metaeval.stats.figure import number
from metaeval.stats.iaa import label_matrix, undefined_note
from metaeval.stats.label_iaa import LEVELS, iaa_bootstrap, iaa_summary


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


def label_clusters(
    pairwise: PairwiseData | None = None, coverage: CoverageData | None = None
) -> dict[str, np.ndarray]:
    """Each unit's question (the bootstrap cluster) for the kinds of :func:`label_sets`
    whose matrix rows are the loader's units: comparisons and (report, item) units."""
    out = {}
    if pairwise is not None:
        out["preference"] = pairwise.question
    if coverage is not None:
        out["coverage"] = out["coverage_binary"] = coverage.question
    return out


def deepscholar_sets(rows, clusters: dict | None = None
                     ) -> tuple[dict[str, np.ndarray], dict[str, str]]:  # fmt: skip
    """units × annotators of each DeepScholar label kind (seed 002 §8.11) from rows
    ``(kind, question id, report id or None, unit, annotator id, label)``, the label coded by
    its position in the kind's label set; with each kind's level (ordinal when its task
    declares its labels an ordered scale: organization, nugget support, retrieval relevance).
    Kinds are named ``deepscholar_<kind>``; ``clusters``, when given, receives each kind's
    question per unit (the IAA bootstrap's cluster)."""
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
            mat, keys, _ = label_matrix(units, people, codes, duplicates="last")
            sets[f"deepscholar_{kind}"] = mat
            if clusters is not None:  # each unit's question, for the IAA intervals
                clusters[f"deepscholar_{kind}"] = np.array([k[0] for k in keys])
            ordinal = getattr(SPECS.get(kind), "ordinal", False)
            levels[f"deepscholar_{kind}"] = "ordinal" if ordinal else "nominal"
    return sets, levels


#: The IAA figures that get a cluster-bootstrap interval (METHODS §5 "Uncertainty").
IAA_FIGURES = ("strict", "cohen_kappa", "fleiss_kappa", "krippendorff_alpha")
#: Why a kind has no interval although a bootstrap was asked for.
NO_CLUSTERS = ("No interval: this kind's units are not mapped to their questions here, and "
               "the bootstrap resamples whole questions (METHODS §5).")  # fmt: skip


def iaa_intervals(m: np.ndarray, clusters, level: str, rounds: int,
                  seed: int) -> tuple[dict[str, tuple], str | None]:  # fmt: skip
    """Percentile intervals of the IAA figures of a units × annotators matrix resampling
    whole questions (``clusters``: each unit's question; METHODS §5): figure -> (low,
    high), and a note when there is no interval (fewer than two questions). All rounds at
    once from per-question totals (:func:`metaeval.stats.label_iaa.iaa_bootstrap`)."""
    m = np.asarray(m, dtype=float)
    c = np.asarray(clusters).ravel()
    doubly = (~np.isnan(m)).sum(axis=1) >= 2 if m.size else np.zeros(0, bool)
    m, c = m[doubly], c[doubly]
    if not m.size:
        return {}, None
    boot = iaa_bootstrap(m, c, level, n_rounds=rounds, seed=seed)
    lows, highs = np.atleast_1d(boot.low), np.atleast_1d(boot.high)
    return ({name: (number(lows[k]), number(highs[k])) for k, name in enumerate(IAA_FIGURES)},
            boot.note)  # fmt: skip


def analyse_iaa(sets: dict[str, np.ndarray], levels: dict[str, str] | None = None,
                clusters: dict[str, np.ndarray] | None = None, rounds: int = 0,
                seed: int = 0) -> list[dict]:  # fmt: skip
    """Strict, Cohen (mean over annotator pairs), Fleiss, Krippendorff at the kind's level,
    per label kind (``levels`` overrides ``LEVELS`` for kinds named at run time). A kind
    without a single label is left out: graded coverage in a study labelled only yes/no
    (ResearcherBench) is no kind of that study, not one "with no unit labelled twice".

    With ``rounds``, each figure gets ``<figure>_low`` / ``_high`` from a cluster
    bootstrap over questions (``clusters``: kind -> each unit's question); a kind whose
    units have no question here says so in ``note``, as does one with a single question."""
    out = []
    for kind, m in sets.items():
        if not (m.size and np.isfinite(m).any()):
            continue
        level = (levels or {}).get(kind) or LEVELS.get(kind, "nominal")
        res = iaa_summary(m if m.ndim == 2 and m.size else np.full((0, 2), np.nan), level)
        row = {
            "kind": kind, "level": level, "units": res.n_units, "pairs": res.n_pairs,
            "strict": number(res.strict), "cohen_kappa": number(res.cohen_kappa),
            "fleiss_kappa": number(res.fleiss_kappa),
            "krippendorff_alpha": number(res.krippendorff_alpha),
            "note": None if res.n_pairs else "No unit has two labels.",
        }  # fmt: skip
        if res.n_pairs:  # κ / α null with labels twice: say why (one category, tester)
            row["note"] = undefined_note(m, {k: row[k] for k in IAA_FIGURES})
        bounds, why = {}, None
        if rounds > 0 and res.n_pairs:
            c = (clusters or {}).get(kind)
            if c is None or np.size(c) != m.shape[0]:
                why = NO_CLUSTERS
            else:
                bounds, why = iaa_intervals(m, c, level, rounds, seed)
        for name in IAA_FIGURES:
            low, high = bounds.get(name, (None, None)) if row[name] is not None else (None, None)
            row[f"{name}_low"], row[f"{name}_high"] = low, high
        if why:
            row["note"] = f"{row['note']} {why}" if row["note"] else why
        out.append(row)
    return out
