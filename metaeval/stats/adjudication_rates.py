"""Relevance adjudication: keep / switch / subjective rates per setting, and the test of a
difference between settings (seed 003 A.6, Figure 2; METHODS §7 "003 follow-ups").

Rates per setting = count of each decision / adjudicated disagreements of that setting
(:mod:`.adjudication` gives the agreement before and after). Between two settings
(near-expert vs deep-expert) the decisions form a 2 × 3 table; METHODS §7 asks for Fisher's
exact test:

* per decision, the 2 × 2 table (this decision vs the other two) × (setting A vs B),
  two-sided Fisher (scipy.stats.fisher_exact);
* over all three decisions at once, the Freeman–Halton extension of Fisher's test to the
  2 × 3 table: p = Σ P(T) over every table T with the observed margins and
  P(T) ≤ P(observed), P the multivariate hypergeometric probability (Freeman & Halton
  1951), enumerated exactly (at most (c₁ + 1)(c₂ + 1) tables).

The paper reports t(149) = 2.94, p = 0.004 on 151 disagreements without saying which
variable it compared; docs/ANALYSES.md says why the platform uses Fisher instead.
"""

from __future__ import annotations

from math import lgamma
from typing import NamedTuple

import numpy as np

DECISIONS = ("keep", "switch", "subjective")


class SettingRates(NamedTuple):
    setting: str
    counts: tuple[int, int, int]  # keep, switch, subjective
    rates: tuple[float, float, float]
    n: int


def setting_rates(settings, decisions) -> list[SettingRates]:
    """Counts and shares of each decision per setting (sorted by setting)."""
    s = np.asarray(settings).ravel()
    d = np.asarray(decisions).ravel()
    if s.shape != d.shape:
        raise ValueError("settings and decisions must have the same length")
    unknown = set(d.tolist()) - set(DECISIONS)
    if unknown:
        raise ValueError(f"unknown decisions: {sorted(unknown)}")
    out = []
    for setting in sorted(set(s.tolist())):
        sel = d[s == setting]
        counts = tuple(int((sel == k).sum()) for k in DECISIONS)
        n = int(sel.size)
        out.append(SettingRates(setting, counts, tuple(c / n for c in counts), n))
    return out


def _log_table_probability(table: np.ndarray) -> float:
    rows, cols, n = table.sum(axis=1), table.sum(axis=0), table.sum()
    return float(
        sum(lgamma(x + 1) for x in rows) + sum(lgamma(x + 1) for x in cols) - lgamma(n + 1)
        - sum(lgamma(x + 1) for x in table.ravel())
    )  # fmt: skip


def freeman_halton_2xk(table) -> float:
    """Exact two-sided p of a 2 × k contingency table (k = 2 or 3), Freeman–Halton."""
    t = np.asarray(table, dtype=int)
    if t.shape[0] != 2 or t.shape[1] not in (2, 3):
        raise ValueError("a 2 × 2 or 2 × 3 table")
    if t.sum() == 0:
        return float("nan")
    row0 = int(t[0].sum())
    cols = t.sum(axis=0)
    observed = _log_table_probability(t)
    total = 0.0
    tol = 1e-7
    ranges = [range(0, int(c) + 1) for c in cols[:-1]]
    for first in ranges[0]:
        for second in ranges[1] if len(ranges) > 1 else [None]:
            top = [first] if second is None else [first, second]
            last = row0 - sum(top)
            if last < 0 or last > cols[-1]:
                continue
            row = np.array([*top, last])
            cand = np.stack((row, cols - row))
            lp = _log_table_probability(cand)
            if lp <= observed + tol:
                total += np.exp(lp)
    return float(min(1.0, total))


class SettingDifference(NamedTuple):
    a: str
    b: str
    table: np.ndarray  # 2 × 3: rows settings a, b; columns keep, switch, subjective
    pvalue_all: float  # Freeman–Halton over the three decisions
    pvalue_per_decision: dict  # decision → two-sided Fisher p of decision vs the rest
    odds_ratio_per_decision: dict


def setting_difference(rates_a: SettingRates, rates_b: SettingRates) -> SettingDifference:
    """Fisher's exact tests of a difference in decisions between two settings."""
    from scipy.stats import fisher_exact

    table = np.array([rates_a.counts, rates_b.counts], dtype=int)
    per, odds = {}, {}
    for k, name in enumerate(DECISIONS):
        two = np.array(
            [[table[0, k], rates_a.n - table[0, k]], [table[1, k], rates_b.n - table[1, k]]]
        )
        if two.sum() == 0:
            per[name] = odds[name] = float("nan")
            continue
        res = fisher_exact(two, alternative="two-sided")
        per[name], odds[name] = float(res.pvalue), float(res.statistic)
    return SettingDifference(rates_a.setting, rates_b.setting, table,
                             freeman_halton_2xk(table), per, odds)  # fmt: skip
