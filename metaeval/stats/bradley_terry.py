"""Bradley–Terry ratings on the Elo scale (ResearchQA §4.1 "Leaderboard score").

ResearchQA (seed 000/001 §4.1): "Consistent with Chatbot Arena (Chiang et al., 2024), we
use the Bradley–Terry model (Bradley and Terry, 1952) for pairwise battles ..., which is
equivalent to the Elo equation (Elo, 1966). In case of ties, each system wins half the
match. We report the median score from a 1000-iteration bootstrap and its standard
deviation." METHODS §4 fixes the scale: base 10, scale 400, initial rating 1000.

Model: P(i beats j) = 1 / (1 + 10^((R_j − R_i)/400)). With R = 1000 + 400·c, the
coefficients c maximise the log-likelihood
``Σ_battles s·log σ(ln10·(c_A − c_B)) + (1 − s)·log σ(−ln10·(c_A − c_B))`` with s = 1 win,
½ tie, 0 loss for A. As in Chatbot Arena's ``compute_mle_elo`` (logistic regression with
a very weak L2 penalty, C = 1e6) a penalty ``l2/2·‖c‖²`` with ``l2 = 1e-6`` keeps the
estimate finite when a system wins or loses every battle (the unpenalised MLE does not
exist then) and makes it unique; the penalty also centres c at mean 0, so ratings
average 1000 over the systems that played. Systems without battles get NaN.
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np
import scipy.optimize
from scipy.special import expit, log_expit

from .decisions import as_decisions

BASE, SCALE, INIT_RATING = 10.0, 400.0, 1000.0
_LN = np.log(BASE)


class EloRatings(NamedTuple):
    rating: np.ndarray  # fit on all battles
    median: np.ndarray  # bootstrap median (the leaderboard figure)
    sd: np.ndarray  # bootstrap standard deviation (ddof = 1)
    n_rounds: int
    n_battles: np.ndarray  # battles per system


def elo_win_probability(r_a, r_b):
    """P(A beats B) = 1 / (1 + 10^((R_B − R_A)/400)); 1505 vs 1244 gives 0.818."""
    return 1.0 / (1.0 + BASE ** ((np.asarray(r_b, float) - np.asarray(r_a, float)) / SCALE))


def _groups(system_a, system_b, outcome, n_systems):
    sa = np.asarray(system_a, dtype=np.intp).ravel()
    sb = np.asarray(system_b, dtype=np.intp).ravel()
    d = as_decisions(outcome).ravel()
    if not (sa.shape == sb.shape == d.shape):
        raise ValueError("system_a, system_b and outcome must have the same length")
    if sa.size and (min(sa.min(), sb.min()) < 0 or max(sa.max(), sb.max()) >= n_systems):
        raise ValueError("system codes must lie in range(n_systems)")
    if (sa == sb).any():
        raise ValueError("a system cannot battle itself")
    key = (sa * n_systems + sb) * 3 + (d + 1)
    uniq, size = np.unique(key, return_counts=True)
    return uniq // 3 // n_systems, uniq // 3 % n_systems, (uniq % 3) / 2, size


def _fit(ga, gb, gs, weight, n_systems, l2, c0=None):
    """Penalised MLE of c given battle groups (a, b, A's points, how many)."""
    wins = weight * gs

    def nll(c):
        z = _LN * (c[ga] - c[gb])
        f = -(wins * log_expit(z) + (weight - wins) * log_expit(-z)).sum()
        g_z = -(wins - weight * expit(z)) * _LN
        grad = np.bincount(ga, g_z, n_systems) - np.bincount(gb, g_z, n_systems)
        return f + 0.5 * l2 * c @ c, grad + l2 * c

    c0 = np.zeros(n_systems) if c0 is None else c0
    res = scipy.optimize.minimize(
        nll, c0, jac=True, method="L-BFGS-B", options={"gtol": 1e-10, "maxiter": 10_000}
    )
    return res.x


def _ratings(c, played):
    out = np.full(c.shape, np.nan)
    if played.any():
        out[played] = INIT_RATING + SCALE * (c[played] - c[played].mean())
    return out


def bradley_terry(system_a, system_b, outcome, n_systems: int, l2: float = 1e-6) -> np.ndarray:
    """Elo-scale Bradley–Terry ratings from battles (outcome +1 A wins, 0 tie, −1 B wins)."""
    ga, gb, gs, size = _groups(system_a, system_b, outcome, n_systems)
    played = np.bincount(np.concatenate((ga, gb)), np.concatenate((size, size)), n_systems) > 0
    if ga.size == 0:
        return np.full(n_systems, np.nan)
    return _ratings(_fit(ga, gb, gs, size.astype(float), n_systems, l2), played)


def bradley_terry_bootstrap(
    system_a,
    system_b,
    outcome,
    n_systems: int,
    n_rounds: int = 1000,
    seed: int = 0,
    l2: float = 1e-6,
) -> EloRatings:
    """Ratings with a battle bootstrap: median and sd over ``n_rounds`` resamples.

    Each round resamples the battles with replacement (a multinomial over the distinct
    (A, B, outcome) groups, which is the same distribution and much cheaper) and refits,
    as ResearchQA / Chatbot Arena do. A system absent from a resample is NaN in that
    round and ignored by its median / sd.
    """
    ga, gb, gs, size = _groups(system_a, system_b, outcome, n_systems)
    n_battles = np.bincount(np.concatenate((ga, gb)), np.concatenate((size, size)), n_systems)
    if ga.size == 0:
        nan = np.full(n_systems, np.nan)
        return EloRatings(nan, nan, nan, n_rounds, n_battles)
    c_full = _fit(ga, gb, gs, size.astype(float), n_systems, l2)
    rating = _ratings(c_full, n_battles > 0)
    rng = np.random.default_rng(seed)
    total = int(size.sum())
    draws = rng.multinomial(total, size / total, size=n_rounds)
    boot = np.empty((n_rounds, n_systems))
    for r in range(n_rounds):
        w = draws[r].astype(float)
        played = (np.bincount(ga, w, n_systems) + np.bincount(gb, w, n_systems)) > 0
        boot[r] = _ratings(_fit(ga, gb, gs, w, n_systems, l2, c_full), played)
    with warnings.catch_warnings():  # all-NaN columns (never played) warn
        warnings.simplefilter("ignore", RuntimeWarning)
        median = np.nanmedian(boot, axis=0)
        sd = np.nanstd(boot, axis=0, ddof=1)
    return EloRatings(rating, median, sd, n_rounds, n_battles)
