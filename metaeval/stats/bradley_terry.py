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
from scipy.special import expit

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


def _newton(points, games, l2: float, c=None, max_iter: int = 100) -> np.ndarray:
    """Penalised maximum likelihood of c for a stack of rounds (rounds × n × n points i
    gained against j, and games between them), by Newton's method on
    ``Σ P_ij·log σ(ln10·(c_i − c_j)) − l2/2·‖c‖²`` — concave, so Newton converges from
    any start where the estimate exists; a step is capped at 1 (400 Elo) so a far start
    cannot overshoot. Converged when the step, less its mean (the near-flat direction the
    tiny penalty fixes), is below 1e-9 in every round."""
    rounds, m, _ = points.shape
    c = np.zeros((rounds, m)) if c is None else np.array(c, dtype=float)
    eye = np.eye(m)
    for _ in range(max_iter):
        p = expit(_LN * (c[:, :, None] - c[:, None, :]))
        grad = _LN * (points - games * p).sum(axis=2) - l2 * c
        w = _LN**2 * games * p * (1 - p)
        hess = w.sum(axis=2)[:, :, None] * eye - w + l2 * eye  # minus the Hessian
        step = np.clip(np.linalg.solve(hess, grad[:, :, None])[:, :, 0], -1.0, 1.0)
        c = c + step
        moved = step - step.mean(axis=1, keepdims=True)
        if not np.isfinite(step).all() or np.abs(moved).max(initial=0) < 1e-9:
            break
    return c


def _fit(ga, gb, gs, weight, n_systems, l2, c0=None):
    """Penalised MLE of c given battle groups (a, b, A's points, how many): the
    aggregated win counts, fitted by :func:`_newton`."""
    points = _points(ga, gb, gs, np.asarray(weight, dtype=float)[None, :], n_systems)
    games = points + points.transpose(0, 2, 1)
    start = None if c0 is None else np.asarray(c0, dtype=float)[None, :]
    return _newton(points, games, l2, start)[0]


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


class BootstrapRatings(NamedTuple):
    ratings: np.ndarray  # rounds × systems, NaN in a round without an estimate
    estimable: np.ndarray  # rounds: the resample has a maximum-likelihood estimate


def _points(ga, gb, gs, weights, n: int) -> np.ndarray:
    """rounds × n × n: the points i gained against j (a win 1, a tie ½ to each side) in
    each round, from the battle groups' weights (rounds × groups): the aggregated win
    counts, all the likelihood needs."""
    rounds = weights.shape[0]
    to_a = np.zeros((ga.size, n * n))
    to_a[np.arange(ga.size), ga * n + gb] = gs
    to_b = np.zeros((ga.size, n * n))
    to_b[np.arange(ga.size), gb * n + ga] = 1 - gs
    return (weights @ (to_a + to_b)).reshape(rounds, n, n)


def _strongly_connected(edges: np.ndarray) -> np.ndarray:
    """Per round (rounds × n × n boolean adjacency): every system reaches every other
    (transitive closure by repeated squaring, log2 n boolean products)."""
    n = edges.shape[1]
    reach = edges | np.eye(n, dtype=bool)
    for _ in range(max(1, int(np.ceil(np.log2(max(n, 2)))))):
        reach = (reach.astype(np.int64) @ reach.astype(np.int64)) > 0
    return reach.all(axis=(1, 2))


def bootstrap_ratings(ga, gb, gs, weights, n_systems: int, defined, l2: float = 1e-6,
                      c0=None, max_iter: int = 100) -> BootstrapRatings:  # fmt: skip
    """Ratings of every bootstrap round at once (issue 29: 1,000 rounds in milliseconds).

    ``weights`` (rounds × groups): how often each battle group (:func:`_groups`) is drawn.
    Only the systems ``defined`` on the full data are rated. A round has an estimate when
    its "gained points against" graph on them is strongly connected — the condition for
    the maximum-likelihood rating to exist (Ford 1957; Hunter 2004) —; a round without
    one (a system that won or lost every resampled battle, or did not play) is NaN and
    flagged, never rated through the penalty (METHODS §7, issue 27). The others are
    fitted on their aggregated win counts by Newton's method on the penalised
    log-likelihood of :func:`_fit`, every round in one array, warm-started from ``c0``
    (the full data's coefficients)."""
    defined = np.asarray(defined, dtype=bool)
    weights = np.atleast_2d(np.asarray(weights, dtype=float))
    rounds = weights.shape[0]
    idx = np.flatnonzero(defined)
    out = np.full((rounds, n_systems), np.nan)
    if idx.size < 2:
        return BootstrapRatings(out, np.zeros(rounds, bool))
    points = _points(ga, gb, gs, weights, n_systems)[:, idx][:, :, idx]
    games = points + points.transpose(0, 2, 1)
    ok = _strongly_connected(points > 0)
    P, N = points[ok], games[ok]
    start = None if c0 is None else np.tile(np.asarray(c0, dtype=float)[idx], (P.shape[0], 1))
    c = _newton(P, N, l2, start, max_iter)
    rated = np.full((P.shape[0], n_systems), np.nan)
    rated[:, idx] = INIT_RATING + SCALE * (c - c.mean(axis=1, keepdims=True))
    out[ok] = rated
    return BootstrapRatings(out, ok)


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
    as ResearchQA / Chatbot Arena do (:func:`bootstrap_ratings`). A round without a
    maximum-likelihood estimate is left out of the median and sd.
    """
    ga, gb, gs, size = _groups(system_a, system_b, outcome, n_systems)
    n_battles = np.bincount(np.concatenate((ga, gb)), np.concatenate((size, size)), n_systems)
    if ga.size == 0:
        nan = np.full(n_systems, np.nan)
        return EloRatings(nan, nan, nan, n_rounds, n_battles)
    defined, _ = _defined(ga, gb, gs, size, n_systems, None)
    on = defined[ga] & defined[gb]
    c_full = (
        _fit(ga[on], gb[on], gs[on], size[on].astype(float), n_systems, l2) if on.any() else None
    )
    rating = bradley_terry_fit(system_a, system_b, outcome, n_systems, l2).rating
    rng = np.random.default_rng(seed)
    total = int(size.sum())
    draws = rng.multinomial(total, size / total, size=n_rounds).astype(float)
    boot = bootstrap_ratings(ga, gb, gs, draws * on, n_systems, defined, l2, c_full).ratings
    with warnings.catch_warnings():  # all-NaN columns (never played) warn
        warnings.simplefilter("ignore", RuntimeWarning)
        median = np.nanmedian(boot, axis=0)
        sd = np.nanstd(boot, axis=0, ddof=1)
    median[~defined], sd[~defined] = np.nan, np.nan  # undefined on the data: undefined here
    return EloRatings(rating, median, sd, n_rounds, n_battles)
