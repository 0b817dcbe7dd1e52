"""The label IAA bootstrap, vectorised over rounds (metaeval.stats.label_iaa.iaa_bootstrap).

It took about 15 s for 10,000 rounds: each round called the four figures (and the
``krippendorff`` package) on the resampled matrix. Now every round's figures come from
per-question totals (agreeing pairs, Fleiss' P_i and category counts, the coincidence
matrix, each annotator pair's confusion margins). Held here: the same point estimates as
:func:`iaa_summary` and the ``krippendorff`` package, and the same interval as the
previous per-round loop (kept below as the reference) for a fixed seed, up to
floating-point rounding: the rounds draw the same questions."""

from __future__ import annotations

import krippendorff
import numpy as np
import pytest

from metaeval.analyses.iaa import IAA_FIGURES, analyse_iaa
from metaeval.stats import bootstrap
from metaeval.stats.bootstrap import cluster_bootstrap
from metaeval.stats.label_iaa import figures_of_totals, iaa_bootstrap, iaa_summary, unit_statistics

LEVELS = ("nominal", "ordinal", "interval", "ratio")
CLOSE = {"rtol": 1e-12, "atol": 1e-12}


def labels(seed: int, questions=12, per=4, annotators=5, categories=5, missing=0.45):
    """Units × annotators with missing labels, agreement above chance, and a category 0
    (the ratio metric's corner); each question's units in a row."""
    rng = np.random.default_rng(seed)
    units = questions * per
    truth = rng.integers(0, categories, units)
    m = np.where(rng.random((units, annotators)) < 0.6, truth[:, None],
                 rng.integers(0, categories, (units, annotators))).astype(float)  # fmt: skip
    m[rng.random(m.shape) < missing] = np.nan
    return m, np.repeat([f"q{i:02d}" for i in range(questions)], per)


def reference(m, clusters, level, rounds, seed):
    """The previous implementation: the four figures recomputed on every resample."""
    doubly = (~np.isnan(m)).sum(axis=1) >= 2
    m, clusters = m[doubly], clusters[doubly]

    def statistic(rows):
        got = iaa_summary(m[rows], level)
        return np.array([got.strict, got.cohen_kappa, got.fleiss_kappa,
                         got.krippendorff_alpha], dtype=float)  # fmt: skip

    return cluster_bootstrap(statistic, clusters, n_rounds=rounds, seed=seed)


@pytest.mark.parametrize("level", LEVELS)
def test_point_estimates_are_iaa_summary_and_the_krippendorff_package(level):
    m, _ = labels(1)
    rows, layout = unit_statistics(m)
    strict, cohen, fleiss, alpha = figures_of_totals(rows.sum(axis=0), layout, level)[0]
    summary = iaa_summary(m, level)
    np.testing.assert_allclose(
        [strict, cohen, fleiss, alpha],
        [summary.strict, summary.cohen_kappa, summary.fleiss_kappa, summary.krippendorff_alpha],
        **CLOSE,
    )
    pairable = m[(~np.isnan(m)).sum(axis=1) >= 2]
    package = krippendorff.alpha(reliability_data=pairable.T, level_of_measurement=level)
    assert alpha == pytest.approx(package, rel=1e-12)


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("seed", [0, 7])
def test_the_interval_is_the_per_round_loops_for_the_same_seed(level, seed):
    m, clusters = labels(2 + seed)
    old = reference(m, clusters, level, rounds=300, seed=seed)
    new = iaa_bootstrap(m, clusters, level, n_rounds=300, seed=seed)
    assert new.n_clusters == old.n_clusters == 12
    np.testing.assert_array_equal(new.n_valid, old.n_valid)
    for got, want in ((new.low, old.low), (new.high, old.high), (new.se, old.se)):
        np.testing.assert_allclose(got, want, **CLOSE)
    assert (new.low < new.high).all()


def test_rounds_with_one_category_are_left_out_as_before():
    """Three questions, two of them unanimous on one label: many resamples hold a single
    category, where κ and α are undefined (NaN rounds, left out of the interval)."""
    m = np.array([[1, 1, np.nan], [1, 1, 1], [2, 2, np.nan], [2, np.nan, 2],
                  [1, 2, 2], [2, 1, np.nan], [1, np.nan, np.nan]], dtype=float)  # fmt: skip
    clusters = np.array(["a", "a", "b", "b", "c", "c", "c"])
    for level in ("nominal", "ordinal"):
        old = reference(m, clusters, level, rounds=400, seed=5)
        new = iaa_bootstrap(m, clusters, level, n_rounds=400, seed=5)
        assert old.n_valid[0] == 400 and old.n_valid[3] < 400  # some rounds undefined
        np.testing.assert_array_equal(new.n_valid, old.n_valid)
        np.testing.assert_allclose(new.low, old.low, **CLOSE)
        np.testing.assert_allclose(new.high, old.high, **CLOSE)


def test_one_question_gives_no_interval_and_says_why():
    m, _ = labels(3, questions=1)
    got = iaa_bootstrap(m, np.zeros(m.shape[0]), "nominal", n_rounds=100)
    assert np.isnan(got.low).all() and "1 question" in got.note


def test_the_report_rows_carry_the_per_round_loops_interval():
    m, clusters = labels(4)
    (row,) = analyse_iaa({"coverage": m}, clusters={"coverage": clusters}, rounds=200, seed=3)
    old = reference(m, clusters, "ordinal", rounds=200, seed=3)
    for k, name in enumerate(IAA_FIGURES):
        assert row[f"{name}_low"] == pytest.approx(old.low[k], abs=1e-9)
        assert row[f"{name}_high"] == pytest.approx(old.high[k], abs=1e-9)


def test_many_statistics_are_multiplied_a_bounded_block_of_rounds_at_a_time(monkeypatch):
    """The totals of a block of rounds (rounds × statistics) stay within the chunk's cells
    however many statistics there are (a study with many annotator pairs), and the result
    is the one of an unbounded block: the draws are not re-chunked."""
    m, clusters = labels(5, annotators=8, missing=0.3)
    whole = iaa_bootstrap(m, clusters, "nominal", n_rounds=500, seed=2)
    width = unit_statistics(m)[0].shape[1]
    seen = []
    totals_of = bootstrap.bootstrap_from_cluster_sums.__globals__

    monkeypatch.setitem(totals_of, "_CHUNK_CELLS", 40 * width)
    assert 40 * width // 12 >= 500  # the 12 questions' draws: still one chunk of 500 rounds
    real = figures_of_totals

    def counted(t, layout, level):
        seen.append(np.shape(t)[0])
        return real(t, layout, level)

    monkeypatch.setattr("metaeval.stats.label_iaa.figures_of_totals", counted)
    small = iaa_bootstrap(m, clusters, "nominal", n_rounds=500, seed=2)
    assert max(seen[1:]) <= 40 and sum(seen[1:]) == 500
    np.testing.assert_allclose(small.low, whole.low, **CLOSE)
    np.testing.assert_allclose(small.high, whole.high, **CLOSE)
