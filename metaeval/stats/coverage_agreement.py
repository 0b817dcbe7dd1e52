"""Rubric-coverage agreement, human vs judge and human vs human (ResearchQA §3.3, Table 2,
Fig. 11; METHODS §7 "Coverage alignment").

Labels 0–4 (0 Not at all … 4 Completely) per (report, rubric item). For aligned human and
judge labels (NaN on either side drops the unit):

    exact       = share with h = j
    binarised   = share with [h ≥ 2] = [j ≥ 2]           ({0,1} vs {2,3,4}, Table 2)
    weighted κ  = 1 − Σ w_ij·O_ij / Σ w_ij·E_ij,  w_ij = (i − j)² / (K − 1)²   (quadratic;
                  O the observed, E the chance table from the two marginals; Cohen 1968)
    Pearson r, mean difference mean(j − h), 5 × 5 confusion (rows human, columns judge)
                  — from :func:`.coverage.coverage_alignment`.

Human vs human uses every pair of annotators of a doubly annotated unit (both orders, so
the table is symmetric and no annotator is "first"); ResearchQA's PA .73 is the binarised
share over those pairs.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .coverage import coverage_alignment
from .iaa import krippendorff_alpha

LEVELS = 5
POSITIVE_FROM = 2  # {2, 3, 4} covered in the binarised view


class CoverageAgreement(NamedTuple):
    exact: float
    binarised: float
    weighted_kappa: float  # NaN: chance disagreement is 0 (one label used throughout)
    pearson: float  # NaN: a constant side
    mean_difference: float  # mean(judge − human)
    confusion: np.ndarray  # 5 × 5, rows human, columns judge
    n: int


def weighted_kappa(x, y, levels: int = LEVELS, weights: str = "quadratic") -> float:
    """Cohen's weighted κ of two aligned 0..levels−1 label vectors (NaN rows dropped).

    ``weights``: 'quadratic' ((i − j)²/(K − 1)², the default, METHODS §7) or 'linear'
    (|i − j|/(K − 1)). NaN when there is no unit or the chance disagreement is 0.
    """
    a = np.asarray(x, dtype=float).ravel()
    b = np.asarray(y, dtype=float).ravel()
    ok = ~(np.isnan(a) | np.isnan(b))
    a, b = a[ok].astype(int), b[ok].astype(int)
    if a.size == 0:
        return float("nan")
    observed = np.zeros((levels, levels))
    np.add.at(observed, (a, b), 1)
    observed /= a.size
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0))
    i, j = np.indices((levels, levels))
    if weights == "quadratic":
        w = (i - j) ** 2 / (levels - 1) ** 2
    elif weights == "linear":
        w = np.abs(i - j) / (levels - 1)
    else:
        raise ValueError("weights must be 'quadratic' or 'linear'")
    de = float((w * expected).sum())
    return 1 - float((w * observed).sum()) / de if de > 0 else float("nan")


def coverage_agreement(human, judge) -> CoverageAgreement:
    """Every human-vs-judge coverage figure of METHODS §7 on aligned 0–4 labels."""
    h = np.asarray(human, dtype=float).ravel()
    j = np.asarray(judge, dtype=float).ravel()
    base = coverage_alignment(h, j)  # validates 0–4 and drops NaN pairs
    ok = ~(np.isnan(h) | np.isnan(j))
    h, j = h[ok], j[ok]
    n = int(h.size)
    nan = float("nan")
    return CoverageAgreement(
        exact=float(np.mean(h == j)) if n else nan,
        binarised=float(np.mean((h >= POSITIVE_FROM) == (j >= POSITIVE_FROM))) if n else nan,
        weighted_kappa=weighted_kappa(h, j),
        pearson=base.pearson,
        mean_difference=base.mean_difference,
        confusion=base.confusion,
        n=n,
    )


def annotator_pairs(labels) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """All ordered pairs (x, y) of two annotators' labels on the same unit, both orders.

    ``labels``: units × annotators (NaN = missing). Returns (x, y, unit index of the pair).
    """
    m = np.asarray(labels, dtype=float)
    xs, ys, units = [], [], []
    present = ~np.isnan(m)
    for a in range(m.shape[1]):
        for b in range(m.shape[1]):
            if a == b:
                continue
            both = present[:, a] & present[:, b]
            idx = np.flatnonzero(both)
            xs.append(m[idx, a])
            ys.append(m[idx, b])
            units.append(idx)
    if not xs:
        return np.empty(0), np.empty(0), np.empty(0, dtype=int)
    return np.concatenate(xs), np.concatenate(ys), np.concatenate(units)


class HumanCoverageAgreement(NamedTuple):
    exact: float  # share of annotator pairs with equal labels
    binarised: float  # ResearchQA Table 2 PA (.73)
    weighted_kappa: float  # quadratic, on the symmetric pair table
    krippendorff_alpha: float  # ordinal
    n_units: int  # units with ≥ 2 labels
    n_pairs: int  # unordered annotator pairs


def human_coverage_agreement(labels) -> HumanCoverageAgreement:
    """Human-vs-human coverage agreement on doubly annotated units (units × annotators)."""
    m = np.asarray(labels, dtype=float)
    x, y, units = annotator_pairs(m)
    n_pairs = x.size // 2
    nan = float("nan")
    if n_pairs == 0:
        return HumanCoverageAgreement(nan, nan, nan, nan, 0, 0)
    return HumanCoverageAgreement(
        exact=float(np.mean(x == y)),
        binarised=float(np.mean((x >= POSITIVE_FROM) == (y >= POSITIVE_FROM))),
        weighted_kappa=weighted_kappa(x, y),
        krippendorff_alpha=krippendorff_alpha(m, "ordinal").value,
        n_units=int(np.unique(units).size),
        n_pairs=int(n_pairs),
    )


# --- Every human-vs-judge figure from sums (the fast bootstrap path) -------------------
# Columns of the per-row sufficient statistics; each figure is a function of their totals,
# so a cluster bootstrap is one matrix product (:func:`.bootstrap.bootstrap_from_cluster_sums`).
MOMENT_COLUMNS = ("n", "h", "j", "hh", "jj", "hj", "exact", "binarised")
FIGURES_OF_TOTALS = ("exact", "binarised", "weighted_kappa", "pearson", "mean_difference")


def moment_rows(human, judge) -> np.ndarray:
    """(n, 8) rows [1, h, j, h², j², h·j, [h = j], [h ≥ 2] = [j ≥ 2]] of aligned labels
    (rows with NaN on either side are all zero, i.e. left out)."""
    h = np.asarray(human, dtype=float).ravel()
    j = np.asarray(judge, dtype=float).ravel()
    ok = ~(np.isnan(h) | np.isnan(j))
    h0, j0 = np.where(ok, h, 0.0), np.where(ok, j, 0.0)
    one = ok.astype(float)
    return np.stack(
        (one, h0, j0, h0 * h0, j0 * j0, h0 * j0, one * (h0 == j0),
         one * ((h0 >= POSITIVE_FROM) == (j0 >= POSITIVE_FROM))),
        axis=1,
    )  # fmt: skip


def figures_of_totals(t) -> np.ndarray:
    """(…, 8) totals → (…, 5): exact, binarised, quadratic κ, Pearson, mean(j − h).

    With population moments (divide by n): quadratic weighted κ = 2·cov / (var h + var j +
    (h̄ − j̄)²) — the same number as :func:`weighted_kappa` on the 5 × 5 table (Cohen 1968;
    tested) — and Pearson r = cov / √(var h · var j). NaN where a denominator is 0.
    """
    t = np.asarray(t, dtype=float)
    n = t[..., 0]
    with np.errstate(invalid="ignore", divide="ignore"):
        mh, mj = t[..., 1] / n, t[..., 2] / n
        vh = t[..., 3] / n - mh**2
        vj = t[..., 4] / n - mj**2
        cov = t[..., 5] / n - mh * mj
        vh, vj = np.maximum(vh, 0), np.maximum(vj, 0)
        den_k = vh + vj + (mh - mj) ** 2
        kappa = np.where(den_k > 1e-12, 2 * cov / np.where(den_k > 1e-12, den_k, 1), np.nan)
        den_r = np.sqrt(vh * vj)
        r = np.where(den_r > 1e-12, cov / np.where(den_r > 1e-12, den_r, 1), np.nan)
        out = np.stack((t[..., 6] / n, t[..., 7] / n, kappa, r, mj - mh), axis=-1)
    return np.where(n[..., None] > 0, out, np.nan)


# --- Human vs human from sums (the fast bootstrap path) --------------------------------
# Each ordered annotator pair of a unit is one row: its moment row (exact, binarised and
# quadratic κ of the pairs, as :func:`human_coverage_agreement` computes them on both
# orders) and its coincidence, 1 / (m_u − 1) in cell (x, y) (Krippendorff 2011: a unit
# of m_u labels adds that for each ordered pair of its labels), so α is a function of the
# totals too. A resample's totals are its questions' sums: every round is one matrix
# product (:func:`.bootstrap.bootstrap_from_cluster_sums`), not one call of
# :func:`human_coverage_agreement` (and the ``krippendorff`` package) per round.

#: The figures of :func:`human_pair_figures`, in order.
HUMAN_PAIR_FIGURES = ("exact", "binarised", "weighted_kappa", "krippendorff_alpha")
_CATEGORIES = np.arange(LEVELS, dtype=float)


def human_pair_rows(labels) -> tuple[np.ndarray, np.ndarray]:
    """(rows, unit of each row): one row per ordered pair of two annotators' labels on a
    unit (:func:`annotator_pairs`), its :func:`moment_rows` columns then its 5 × 5
    coincidence cell weighted 1 / (m_u − 1)."""
    m = np.asarray(labels, dtype=float)
    x, y, units = annotator_pairs(m)
    labelled = (~np.isnan(m)).sum(axis=1)
    coincidence = np.zeros((x.size, LEVELS * LEVELS))
    if x.size:
        cell = x.astype(int) * LEVELS + y.astype(int)
        coincidence[np.arange(x.size), cell] = 1.0 / (labelled[units] - 1)
    return np.hstack([moment_rows(x, y), coincidence]), units


def human_pair_figures(totals) -> np.ndarray:
    """(R, 8 + 25) totals of :func:`human_pair_rows` → (R, 4): exact, binarised,
    quadratic κ, ordinal α (:data:`HUMAN_PAIR_FIGURES`)."""
    from .label_iaa import alpha_of_coincidences

    t = np.atleast_2d(np.asarray(totals, dtype=float))
    moments = figures_of_totals(t[:, : len(MOMENT_COLUMNS)])[:, :3]
    o = t[:, len(MOMENT_COLUMNS) :].reshape(-1, LEVELS, LEVELS)
    return np.column_stack([moments, alpha_of_coincidences(o, _CATEGORIES, "ordinal")])
