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

from .bradley_terry import _fit, _groups, bootstrap_ratings, bradley_terry_fit, elo_win_probability

#: A bootstrap interval needs at least this many rounds with an estimate, and this share of
#: the rounds asked for: the rounds left out are the resamples where one system swept, so
#: when they are many the rest describe a conditional, too-narrow distribution (METHODS §7:
#: undefined is null).
MIN_ROUNDS, MIN_SHARE = 20, 0.5


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
    rounds_without_estimate: int = 0  # left out of the median, sd and interval


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
    without = 0
    notes = list(fit.notes)
    if sa.size and defined.any() and n_rounds > 0:
        ga, gb, gs, size = _groups(sa, sb, d, n_systems)
        key = (sa * n_systems + sb) * 3 + (d.astype(int) + 1)
        _, group_of_row = np.unique(key, return_inverse=True)
        group_of_row = group_of_row.ravel()
        on = defined[ga] & defined[gb]
        rng = np.random.default_rng(seed)
        if clusters is None:  # battle by battle: a multinomial over the battle groups
            total = int(size.sum())  # (the same distribution as over the battles)
            weights = rng.multinomial(total, size / total, size=n_rounds).astype(float)
        else:  # whole questions: each battle weighted by how often its question was drawn
            _, codes = np.unique(np.asarray(clusters).ravel(), return_inverse=True)
            codes = codes.ravel()
            k = int(codes.max()) + 1
            per_cluster = np.zeros((k, ga.size))  # battles of each group in each question
            np.add.at(per_cluster, (codes, group_of_row), 1.0)
            drawn = rng.multinomial(k, np.full(k, 1 / k), size=n_rounds).astype(float)
            weights = drawn @ per_cluster
        weights *= on  # aggregated win counts per battle group and round
        c0 = _fit(ga[on], gb[on], gs[on], size[on].astype(float), n_systems, l2)
        got = bootstrap_ratings(ga, gb, gs, weights, n_systems, defined, l2, c0)
        boot = got.ratings
        without = int((~got.estimable).sum())
    kept = n_rounds - without
    enough = kept >= max(MIN_ROUNDS, MIN_SHARE * n_rounds)
    if without:
        notes.append(
            f"Bradley-Terry bootstrap: {without} of {n_rounds} rounds had no maximum-likelihood "
            "estimate (a system won or lost every resampled battle, or did not play) and are "
            "left out of the median, sd and interval."
            + ("" if enough else f" Too few remain ({kept}, fewer than "
               f"{max(MIN_ROUNDS, int(np.ceil(MIN_SHARE * n_rounds)))}): no interval.")
        )  # fmt: skip
    median, sd, low, high = (np.full(n_systems, np.nan) for _ in range(4))
    if n_rounds > 0:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            median = np.nanmedian(boot, axis=0)
            sd = np.nanstd(boot, axis=0, ddof=1)
            low, high = np.nanquantile(boot, [alpha / 2, 1 - alpha / 2], axis=0)
    for arr in (median, sd, low, high):
        arr[~defined] = np.nan
        if not enough:
            arr[:] = np.nan
    rows = [
        LeaderboardRow(i, float(fit.rating[i]), float(median[i]), float(sd[i]), float(low[i]),
                       float(high[i]), int(battles[i]), float(points[i]))
        for i in range(n_systems)
        if battles[i] > 0
    ]  # fmt: skip
    rows.sort(key=lambda row: (np.isnan(row.rating), -np.nan_to_num(row.rating)))
    return Leaderboard(
        rows, tuple(notes), n_rounds, "battles" if clusters is None else "questions", without
    )
