"""Kendall-style statistics over decisions, from sufficient statistics computed once.

Here each *judgment* is one pair of reports: the human decision and the judge decision
are the two "rankings" of that pair. :func:`pair_counts` classifies every judgment once
(concordant, discordant, tied for one side, tied for both); every Kendall variant and the
Deutsch et al. (2023) accuracies are formulas over those five numbers, the design of
mt-metrics-eval's ``stats.KendallVariants``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .decisions import as_decisions


class PairCounts(NamedTuple):
    """Sufficient statistics for human vs judge decisions.

    The five counts *partition* the judgments:
    ``concordant + discordant + human_ties + judge_ties + joint_ties == n``.
    ``human_ties`` and ``judge_ties`` are the ties of *one side only* (the other side
    decided); use :attr:`all_human_ties` / :attr:`all_judge_ties` for the totals
    including joint ties, as τ-b needs.
    """

    concordant: int  # both decide, same direction
    discordant: int  # both decide, opposite directions
    human_ties: int  # human tie, judge decides
    judge_ties: int  # judge tie, human decides
    joint_ties: int  # both tie
    n: int

    @property
    def all_human_ties(self) -> int:
        return self.human_ties + self.joint_ties

    @property
    def all_judge_ties(self) -> int:
        return self.judge_ties + self.joint_ties

    def __add__(self, other):  # counts over disjoint sets of judgments add up
        if not isinstance(other, PairCounts):
            return NotImplemented
        return PairCounts(*(x + y for x, y in zip(self, other, strict=True)))


class KendallResult(NamedTuple):
    """A τ with its p-value (NaN where not defined) and the number of items used."""

    statistic: float
    pvalue: float
    n: int


def pair_counts(human, judge) -> PairCounts:
    """Classify each judgment as concordant / discordant / tie (METHODS §5).

    Orientation-free: negating both ``human`` and ``judge`` (swapping A and B) leaves
    every count unchanged.
    """
    h = as_decisions(human).ravel()
    m = as_decisions(judge).ravel()
    if h.shape != m.shape:
        raise ValueError(f"human and judge lengths differ ({h.size} vs {m.size})")
    ht, mt = h == 0, m == 0
    both = ~ht & ~mt
    return PairCounts(
        concordant=int(np.sum(both & (h == m))),
        discordant=int(np.sum(both & (h != m))),
        human_ties=int(np.sum(ht & ~mt)),
        judge_ties=int(np.sum(mt & ~ht)),
        joint_ties=int(np.sum(ht & mt)),
        n=int(h.size),
    )


def tau_b_from_counts(c: PairCounts) -> float:
    """τ-b = (C − D) / √((N − T_h)(N − T_m)), T_h / T_m counting joint ties too.

    NaN when either factor is 0 (one side tied everywhere, or no judgments): the
    statistic is undefined there, as in ``scipy.stats.kendalltau``.
    """
    den = (c.n - c.all_human_ties) * (c.n - c.all_judge_ties)
    if den == 0:
        return float("nan")
    return float((c.concordant - c.discordant) / np.sqrt(float(den)))


def tau_b_decisions(human, judge) -> float:
    """Kendall τ-b over decisions, each judgment being one pair (METHODS §5).

    ``τ_b = (C − D) / √((N − T_h)(N − T_m))`` with C, D, T_h, T_m, N from
    :func:`pair_counts` (a joint tie counts in both T_h and T_m). This is Kendall's
    τ-b formula (Kendall 1945) applied to the set of pairs *the annotators judged*: pair
    ``i`` is (report A, report B) of judgment ``i``, and its "x" and "y" orderings are
    the human and the judge decision. It is what ScholarQA-CS2 reports (seed 003 Table 2).

    Relationship to ``scipy.stats.kendalltau(human, judge, variant='b')``: they are
    **not** equal in general. scipy treats each judgment as an *item* and counts all
    ``N(N−1)/2`` pairs of judgments, comparing ``sign(h_i − h_j)`` with
    ``sign(m_i − m_j)`` — whether the judge orders two unrelated comparisons the way the
    human does, which is not the question asked. Example: human = judge = [1, 1]: here
    τ = 1 (two concordant pairs), scipy gives NaN (x constant); human = [1, 1, 1, -1],
    judge = [1, 1, 1, 1]: here (3 − 1)/√(4·4) = 0.5, scipy NaN. What is true: for one
    judgment ``i`` on its own, ``kendalltau([h_i, 0], [m_i, 0])`` (the pair compared
    with a fixed reference item) is ``h_i·m_i`` or NaN on a tie, and τ-b here is the
    τ-b of the *pooled* pair counts of those per-judgment two-item rankings; with a
    single judgment both agree. No rearrangement of the judgments into two score
    vectors reproduces the pooled counts in general, because scipy would also count the
    cross-judgment pairs. The tests check this against a brute-force pair count.
    """
    return tau_b_from_counts(pair_counts(human, judge))


def tau_b_scores(x, y, *, nan_policy: str = "propagate") -> KendallResult:
    """``scipy.stats.kendalltau(x, y, variant='b')`` over two score vectors.

    For system-level rankings (METHODS §5 "System level"), where items *are* the
    systems and the classical definition is the right one. ``nan_policy`` is passed to
    scipy ('propagate', 'omit' or 'raise'); ``n`` counts the pairs of values used.
    """
    x = np.asarray(x, dtype=float).ravel()
    y = np.asarray(y, dtype=float).ravel()
    if x.shape != y.shape:
        raise ValueError(f"x and y lengths differ ({x.size} vs {y.size})")
    n = int(np.sum(~(np.isnan(x) | np.isnan(y)))) if nan_policy == "omit" else x.size
    if n < 2:
        return KendallResult(float("nan"), float("nan"), n)
    import scipy.stats  # here, not at the top: importing it costs a report command ~1 s

    res = scipy.stats.kendalltau(x, y, variant="b", nan_policy=nan_policy)
    return KendallResult(float(res.statistic), float(res.pvalue), n)
