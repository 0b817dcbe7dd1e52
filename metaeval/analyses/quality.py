"""Query and rubric-item quality (001 §3.1, §3.2, Table 2; docs/ANALYSES.md §3)."""

from __future__ import annotations

import numpy as np

from metaeval.loaders.quality import ITEM_KINDS, QUERY_KINDS, QualityData
from metaeval.stats.figure import figure, nan_to_none
from metaeval.stats.label_quality import (
    BINARISATIONS,
    any_flag_share,
    binarised_agreement,
    label_distribution,
)
from metaeval.stats.signal import collapse, failed_rows

from ._common import interval


def _unit_questions(data: QualityData, kind: str) -> np.ndarray:
    """Question of each row of the kind's label matrix (its units are sorted ids)."""
    if kind in QUERY_KINDS:
        return np.unique(data.q_question[~np.isnan(data.q_codes[kind])])
    ok = ~np.isnan(data.i_codes[kind])
    items, first = np.unique(data.i_item[ok], return_index=True)
    return data.i_question[ok][first]


def analyse_quality(data: QualityData, rounds: int = 1000, seed: int = 0,
                    signal: str | None = None, failed=frozenset()) -> dict:  # fmt: skip
    """Per annotation type: distribution (overall and by question origin / rubric kind) and
    binarised PA with the paper's merge and the paper's PA for reference.

    ``signal`` (ANALYSES §0, §3): the labels the distribution counts (default and
    ``each``: every label; ``majority``: one per unit — a question, or a rubric item —,
    ties left out; ``adjudicated``: the unit's adjudication where there is one
    (``data.adjudicated``, :func:`metaeval.loaders.quality.load_quality`), else the
    majority; neither reads the labels of ``failed``, the annotators who failed
    qualification). Binarised PA and the error-flag share are about each annotator's
    judgment whatever the signal."""
    out = {}
    summaries = {}
    for kind in (*QUERY_KINDS, *ITEM_KINDS):
        spec = BINARISATIONS[kind]
        codes = data.q_codes[kind] if kind in QUERY_KINDS else data.i_codes[kind]
        groups = (np.array(data.q_origin, dtype=object) if kind in QUERY_KINDS
                  else np.array(data.rubric_kinds, dtype=object)[data.i_rubric_kind]
                  if data.rubric_kinds else np.array([], dtype=object))  # fmt: skip
        if signal not in (None, "each"):
            query = kind in QUERY_KINDS
            c = collapse(data.q_question if query else data.i_item, codes, signal,
                         (data.adjudicated or {}).get(kind),
                         failed_rows(data.q_annotator if query else data.i_annotator,
                                      failed))  # fmt: skip
            codes = c.label
            groups = groups[c.rows] if groups.size else groups
            summaries[kind] = c.summary(signal)
        dist = label_distribution(codes, spec)
        m = data.matrix(kind)
        pa = binarised_agreement(m, spec) if m.size else None
        out[kind] = {
            "categories": [str(c) for c in spec.categories],
            "merged": [str(c) for c in spec.merged],
            "counts": dist.counts.tolist(),
            "shares": nan_to_none(dist.shares),
            "merged_share": figure(dist.merged_share, dist.n, undefined="No label.").as_dict(),
            "by_group": {
                str(g): label_distribution(codes[groups == g], spec).counts.tolist()
                for g in sorted(set(groups.tolist()))
            },
            "binarised_pa": interval(
                lambda r, m=m, spec=spec: binarised_agreement(m[r], spec).strict,
                _unit_questions(data, kind) if m.size else np.array([]), rounds, seed,
                pa.n_pairs if pa else 0, "No unit has two labels.",
            ),
            "paper_pa": spec.paper_pa,
        }  # fmt: skip
    flagged, n = any_flag_share(data.i_flags)
    out["item_flags"] = figure(flagged, n, undefined="No rubric-item judgment.").as_dict()
    if signal is not None:
        out["human_signal"] = {"mode": signal, "kinds": summaries, "note": _note(signal, summaries)}
    return out


def _note(signal: str, summaries: dict) -> str:
    if signal == "each":
        return "Human signal: each annotator's label (distributions count every label)."
    tied = sum(s["tied"] for s in summaries.values())
    text = (f"Human signal: {signal}; the distributions count one label per question or "
            f"rubric item ({tied} tied units left out); binarised PA and error flags are "
            "about each annotator.")  # fmt: skip
    if signal == "adjudicated":
        used = sum(s["adjudicated"] for s in summaries.values())
        text += f" {used} units read their adjudicated label."
    return text
