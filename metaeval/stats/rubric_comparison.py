"""Rubric comparison win rates (seed 003 Appendix A.4; METHODS §2.9, §7 "003 follow-ups").

An expert ranks the 2–3 rubrics of a question with medals; each ranking decomposes into its
pairwise *matches* by transitivity, exactly as report rankings do (:func:`.decisions.
ranking_to_pairs`). Per rubric source (hybrid / human-written / LLM …):

    win rate   = wins / matches          (the paper: "our rubric wins 70 % of all its
    tie rate   = ties / matches           matches with 10 % ties")
    score      = (wins + ½ ties) / matches

The p-value of the comparison of two sources X and Y (the paper: 70 % vs 40 %, p = 0.000):

* ``binomial`` (default): their head-to-head matches, ties left out; under H0 each decisive
  match is won by X with probability ½; two-sided exact binomial test (scipy.stats.binomtest).
* ``permutation``: the difference of the two sources' scores over *all* their matches, with
  the source labels of each ranking's rubrics permuted (paired within a ranking): a paired
  permutation over rankings of X's and Y's points (:func:`.bootstrap.paired_permutation_test`).

The paper does not name its test; its printed figures cannot be recomputed from the text
(no head-to-head counts), see docs/ANALYSES.md.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .bootstrap import paired_permutation_test


class SourceRecord(NamedTuple):
    source: int
    matches: int
    wins: int
    ties: int
    losses: int
    win_rate: float
    tie_rate: float
    score: float  # (wins + ½ ties) / matches


def matches_from_rankings(
    ranking, source, medal
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Pairwise matches of medal rankings: (ranking, source a, source b, decision).

    Rows are one (ranking, rubric) medal: ``ranking`` codes, ``source`` codes, ``medal``
    values (gold 1, silver ½, bronze 0). Within a ranking every two rubrics form a match,
    oriented with a < b; decision = sign(medal a − medal b).
    """
    r = np.asarray(ranking).ravel()
    s = np.asarray(source).ravel()
    m = np.asarray(medal, dtype=float).ravel()
    order = np.lexsort((s, r))
    r, s, m = r[order], s[order], m[order]
    out_r, out_a, out_b, out_d = [], [], [], []
    bounds = np.flatnonzero(np.r_[True, r[1:] != r[:-1], True])
    for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
        for i in range(lo, hi):
            for j in range(i + 1, hi):
                out_r.append(r[i])
                out_a.append(s[i])
                out_b.append(s[j])
                out_d.append(int(np.sign(m[i] - m[j])))
    return (np.asarray(out_r), np.asarray(out_a, dtype=int), np.asarray(out_b, dtype=int),
            np.asarray(out_d, dtype=int))  # fmt: skip


def source_records(source_a, source_b, decision) -> list[SourceRecord]:
    """Wins, ties, losses and rates of each source over its matches."""
    a = np.asarray(source_a, dtype=int).ravel()
    b = np.asarray(source_b, dtype=int).ravel()
    d = np.asarray(decision, dtype=int).ravel()
    out = []
    for s in np.unique(np.concatenate((a, b))):
        as_a, as_b = a == s, b == s
        wins = int((as_a & (d > 0)).sum() + (as_b & (d < 0)).sum())
        ties = int(((as_a | as_b) & (d == 0)).sum())
        n = int(as_a.sum() + as_b.sum())
        losses = n - wins - ties
        out.append(SourceRecord(int(s), n, wins, ties, losses, wins / n, ties / n,
                                (wins + ties / 2) / n))  # fmt: skip
    return out


class SourceComparison(NamedTuple):
    x: int
    y: int
    x_wins: int  # head-to-head
    y_wins: int
    ties: int
    pvalue: float  # NaN when no decisive match (binomial) / no paired ranking
    method: str


def compare_sources(
    source_a, source_b, decision, x: int, y: int, method: str = "binomial",
    ranking=None, n_rounds: int = 10_000, seed: int = 0,
) -> SourceComparison:  # fmt: skip
    """Two-sided p-value that sources ``x`` and ``y`` differ (module docstring)."""
    a = np.asarray(source_a, dtype=int).ravel()
    b = np.asarray(source_b, dtype=int).ravel()
    d = np.asarray(decision, dtype=int).ravel()
    xy = (a == x) & (b == y)
    yx = (a == y) & (b == x)
    x_wins = int((xy & (d > 0)).sum() + (yx & (d < 0)).sum())
    y_wins = int((xy & (d < 0)).sum() + (yx & (d > 0)).sum())
    ties = int(((xy | yx) & (d == 0)).sum())
    if method == "binomial":
        if x_wins + y_wins == 0:
            return SourceComparison(x, y, x_wins, y_wins, ties, float("nan"), method)
        from scipy.stats import binomtest

        p = binomtest(x_wins, x_wins + y_wins, 0.5, alternative="two-sided").pvalue
        return SourceComparison(x, y, x_wins, y_wins, ties, float(p), method)
    if method != "permutation":
        raise ValueError("method must be 'binomial' or 'permutation'")
    if ranking is None:
        raise ValueError("the permutation test pairs the sources within rankings: pass ranking")
    r = np.asarray(ranking).ravel()
    keys, codes = np.unique(r, return_inverse=True)

    def sums(s):  # per ranking: (points of s, matches of s)
        pts = np.where(a == s, (d + 1) / 2, 0.0) + np.where(b == s, (1 - d) / 2, 0.0)
        n = ((a == s) | (b == s)).astype(float)
        return np.stack((np.bincount(codes, pts, keys.size), np.bincount(codes, n, keys.size)), 1)

    sx, sy = sums(x), sums(y)
    paired = (sx[:, 1] > 0) & (sy[:, 1] > 0)
    if not paired.any():
        return SourceComparison(x, y, x_wins, y_wins, ties, float("nan"), method)

    def score(t):
        return t[..., 0] / t[..., 1]

    res = paired_permutation_test(sx[paired], sy[paired], n_rounds, seed, statistic=score)
    return SourceComparison(x, y, x_wins, y_wins, ties, float(res.pvalue), method)
