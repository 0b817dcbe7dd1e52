import time

import numpy as np
import pytest

from metaeval.stats.agreement import agreement
from metaeval.stats.bootstrap import (
    PAIR_COUNT_STATISTICS,
    bootstrap_from_cluster_sums,
    cluster_bootstrap,
    cluster_sums,
    pair_count_rows,
    paired_permutation_test,
)
from metaeval.stats.correlation import pearson_matrix, per_annotator_alignment
from metaeval.stats.kendall import tau_b_decisions


def _data(seed=0, n=600, k=30):
    rng = np.random.default_rng(seed)
    h = rng.choice([-1, 0, 1], n)
    m = np.where(rng.random(n) < 0.6, h, rng.choice([-1, 0, 1], n))
    return h, m, rng.integers(0, k, n)


def test_count_statistics_match_scalar_functions():
    h, m, _ = _data()
    t = pair_count_rows(h, m).sum(axis=0)
    assert PAIR_COUNT_STATISTICS["agreement"](t) == pytest.approx(agreement(h, m).value)
    assert PAIR_COUNT_STATISTICS["partial"](t) == pytest.approx(agreement(h, m, "partial").value)
    assert PAIR_COUNT_STATISTICS["exclude"](t) == pytest.approx(agreement(h, m, "exclude").value)
    assert PAIR_COUNT_STATISTICS["tau_b"](t) == pytest.approx(tau_b_decisions(h, m))


def test_fast_path_equals_generic_path():
    # Same seed -> same clusters drawn, so the replicates of a sum-based statistic agree.
    h, m, q = _data()
    rows = pair_count_rows(h, m)
    tau = PAIR_COUNT_STATISTICS["tau_b"]
    generic = cluster_bootstrap(lambda idx: tau(rows[idx].sum(axis=0)), q, 300, seed=11)
    sums, keys = cluster_sums(q, rows)
    fast = bootstrap_from_cluster_sums(sums, tau, 300, seed=11)
    assert keys.size == 30 and fast.n_clusters == 30
    assert generic.estimate == pytest.approx(tau_b_decisions(h, m))
    for field in ("estimate", "low", "high", "se"):
        assert getattr(fast, field) == pytest.approx(getattr(generic, field))
    assert generic.low < generic.estimate < generic.high


def test_bootstrap_resamples_whole_clusters():
    # Every row of a cluster has the same value: each replicate mean must be a mean of
    # cluster values weighted by cluster size; with clusters {0: two rows of 1.0},
    # {1: one row of 0.0}, a replicate can only be 1, 0 or 2/3 (one of each).
    values = np.array([1.0, 1.0, 0.0])
    seen = set()

    def stat(idx):
        v = float(values[idx].mean())
        seen.add(round(v, 9))
        return v

    cluster_bootstrap(stat, [5, 5, 9], n_rounds=100, seed=1)
    assert seen <= {1.0, 0.0, round(2 / 3, 9)} and len(seen) == 3


def test_empty_bootstrap_is_nan():
    r = bootstrap_from_cluster_sums(np.zeros((0, 5)), PAIR_COUNT_STATISTICS["agreement"], 10)
    assert np.isnan(r.estimate) and r.n_clusters == 0


def test_fast_bootstrap_scales_to_240k_rows_5_metrics():
    rng = np.random.default_rng(0)
    n = 240_000
    q = rng.integers(0, 4_000, n)
    h = rng.choice([-1, 0, 1], n)
    rows = np.concatenate(
        [pair_count_rows(h, np.where(rng.random(n) < 0.6, h, -h)) for _ in range(5)], axis=1
    )
    start = time.perf_counter()
    sums, _ = cluster_sums(q, rows)

    def stat(t):
        t = t.reshape(t.shape[0], 5, 5)
        return np.concatenate(
            [PAIR_COUNT_STATISTICS["agreement"](t), PAIR_COUNT_STATISTICS["tau_b"](t)], axis=1
        )

    r = bootstrap_from_cluster_sums(sums, stat, n_rounds=1000, seed=0)
    assert time.perf_counter() - start < 30
    assert r.estimate.shape == (10,) and np.all(r.low <= r.high)


