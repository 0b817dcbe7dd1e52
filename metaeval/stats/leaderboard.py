"""The ResearchQA leaderboard (seed 000/001 §4.1, Table 3) from any pairwise verdicts.

Ratings are :func:`.bradley_terry.bradley_terry_fit` (Elo scale: base 10, scale 400, mean
1000; a tie is half a win to each side; NaN where the maximum-likelihood rating does not
exist, with the reason). Uncertainty, as the paper: a bootstrap of 1000 rounds, reported as
the median and its standard deviation, plus the percentile interval (METHODS §5). Battles
are resampled one by one (the paper, Chatbot Arena) or, with ``clusters``, by whole
questions (METHODS §5 "cluster bootstrap over questions"): a round draws questions with
replacement and weights every battle by how often its question was drawn.

Win probability: P(A beats B) = 1 / (1 + 10^((R_B − R_A)/400)); the paper's check is
sonar-deep-research (1505) vs gemini-2.5-pro (1244): 0.818.
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np

from .bradley_terry import _fit, _groups, _ratings, bradley_terry_fit, elo_win_probability


class LeaderboardRow(NamedTuple):
    system: int  # code
    rating: float  # fit on all battles, NaN when undefined
    median: float  # bootstrap median (the paper's figure)
    sd: float
    low: float  # percentile interval
    high: float
    battles: int
    wins: float  # points: win 1, tie ½


class Leaderboard(NamedTuple):
    rows: list[LeaderboardRow]  # sorted by rating, undefined last
    notes: tuple[str, ...]
    n_rounds: int
    resampled: str  # "battles" or "questions"


def win_probability_matrix(ratings) -> np.ndarray:
    """P(row beats column) from Elo ratings; NaN where a rating is NaN, diagonal NaN."""
    r = np.asarray(ratings, dtype=float)
    p = elo_win_probability(r[:, None], r[None, :])
    np.fill_diagonal(p, np.nan)
    return p


def leaderboard(
    system_a,
    system_b,
    outcome,
    n_systems: int,
    n_rounds: int = 1000,
    seed: int = 0,
    alpha: float = 0.05,
    clusters=None,
    names=None,
    l2: float = 1e-6,
) -> Leaderboard:
    """Bradley–Terry leaderboard with bootstrap median, sd and percentile CI per system."""
    sa = np.asarray(system_a, dtype=np.intp).ravel()
    sb = np.asarray(system_b, dtype=np.intp).ravel()
    d = np.asarray(outcome).ravel()
    fit = bradley_terry_fit(sa, sb, d, n_systems, l2=l2, names=names)
    battles = np.bincount(np.concatenate((sa, sb)), minlength=n_systems)[:n_systems]
    points = np.bincount(sa, (d + 1) / 2, n_systems) + np.bincount(sb, (1 - d) / 2, n_systems)
    boot = np.full((n_rounds, n_systems), np.nan)
    defined = np.isfinite(fit.rating)
    if sa.size and defined.any():
        ga, gb, gs, _ = _groups(sa, sb, d, n_systems)
        key = (sa * n_systems + sb) * 3 + (d.astype(int) + 1)
        _, group_of_row = np.unique(key, return_inverse=True)
        on = defined[ga] & defined[gb]
        rng = np.random.default_rng(seed)
        if clusters is None:
            draw = lambda: rng.multinomial(sa.size, np.full(sa.size, 1 / sa.size))  # noqa: E731
            codes = None
        else:
            _, codes = np.unique(np.asarray(clusters).ravel(), return_inverse=True)
            k = int(codes.max()) + 1
            draw = lambda: np.bincount(rng.integers(0, k, k), minlength=k)[codes]  # noqa: E731
        for r in range(n_rounds):
            w = np.bincount(group_of_row.ravel(), draw().astype(float), ga.size)
            w = np.where(on, w, 0.0)
            played = (np.bincount(ga, w, n_systems) + np.bincount(gb, w, n_systems)) > 0
            if not played.any():
                continue
            c = _fit(ga, gb, gs, w, n_systems, l2)
            boot[r] = _ratings(c, played & defined)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        median = np.nanmedian(boot, axis=0)
        sd = np.nanstd(boot, axis=0, ddof=1)
        low, high = np.nanquantile(boot, [alpha / 2, 1 - alpha / 2], axis=0)
    for arr in (median, sd, low, high):
        arr[~defined] = np.nan
    rows = [
        LeaderboardRow(i, float(fit.rating[i]), float(median[i]), float(sd[i]), float(low[i]),
                       float(high[i]), int(battles[i]), float(points[i]))
        for i in range(n_systems)
        if battles[i] > 0
    ]  # fmt: skip
    rows.sort(key=lambda row: (np.isnan(row.rating), -np.nan_to_num(row.rating)))
    return Leaderboard(rows, fit.notes, n_rounds, "battles" if clusters is None else "questions")
