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
a very weak L2 penalty, C = 1e6) a penalty ``l2/2·‖c‖²`` with ``l2 = 1e-6`` makes the
estimate unique; the penalty also centres c at mean 0, so ratings average 1000 over the
systems that played. Systems without battles get NaN.

Undefined is NaN, never a number (issue 13). The maximum-likelihood rating exists only
when the "gained points against" graph is strongly connected (Ford 1957; Hunter 2004,
Assumption 1); the penalty would otherwise return a finite but meaningless number
(±2,000 Elo). So :func:`bradley_terry_fit`:

* gives NaN to a system that won every battle or lost every battle, and fits the others
  without its battles (repeatedly: dropping one may leave another with only wins);
* gives NaN to every system when the systems fall into groups that never met
  (a disconnected comparison graph: ratings of different groups are not comparable) or
  when a group of systems won every battle against the rest;

and says why in its ``notes``.
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


class BradleyTerryFit(NamedTuple):
    rating: np.ndarray  # NaN where no maximum-likelihood rating exists
    notes: tuple[str, ...]  # why a rating is NaN


def _components(n: int, i: np.ndarray, j: np.ndarray, connection: str) -> np.ndarray:
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    graph = coo_matrix((np.ones(i.size), (i, j)), shape=(n, n))
    return connected_components(graph, directed=True, connection=connection)[1]


def _defined(ga, gb, gs, size, n_systems, names) -> tuple[np.ndarray, list[str]]:
    """Systems whose rating the battles define (see the module docstring), and notes."""
    played = np.bincount(np.concatenate((ga, gb)), np.concatenate((size, size)), n_systems) > 0
    name = (lambda i: names[i]) if names is not None else (lambda i: f"system {i}")
    idx = np.flatnonzero(played)
    groups = np.unique(_components(n_systems, ga, gb, "weak")[idx]).size
    if groups > 1:
        return np.zeros(n_systems, bool), [
            f"Bradley-Terry: no rating: the systems form {groups} groups that never met "
            "(disconnected comparison graph), whose ratings are not comparable."
        ]
    keep, notes = played.copy(), []
    while True:
        on = keep[ga] & keep[gb]
        games = np.bincount(ga[on], size[on], n_systems) + np.bincount(gb[on], size[on], n_systems)
        points = np.bincount(ga[on], size[on] * gs[on], n_systems) + np.bincount(
            gb[on], size[on] * (1 - gs[on]), n_systems
        )
        all_won = keep & (games > 0) & (points == games)
        all_lost = keep & (games > 0) & (points == 0)
        alone = keep & (games == 0)
        if not (all_won | all_lost | alone).any():
            break
        for i in np.flatnonzero(all_won):
            notes.append(f"Bradley-Terry: no rating for {name(i)}: it won every battle.")
        for i in np.flatnonzero(all_lost):
            notes.append(f"Bradley-Terry: no rating for {name(i)}: it lost every battle.")
        for i in np.flatnonzero(alone):
            notes.append(
                f"Bradley-Terry: no rating for {name(i)}: it met only systems without a rating."
            )
        keep &= ~(all_won | all_lost | alone)
    on = keep[ga] & keep[gb]
    # i -> j when i gained points against j (a win, or half of a tie)
    gained_a, gained_b = on & (gs > 0), on & (gs < 1)
    i = np.concatenate((ga[gained_a], gb[gained_b]))
    j = np.concatenate((gb[gained_a], ga[gained_b]))
    rest = np.flatnonzero(keep)
    if rest.size > 1 and np.unique(_components(n_systems, i, j, "strong")[rest]).size > 1:
        return np.zeros(n_systems, bool), notes + [
            "Bradley-Terry: no rating: a group of systems won every battle against the "
            "others, so no maximum-likelihood rating exists."
        ]
    return keep, notes


def bradley_terry_fit(
    system_a, system_b, outcome, n_systems: int, l2: float = 1e-6, names=None
) -> BradleyTerryFit:
    """Elo-scale ratings, NaN where undefined, with notes naming why (``names``: labels)."""
    ga, gb, gs, size = _groups(system_a, system_b, outcome, n_systems)
    if ga.size == 0:
        return BradleyTerryFit(np.full(n_systems, np.nan), ("Bradley-Terry: no battle.",))
    keep, notes = _defined(ga, gb, gs, size, n_systems, names)
    on = keep[ga] & keep[gb]
    if not on.any():
        return BradleyTerryFit(np.full(n_systems, np.nan), tuple(notes))
    c = _fit(ga[on], gb[on], gs[on], size[on].astype(float), n_systems, l2)
    return BradleyTerryFit(_ratings(c, keep), tuple(notes))


def bradley_terry(system_a, system_b, outcome, n_systems: int, l2: float = 1e-6) -> np.ndarray:
    """Elo-scale Bradley–Terry ratings from battles (outcome +1 A wins, 0 tie, −1 B wins).

    NaN for a system without a maximum-likelihood rating (:func:`bradley_terry_fit`).
    """
    return bradley_terry_fit(system_a, system_b, outcome, n_systems, l2).rating


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
    defined, _ = _defined(ga, gb, gs, size, n_systems, None)
    rating = bradley_terry_fit(system_a, system_b, outcome, n_systems, l2).rating
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
    median[~defined], sd[~defined] = np.nan, np.nan  # undefined on the data: undefined here
    return EloRatings(rating, median, sd, n_rounds, n_battles)
