"""Each benchmark's own scoreboard from its judge results (docs/ANALYSES.md §14): a score
per report, then the mean over a system's reports with a percentile cluster bootstrap over
questions. Pure numpy.

Why the mean over reports: every benchmark averages a per-report score over its questions
(one report per question and system) — ResearcherBench Table 3's coverage is the mean of
each response's S_c = Σ w_i·b_i / Σ w_i (004 eq. 2; the released ``main.py`` prints the
average of the per-question ``recall``), ResearchQA's coverage % the mean over answers of
mean(label)/4 (001 §3.3, METHODS §4), DeepScholar's metrics per report then averaged
(002 App. 8.3), ScholarQA-CS2's per-answer metrics averaged per system (003 §3). Pooling
the items of all reports instead would weight a long rubric more than a short one.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .figure import Figure, figure
from .intervals import mean_interval


class ReportScores(NamedTuple):
    report: np.ndarray  # report ids, sorted
    score: np.ndarray  # per report; NaN when its weights sum to 0
    units: np.ndarray  # rows (items, labels) the score rests on


def report_scores(report, value, weight=None) -> ReportScores:
    """Σ w·v / Σ w per report over its rows (NaN values left out): S_c with ``value`` the
    0/1 covered flag and ``weight`` the item weight (004 eq. 2); a plain mean without
    ``weight``."""
    rep = np.asarray(report).ravel()
    v = np.asarray(value, dtype=float).ravel()
    w = np.ones_like(v) if weight is None else np.asarray(weight, dtype=float).ravel()
    ok = ~np.isnan(v) & ~np.isnan(w)
    keys, codes = np.unique(rep[ok], return_inverse=True)
    num = np.bincount(codes, w[ok] * v[ok], keys.size)
    den = np.bincount(codes, w[ok], keys.size)
    with np.errstate(invalid="ignore", divide="ignore"):
        score = np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)
    return ReportScores(keys, score, np.bincount(codes, minlength=keys.size))


def system_means(score, system, question, n_systems: int, rounds: int, seed: int = 0,
                 undefined: str = "No report of this system was scored.") -> list[Figure]:  # fmt: skip
    """Per system: the mean of its reports' scores (NaN left out), with the percentile
    cluster-bootstrap CI over questions when ``rounds`` > 0 (METHODS §5 "Uncertainty"; a
    system's interval is undefined with fewer than two questions). ``n`` = reports."""
    score = np.asarray(score, dtype=float)
    system = np.asarray(system)
    question = np.asarray(question)
    out = []
    for k in range(n_systems):
        rows = (system == k) & ~np.isnan(score)
        if not rows.any():
            out.append(figure(None, 0, undefined=undefined))
        elif rounds > 0:
            out.append(mean_interval(score[rows], question[rows], n_rounds=rounds, seed=seed,
                                     undefined=undefined))  # fmt: skip
        else:
            out.append(figure(score[rows].mean(), int(rows.sum()), undefined=undefined))
    return out
