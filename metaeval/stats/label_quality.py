"""Query quality and rubric-item quality labels (ResearchQA §3.1, §3.2, Fig. 3, Table 2;
METHODS §7 "ResearchQA binarisations").

Each annotation type has an ordered list of categories (the platform's stored values) and
the paper's merge: the merged group is one class, every other label the other class, and
the binarised pairwise agreement (PA) is the share of annotator pairs of one unit with
labels in the same class (:func:`.iaa.binary_pairwise_agreement`). The label distribution
is the count and share of each category over all labels (Fig. 3's bars).

Ratings 1–5 of clarity, naturalness and relevance are read as the paper's scales from the
lowest to the highest point: clarity 4 = *Largely explicit*, 5 = *Explicit*; naturalness
and relevance 3 = *Slightly likely*, 4 = *Likely*, 5 = *Very likely* (docs/ANALYSES.md
says why; a study can pass its own merge).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from .iaa import PairwiseAgreement, binary_pairwise_agreement


class Binarisation(NamedTuple):
    categories: tuple  # stored values, in scale order
    merged: tuple  # the paper's merged group (one class; the rest is the other)
    paper_pa: float | None  # ResearchQA Table 2, for reference


#: ResearchQA Table 2's annotation types with the paper's merges.
BINARISATIONS: dict[str, Binarisation] = {
    "clarity": Binarisation((1, 2, 3, 4, 5), (4, 5), 0.72),
    "naturalness": Binarisation((1, 2, 3, 4, 5), (3, 4, 5), 0.73),
    "relevance": Binarisation((1, 2, 3, 4, 5), (3, 4, 5), 0.83),
    "variability": Binarisation(
        ("open_ended", "semi_open", "closed"), ("semi_open", "closed"), 0.88
    ),
    "emphasis": Binarisation(
        ("none", "lt_sentence", "sentence", "few_sentences", "paragraph_plus"),
        ("none", "lt_sentence"),
        0.91,
    ),
    "necessity": Binarisation(
        (
            "significant_improvement",
            "minor_improvement",
            "no_change",
            "minor_degradation",
            "moderate_degradation",
            "significant_degradation",
        ),
        ("significant_improvement", "minor_improvement"),
        0.94,
    ),
}


def encode(values: Sequence, categories: Sequence) -> np.ndarray:
    """Stored values → category index (float; NaN for None / empty). Unknown values raise."""
    index = {c: float(i) for i, c in enumerate(categories)}
    out = np.full(len(values), np.nan)
    for k, v in enumerate(values):
        if v is None or v == "":
            continue
        if v not in index:
            raise ValueError(f"{v!r} is not one of {list(categories)}")
        out[k] = index[v]
    return out


class Distribution(NamedTuple):
    categories: tuple
    counts: np.ndarray  # labels per category
    shares: np.ndarray  # counts / n (NaN when n = 0)
    merged_share: float  # share of labels in the merged group
    n: int


def label_distribution(codes, kind: Binarisation) -> Distribution:
    """Counts and shares of each category over all labels (NaN codes ignored)."""
    c = np.asarray(codes, dtype=float).ravel()
    c = c[~np.isnan(c)].astype(int)
    k = len(kind.categories)
    counts = np.bincount(c, minlength=k)[:k]
    n = int(c.size)
    shares = counts / n if n else np.full(k, np.nan)
    merged = [kind.categories.index(m) for m in kind.merged]
    return Distribution(
        kind.categories, counts, shares, float(counts[merged].sum() / n) if n else float("nan"), n
    )


def binarised_agreement(codes_matrix, kind: Binarisation) -> PairwiseAgreement:
    """ResearchQA Table 2 PA of one annotation type (units × annotators of codes)."""
    merged = [float(kind.categories.index(m)) for m in kind.merged]
    rest = [float(i) for i in range(len(kind.categories)) if float(i) not in merged]
    return binary_pairwise_agreement(codes_matrix, positive=merged, negative=rest)


def any_flag_share(flag_lists: Sequence[Sequence[str]]) -> tuple[float, int]:
    """Share of rubric-item judgments with at least one error flag (ResearchQA §3.2: "the
    presence of any of these flags voids the quality of the rubric item"), and n."""
    n = len(flag_lists)
    flagged = sum(1 for f in flag_lists if f)
    return (flagged / n if n else float("nan")), n
