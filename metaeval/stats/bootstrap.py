"""Uncertainty: cluster bootstrap over questions, paired permutation test (METHODS §5).

Judgments of one question are not independent (same reports, often the same annotator),
so resampling is by *cluster*: whole questions are drawn with replacement and every row
of a drawn question comes along (the nonparametric bootstrap of Efron & Tibshirani 1993,
ch. 6, with the question as the sampled unit; 10,000 rounds for final reports, METHODS §5).
The interval is the *percentile* interval at level ``1 − alpha`` (Efron & Tibshirani 1993,
ch. 13): the ``alpha/2`` and ``1 − alpha/2`` quantiles of the replicates, read with
numpy's linear interpolation between order statistics; not the bias-corrected and
accelerated (BCa) interval of their ch. 14, which no figure here uses.

Efron, B. & Tibshirani, R. J. (1993). *An Introduction to the Bootstrap*. Chapman & Hall.

Two paths, which draw the *same* clusters for the same seed:

* :func:`cluster_bootstrap` — generic: ``statistic(rows)`` is called once per round on
  the row indices of the resample.
* :func:`bootstrap_from_cluster_sums` — fast path for statistics that are functions of
  sums over rows (agreement, τ-b, τ_eq, half credit... are all functions of the
  :class:`~metaeval.stats.kendall.PairCounts` totals). Each round is a vector of cluster
  multiplicities ``w`` (how often each question was drawn); the resampled totals are
  ``w @ cluster_sums``, so all rounds are one matrix product: 1,000 rounds over
  240,000 rows and 5 metrics take well under a second once the per-question sums exist.

NaN policy: a round whose statistic is NaN (e.g. no decided pair resampled) is left out
of the interval; ``n_valid`` reports how many rounds were used. Fewer than two clusters
give no interval at all (every resample of one question is that question: the interval
would be a point, [x, x], which says nothing about uncertainty): ``low``/``high`` are NaN
and ``note`` says why.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from .decisions import as_decisions

#: Upper bound on cluster draws held in memory at once (rounds × clusters).
_CHUNK_CELLS = 4_000_000


class BootstrapResult(NamedTuple):
    estimate: np.ndarray | float  # statistic on the full data
    low: np.ndarray | float  # quantile alpha/2 of the replicates (percentile interval)
    high: np.ndarray | float  # quantile 1 − alpha/2
    se: np.ndarray | float  # sd of the replicates (ddof = 1)
    n_rounds: int
    n_valid: np.ndarray | int  # rounds with a finite replicate
    n_clusters: int
    note: str | None = None  # why there is no interval, when there is none


#: Fewer clusters than this give no interval (see the module docstring).
MIN_CLUSTERS = 2

#: The fewest rounds a report's percentile interval is drawn from (``bootstrap`` is 0 or at
#: least this). A 95 % percentile interval reads the 2.5th and 97.5th percentiles of the
#: replicates; from 1 round it is that round twice ([0.037, 0.037] around an estimate of
#: 0.074, tester's report), and below ~100 each bound rests on one or two replicates and
#: moves from seed to seed by more than the interval is wide. Efron & Tibshirani (1993,
#: §6.4) find 25–200 rounds enough for a standard error and say confidence intervals need
#: many more (their percentile interval, the one used here: ch. 13); METHODS §5 asks
#: 10,000 for final reports. 100 is the floor below which the interval means nothing, not a
#: recommendation (each bound rests on at least two replicates, 2.5 % of 100).
MIN_ROUNDS = 100


def too_few_clusters_note(k: int) -> str:
    return (
        f"No confidence interval: the bootstrap resamples whole questions and the selection "
        f"has {k} question{'s' if k != 1 else ''}; at least {MIN_CLUSTERS} are needed."
    )


class PermutationResult(NamedTuple):
    difference: float  # statistic(a) − statistic(b) on the observed data
    pvalue: float  # two-sided, (1 + #{|Δ*| ≥ |Δ|}) / (1 + n_rounds); exact: #/2^K
    n_rounds: int  # rounds drawn, or 2^K when every sign flip was enumerated
    n_clusters: int
    exact: bool = False  # every one of the 2^K swaps enumerated (2^K <= rounds asked)


def _draws(rng: np.random.Generator, n_clusters: int, n_rounds: int, on_rounds=None):
    """Yield (chunk, n_clusters) arrays of cluster indices drawn with replacement;
    ``on_rounds(k)`` (e.g. a progress bar's update) after each chunk of k rounds."""
    chunk = max(1, min(n_rounds, _CHUNK_CELLS // max(n_clusters, 1)))
    done = 0
    while done < n_rounds:
        k = min(chunk, n_rounds - done)
        yield rng.integers(0, n_clusters, size=(k, n_clusters))
        done += k
        if on_rounds is not None:
            on_rounds(k)


def _summarise(estimate, reps: np.ndarray, alpha: float, n_clusters: int) -> BootstrapResult:
    if n_clusters < MIN_CLUSTERS:  # no interval: see the module docstring
        nan = np.full(np.shape(estimate), np.nan)
        scalar = np.ndim(estimate) == 0
        return BootstrapResult(
            float(estimate) if scalar else np.asarray(estimate, float),
            float("nan") if scalar else nan,
            float("nan") if scalar else nan.copy(),
            float("nan") if scalar else nan.copy(),
            reps.shape[0],
            0 if scalar else np.zeros(np.shape(estimate), dtype=int),
            n_clusters,
            too_few_clusters_note(n_clusters),
        )
    finite = np.isfinite(reps)
    n_valid = finite.sum(axis=0)
    masked = np.where(finite, reps, np.nan)
    with np.errstate(invalid="ignore"):
        if np.all(n_valid > 0):
            low, high = np.nanquantile(masked, [alpha / 2, 1 - alpha / 2], axis=0)
        else:
            low = np.full(reps.shape[1:], np.nan)
            high = low.copy()
            ok = n_valid > 0
            if np.any(ok):
                q = np.nanquantile(masked[:, ok], [alpha / 2, 1 - alpha / 2], axis=0)
                low[ok], high[ok] = q
        se = np.array(
            [
                np.std(col[np.isfinite(col)], ddof=1) if n > 1 else np.nan
                for col, n in zip(np.atleast_2d(masked.T), np.atleast_1d(n_valid), strict=True)
            ]
        )
    if reps.ndim == 1:
        return BootstrapResult(
            float(estimate),
            float(low),
            float(high),
            float(se[0]),
            reps.shape[0],
            int(n_valid),
            n_clusters,
        )
    return BootstrapResult(
        np.asarray(estimate, float), low, high, se, reps.shape[0], n_valid, n_clusters
    )


def _check_alpha(alpha: float, n_rounds: int) -> None:
    if not 0 < alpha < 1:
        raise ValueError("alpha must be in (0, 1)")
    if n_rounds < 1:
        raise ValueError("n_rounds must be positive")


def cluster_codes(clusters) -> tuple[np.ndarray, np.ndarray]:
    """(codes 0..K−1 per row, the K distinct cluster keys in sorted order)."""
    keys, codes = np.unique(np.asarray(clusters), return_inverse=True)
    return codes.ravel(), keys


def cluster_bootstrap(
    statistic: Callable[[np.ndarray], float | np.ndarray],
    clusters,
    n_rounds: int = 1000,
    seed: int = 0,
    alpha: float = 0.05,
) -> BootstrapResult:
    """Percentile CI of ``statistic`` resampling whole clusters (questions).

    ``statistic(rows)`` receives an int array of row indices (rows of drawn clusters,
    repeated as drawn) and returns a float or a 1-D array (several metrics at once).
    ``clusters`` gives each row's cluster key. Empty input: NaN result.
    """
    _check_alpha(alpha, n_rounds)
    codes, keys = cluster_codes(clusters)
    k = keys.size
    estimate = statistic(np.arange(codes.size))
    if k < MIN_CLUSTERS:
        nan = np.full(np.shape(estimate), np.nan)
        return _summarise(estimate, np.full((n_rounds, *nan.shape), np.nan), alpha, k)
    order = np.argsort(codes, kind="stable")
    sizes = np.bincount(codes, minlength=k)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    reps = []
    for chunk in _draws(np.random.default_rng(seed), k, n_rounds):
        for chosen in chunk:
            lengths = sizes[chosen]
            offsets = np.repeat(starts[chosen] - np.cumsum(lengths) + lengths, lengths)
            rows = order[offsets + np.arange(lengths.sum())]
            reps.append(statistic(rows))
    return _summarise(estimate, np.asarray(reps, dtype=float), alpha, k)


def cluster_sums(clusters, values) -> tuple[np.ndarray, np.ndarray]:
    """Per-cluster column sums of ``values`` (rows × m): (sums K × m, cluster keys)."""
    codes, keys = cluster_codes(clusters)
    v = np.asarray(values, dtype=float)
    v2 = v.reshape(v.shape[0], -1)
    if v2.shape[0] != codes.size:
        raise ValueError("values must have one row per cluster label")
    sums = np.stack([np.bincount(codes, v2[:, j], keys.size) for j in range(v2.shape[1])], 1)
    return sums.reshape((keys.size, *v.shape[1:])), keys


def bootstrap_from_cluster_sums(
    sums,
    statistic: Callable[[np.ndarray], np.ndarray],
    n_rounds: int = 1000,
    seed: int = 0,
    alpha: float = 0.05,
    on_rounds=None,
) -> BootstrapResult:
    """Fast cluster bootstrap for statistics of summed sufficient statistics.

    ``sums``: K clusters × m sufficient statistics (from :func:`cluster_sums`).
    ``statistic``: vectorised, maps totals of shape (R, m) to (R,) or (R, p).
    Round r's totals are ``w_r @ sums`` with ``w_r`` the multiplicities of a draw of K
    clusters with replacement — the same draws :func:`cluster_bootstrap` makes with
    the same seed, so both give the same replicates for a sum-based statistic.
    """
    _check_alpha(alpha, n_rounds)
    s = np.asarray(sums, dtype=float)
    if s.ndim != 2:
        raise ValueError("sums must be a 2-D clusters × statistics array")
    k = s.shape[0]
    estimate = np.asarray(statistic(s.sum(axis=0)[None, :]))[0]
    if k < MIN_CLUSTERS:
        return _summarise(estimate, np.full((n_rounds, *np.shape(estimate)), np.nan), alpha, k)
    reps = []
    # rounds per product: the totals (rounds × m) held at once stay within the chunk's
    # cells however many statistics there are (the draws themselves are not re-chunked:
    # that would change the stream of clusters a seed gives)
    step = max(1, _CHUNK_CELLS // max(s.shape[1], 1))
    for chunk in _draws(np.random.default_rng(seed), k, n_rounds, on_rounds):
        rows = chunk.shape[0]
        flat = (chunk + (np.arange(rows) * k)[:, None]).ravel()
        w = np.bincount(flat, minlength=rows * k).reshape(rows, k).astype(float)
        for start in range(0, rows, step):
            reps.append(np.asarray(statistic(w[start : start + step] @ s), dtype=float))
    return _summarise(estimate, np.concatenate(reps, axis=0), alpha, k)


# --- Pair-count statistics, vectorised over totals (..., 5) ------------------------
# Columns: concordant, discordant, human-only ties, judge-only ties, joint ties
# (the PairCounts order). Each is the formula of the scalar function cited.


def pair_count_rows(human, judge) -> np.ndarray:
    """One-hot (n, 5) rows of the PairCounts category of each judgment, for summing."""
    h = as_decisions(human).ravel()
    m = as_decisions(judge).ravel()
    if h.shape != m.shape:
        raise ValueError("human and judge lengths differ")
    ht, mt = h == 0, m == 0
    both = ~ht & ~mt
    cols = (both & (h == m), both & (h != m), ht & ~mt, mt & ~ht, ht & mt)
    return np.stack(cols, axis=1).astype(float)


def _div(num, den):
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)


def agreement_of_totals(t):
    """Threshold agreement = acc_eq = (C + T_hm) / N (agreement.agreement)."""
    t = np.asarray(t, float)
    return _div(t[..., 0] + t[..., 4], t.sum(axis=-1))


def partial_agreement_of_totals(t):
    """Half credit (C + T_hm + ½(T_h + T_m)) / N; judge decisions at t = 0."""
    t = np.asarray(t, float)
    return _div(t[..., 0] + t[..., 4] + 0.5 * (t[..., 2] + t[..., 3]), t.sum(axis=-1))


def exclude_agreement_of_totals(t):
    """Agreement without human ties: C / (C + D + T_m)."""
    t = np.asarray(t, float)
    return _div(t[..., 0], t[..., 0] + t[..., 1] + t[..., 3])


def tau_b_of_totals(t):
    """(C − D) / √((N − T_h − T_hm)(N − T_m − T_hm)) (kendall.tau_b_decisions)."""
    t = np.asarray(t, float)
    n = t.sum(axis=-1)
    den = (n - t[..., 2] - t[..., 4]) * (n - t[..., 3] - t[..., 4])
    return _div(t[..., 0] - t[..., 1], np.sqrt(np.maximum(den, 0)))


def tau_eq_of_totals(t):
    """(C + T_hm − D − T_h − T_m) / N (agreement.tau_eq)."""
    t = np.asarray(t, float)
    return _div(t[..., 0] + t[..., 4] - t[..., 1] - t[..., 2] - t[..., 3], t.sum(axis=-1))


PAIR_COUNT_STATISTICS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "agreement": agreement_of_totals,
    "partial": partial_agreement_of_totals,
    "exclude": exclude_agreement_of_totals,
    "tau_b": tau_b_of_totals,
    "tau_eq": tau_eq_of_totals,
}


def paired_permutation_test(
    stat_per_cluster_a,
    stat_per_cluster_b,
    n_rounds: int = 1000,
    seed: int = 0,
    statistic: Callable[[np.ndarray], np.ndarray] | None = None,
) -> PermutationResult:
    """Is judge a's statistic different from judge b's? Swap the judges within clusters.

    Under the null hypothesis the two judges are exchangeable on every question, so
    each round swaps a's and b's values of each cluster with probability ½ (a paired,
    cluster-level version of the PERM-BOTH test of Deutsch et al. 2021, used by
    mt-metrics-eval) and recomputes the difference.

    * 1-D inputs: per-cluster values (e.g. per-question agreement); the statistic is
      the mean over clusters, Δ = mean(a) − mean(b).
    * 2-D inputs (K × m): per-cluster sufficient sums; ``statistic`` maps totals (R, m)
      to (R,) (e.g. :data:`PAIR_COUNT_STATISTICS` entries), Δ = stat(Σa) − stat(Σb):
      the pooled statistic, each round as one matrix product.

    Two-sided p-value (1 + #{|Δ*| ≥ |Δ|}) / (1 + n_rounds) (Phipson & Smyth 2010: never
    0); ``|Δ*| ≥ |Δ|`` is tested with a 1e-12 relative tolerance so that rounding does
    not separate permutations that equal the observed split. When the 2^K swaps of K
    clusters are no more than the rounds asked, all of them are enumerated instead and
    the p-value is exact: #{|Δ*| ≥ |Δ|} / 2^K (the identity is among them, so never 0;
    Ernst 2004, "Permutation methods", §2).
    """
    if n_rounds < 1:
        raise ValueError("n_rounds must be positive")
    a = np.asarray(stat_per_cluster_a, dtype=float)
    b = np.asarray(stat_per_cluster_b, dtype=float)
    if a.shape != b.shape:
        raise ValueError("a and b must have one row per cluster, in the same order")
    k = a.shape[0]
    if k == 0:
        return PermutationResult(float("nan"), float("nan"), n_rounds, 0)
    rng = np.random.default_rng(seed)
    exact = k < 63 and 2**k <= n_rounds
    if exact:  # every swap vector, as rows of bits: 2^K × K
        every = ((np.arange(2**k)[:, None] >> np.arange(k)[None, :]) & 1).astype(float)
    if a.ndim == 1:
        if statistic is not None:
            raise ValueError("statistic applies to 2-D per-cluster sums only")
        if np.isnan(a).any() or np.isnan(b).any():
            raise ValueError("NaN per-cluster statistics; drop those clusters first")
        diff = a - b
        observed = float(diff.mean())
        signs = 1 - 2 * every if exact else rng.choice(np.array([-1.0, 1.0]), size=(n_rounds, k))
        perm = signs @ diff / k
    elif a.ndim == 2:
        if statistic is None:
            raise ValueError("2-D per-cluster sums need a statistic of the totals")
        ta, tb = a.sum(axis=0), b.sum(axis=0)
        observed = float(np.asarray(statistic(ta[None]))[0] - np.asarray(statistic(tb[None]))[0])
        swap = every if exact else rng.integers(0, 2, size=(n_rounds, k)).astype(float)
        moved = swap @ (b - a)
        perm = np.asarray(statistic(ta + moved)) - np.asarray(statistic(tb - moved))
    else:
        raise ValueError("per-cluster input must be 1-D values or 2-D sums")
    rounds = 2**k if exact else n_rounds
    if np.isnan(observed):
        return PermutationResult(observed, float("nan"), rounds, k, exact)
    tol = 1e-12 * max(1.0, abs(observed))
    extreme = int(np.sum(np.abs(perm) >= abs(observed) - tol))
    if exact:
        return PermutationResult(observed, extreme / rounds, rounds, k, True)
    return PermutationResult(observed, (1 + extreme) / (1 + n_rounds), n_rounds, k)