def test_permutation_identical_judges_and_clear_difference():
    a = np.array([0.9, 0.8, 0.85, 0.95, 0.9, 0.8, 0.7, 0.9, 0.85, 0.9])
    same = paired_permutation_test(a, a, n_rounds=500, seed=0)
    assert same.difference == 0 and same.pvalue == 1.0  # every |Δ*| = 0 >= 0
    worse = paired_permutation_test(a, a - 0.3, n_rounds=2000, seed=0)
    # All 10 differences are +0.3: |Δ*| >= 0.3 only when all signs agree,
    # probability 2/1024, so p ≈ (1 + 2000·2/1024)/2001 ≈ 0.0024.
    assert worse.difference == pytest.approx(0.3) and worse.pvalue < 0.02


def test_permutation_on_cluster_sums():
    h, m, q = _data(seed=3)
    rows_a = pair_count_rows(h, m)
    rows_b = pair_count_rows(h, np.zeros_like(m))  # a judge that always ties
    sa, _ = cluster_sums(q, rows_a)
    sb, _ = cluster_sums(q, rows_b)
    stat = PAIR_COUNT_STATISTICS["agreement"]
    r = paired_permutation_test(sa, sb, n_rounds=500, seed=0, statistic=stat)
    assert r.difference == pytest.approx(agreement(h, m).value - np.mean(h == 0))
    assert r.pvalue < 0.01
    assert paired_permutation_test(sa, sa, 100, 0, statistic=stat).pvalue == 1.0


def test_pearson_matrix_pairwise_complete():
    # x = [1,2,3,4], y = 2x -> r = 1; z = [4,3,NaN,1] vs x on rows 0,1,3:
    # x' = [1,2,4], z' = [4,3,1] -> z' = 5 − x' -> r = −1, n = 3.
    r = pearson_matrix({"x": [1, 2, 3, 4], "y": [2, 4, 6, 8], "z": [4, 3, np.nan, 1]})
    assert r.names == ["x", "y", "z"]
    assert r.r[0, 1] == pytest.approx(1) and r.r[0, 2] == pytest.approx(-1)
    assert r.n[0, 2] == 3 and r.n[0, 1] == 4 and np.allclose(np.diag(r.r), 1)


def test_per_annotator_alignment():
    # annotator 0: human [1, 0] judge [1, 0] -> agreement 1, τ-b 1;
    # annotator 1: human [1, -1] judge [-1, -1] -> agreement ½, τ-b (1 − 1)/2 = 0.
    out = per_annotator_alignment([0, 0, 1, 1], [1, 0, 1, -1], [1, 0, -1, -1])
    assert [(a.annotator, a.agreement, a.tau_b, a.n) for a in out] == [
        (0, 1.0, 1.0, 2),
        (1, 0.5, 0.0, 2),
    ]


def test_one_cluster_gives_no_interval_and_a_note():
    """Issue 13: resampling a single question only ever redraws it: [x, x] is no interval."""
    rows = pair_count_rows([1, -1, 0, 1], [1, 1, 0, 1])
    sums, keys = cluster_sums(["q1"] * 4, rows)
    r = bootstrap_from_cluster_sums(sums, PAIR_COUNT_STATISTICS["agreement"], 100, 0)
    assert r.estimate == pytest.approx(0.75)
    assert np.isnan(r.low) and np.isnan(r.high) and r.n_clusters == 1
    assert "1 question" in r.note
    generic = cluster_bootstrap(lambda rows: float(len(rows)), ["q"] * 3, n_rounds=10)
    assert generic.estimate == 3 and np.isnan(generic.low) and generic.note


def test_permutation_is_exact_when_every_swap_fits_in_the_rounds():
    """Issue 13: 2^K <= rounds: all sign flips enumerated, p = #{|Δ*| >= |Δ|} / 2^K."""
    a, b = np.array([0.9, 0.8, 0.7]), np.array([0.5, 0.6, 0.7])
    # differences 0.4, 0.2, 0: |Δ*| >= |Δ| only for all-plus or all-minus signs on the
    # first two, whatever the third: 4 of 8 sign vectors
    r = paired_permutation_test(a, b, n_rounds=8, seed=123)
    assert r.exact and r.n_rounds == 8 and r.pvalue == 4 / 8
    assert paired_permutation_test(a, b, n_rounds=8, seed=9).pvalue == r.pvalue  # no chance
    sampled = paired_permutation_test(a, b, n_rounds=7, seed=0)
    assert not sampled.exact and sampled.n_rounds == 7
