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

from .bootstrap import BootstrapResult, bootstrap_from_cluster_sums, cluster_sums
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


# --- The bootstrap of the four figures, vectorised over rounds ---------------------------
#
# Every figure of :func:`iaa_summary` is a function of totals over units: strict agreement
# of (agreeing pairs, pairs); Fleiss' κ of (Σ P_i, units, labels per category); α of the
# coincidence matrix (Krippendorff 2011: each unit's o_ck = Σ pairs (c, k) / (m_u − 1));
# each annotator pair's Cohen's κ of (units both labelled, equal labels, each side's
# labels per category). A resample's totals are the sums of its questions' totals, each
# weighted by how often the question was drawn, so all rounds are one matrix product
# (:func:`.bootstrap.bootstrap_from_cluster_sums`) instead of one call of the four
# functions (and the ``krippendorff`` package) per round. The rounds draw the same
# questions as :func:`.bootstrap.cluster_bootstrap` with the same seed, so the replicates,
# and the interval, are the per-round computation's up to floating-point rounding
# (tests/metaeval/stats/test_label_iaa_bootstrap.py; bench/label_iaa_bootstrap.py).

#: Columns of a unit's statistics before its category counts (:func:`unit_statistics`).
_AGREE, _PAIRS, _P_I, _UNITS, _COUNTS = range(5)


class Layout(NamedTuple):
    """Where each figure's totals sit in a row of :func:`unit_statistics`."""

    cats: np.ndarray  # the categories, sorted (the coincidence matrix's order)
    pairs: list[tuple[int, int]]  # annotator columns that share a unit

    @property
    def coincidences(self) -> int:
        return _COUNTS + self.cats.size

    @property
    def pair_width(self) -> int:
        return 2 + 2 * self.cats.size

    @property
    def width(self) -> int:
        return self.coincidences + self.cats.size**2 + len(self.pairs) * self.pair_width


def unit_statistics(labels) -> tuple[np.ndarray, Layout]:
    """Per unit with ≥ 2 labels (the others carry no agreement and are left out, as
    :func:`iaa_summary` leaves them), the totals every figure is computed from:
    ``(units × width, layout)``. Columns: agreeing pairs, pairs, Fleiss' P_i, 1 (the unit),
    labels per category (C), the unit's coincidences (C × C), then per annotator pair that
    shares a unit: both labelled, equal, the first's category one-hot (C), the second's (C)."""
    m = np.asarray(labels, dtype=float)
    if m.ndim != 2:
        raise ValueError("labels must be a 2-D units × annotators array")
    keep = (~np.isnan(m)).sum(axis=1) >= 2
    m = m[keep]
    present = ~np.isnan(m)
    cats = np.unique(m[present])
    c = cats.size
    counts = (m[:, :, None] == cats).sum(axis=1).astype(float)  # units × C
    n = counts.sum(axis=1)
    pairs = [(i, j) for i in range(m.shape[1]) for j in range(i + 1, m.shape[1])
             if (present[:, i] & present[:, j]).any()]  # fmt: skip
    layout = Layout(cats, pairs)
    out = np.zeros((m.shape[0], layout.width))
    out[:, _AGREE] = (counts * (counts - 1) / 2).sum(axis=1)
    out[:, _PAIRS] = n * (n - 1) / 2
    out[:, _P_I] = (counts * (counts - 1)).sum(axis=1) / (n * (n - 1))
    out[:, _UNITS] = 1.0
    out[:, _COUNTS : _COUNTS + c] = counts
    unit = counts[:, :, None] * counts[:, None, :] - counts[:, :, None] * np.eye(c)
    at = layout.coincidences
    out[:, at : at + c * c] = (unit / (n - 1)[:, None, None]).reshape(-1, c * c)
    at += c * c
    for i, j in pairs:
        both = present[:, i] & present[:, j]
        out[:, at] = both
        out[:, at + 1] = both & (m[:, i] == m[:, j])
        out[:, at + 2 : at + 2 + c] = both[:, None] & (m[:, i, None] == cats)
        out[:, at + 2 + c : at + 2 + 2 * c] = both[:, None] & (m[:, j, None] == cats)
        at += layout.pair_width
    return out, layout


def _distances(cats: np.ndarray, n_v: np.ndarray, level: str) -> np.ndarray:
    """δ²_ck of Krippendorff's α at ``level`` per round (R × C × C), as the ``krippendorff``
    package defines them; the ordinal one depends on the round's label counts ``n_v``."""
    r, c = n_v.shape
    if level == "nominal":
        return np.broadcast_to(1.0 - np.eye(c), (r, c, c))
    if level == "interval":
        return np.broadcast_to((cats[:, None] - cats[None, :]) ** 2, (r, c, c))
    if level == "ratio":
        with np.errstate(invalid="ignore", divide="ignore"):
            d = ((cats[:, None] - cats[None, :]) / (cats[:, None] + cats[None, :])) ** 2
        return np.broadcast_to(np.nan_to_num(d), (r, c, c))
    if level == "ordinal":
        idx = np.arange(c)
        lo, hi = np.minimum.outer(idx, idx), np.maximum.outer(idx, idx)
        upto = np.concatenate([np.zeros((r, 1)), np.cumsum(n_v, axis=1)], axis=1)
        between = upto[:, hi + 1] - upto[:, lo]  # Σ n_g for g from c to k, both included
        return (between - (n_v[:, :, None] + n_v[:, None, :]) / 2) ** 2
    raise ValueError(f"unknown level of measurement {level!r}")


def alpha_of_coincidences(o, cats: np.ndarray, level: str) -> np.ndarray:
    """Krippendorff's α of each round's summed coincidence matrix (R × C × C → R): α =
    1 − D_o / D_e with D_o from the observed coincidences and D_e from their marginals
    (Krippendorff 2011, §"α for any number of observers"), at ``level``; NaN for a round
    whose labels are all of one category (no disagreement is possible)."""
    o = np.asarray(o, dtype=float)
    c = cats.size
    with np.errstate(invalid="ignore", divide="ignore"):
        n_v = o.sum(axis=1)
        n = n_v.sum(axis=1)
        e = n_v[:, :, None] * n_v[:, None, :] - n_v[:, :, None] * np.eye(c)
        e /= (n - 1)[:, None, None]
        d = _distances(cats, n_v, level)
        alpha = 1 - (o * d).sum(axis=(1, 2)) / (e * d).sum(axis=(1, 2))
    return np.where((n_v > 0).sum(axis=1) >= 2, alpha, np.nan)


def figures_of_totals(totals, layout: Layout, level: str) -> np.ndarray:
    """(strict, Cohen's κ as the mean over annotator pairs, Fleiss' κ, Krippendorff's α) of
    each row of summed unit statistics (R × width → R × 4): the figures of
    :func:`iaa_summary` on those units, NaN where it has none (a round of one category)."""
    t = np.atleast_2d(np.asarray(totals, dtype=float))
    c = layout.cats.size
    with np.errstate(invalid="ignore", divide="ignore"):
        strict = t[:, _AGREE] / t[:, _PAIRS]
        counts = t[:, _COUNTS : _COUNTS + c]
        p_k = counts / counts.sum(axis=1)[:, None]
        p_e = (p_k**2).sum(axis=1)
        p_bar = t[:, _P_I] / t[:, _UNITS]
        fleiss = np.where(p_e < 1, (p_bar - p_e) / (1 - p_e), np.nan)

        at = layout.coincidences
        alpha = alpha_of_coincidences(t[:, at : at + c * c].reshape(-1, c, c), layout.cats, level)

        at += c * c
        kappas = np.full((t.shape[0], len(layout.pairs)), np.nan)
        for p in range(len(layout.pairs)):
            both, equal = t[:, at], t[:, at + 1]
            p1 = t[:, at + 2 : at + 2 + c] / both[:, None]
            p2 = t[:, at + 2 + c : at + 2 + 2 * c] / both[:, None]
            po, pe = equal / both, (p1 * p2).sum(axis=1)
            kappas[:, p] = np.where((both > 0) & (pe < 1), (po - pe) / (1 - pe), np.nan)
            at += layout.pair_width
        defined = np.isfinite(kappas).sum(axis=1)
        cohen = np.where(defined > 0, np.nansum(kappas, axis=1) / np.maximum(defined, 1), np.nan)
    return np.stack([strict, cohen, fleiss, alpha], axis=1)


def iaa_bootstrap(labels, clusters, level: str = "nominal", n_rounds: int = 1000,
                  seed: int = 0, alpha: float = 0.05) -> BootstrapResult:  # fmt: skip
    """Percentile intervals of (strict, Cohen's κ, Fleiss' κ, α) of a units × annotators
    matrix, resampling whole questions (``clusters``: each unit's question; METHODS §5):
    a :class:`BootstrapResult` of four figures. Units with fewer than two labels
    are dropped before the questions are counted."""
    m = np.asarray(labels, dtype=float)
    c = np.asarray(clusters).ravel()
    if c.size != m.shape[0]:
        raise ValueError("clusters must give one question per unit (row)")
    doubly = (~np.isnan(m)).sum(axis=1) >= 2
    rows, layout = unit_statistics(m)
    sums, _ = cluster_sums(c[doubly], rows)
    return bootstrap_from_cluster_sums(
        sums, lambda t: figures_of_totals(t, layout, level), n_rounds, seed, alpha
    )
