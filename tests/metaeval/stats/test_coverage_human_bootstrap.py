"""Rubric coverage, human vs human: the bootstrap vectorised over rounds
(metaeval.stats.coverage_agreement.human_pair_rows / human_pair_figures).

Every round used to call :func:`human_coverage_agreement` (and the ``krippendorff``
package) on the resampled matrix: ~2 s for 1,000 rounds of 1,000 doubly labelled units.
Now each round's figures come from per-question sums of every ordered annotator pair's
statistics. Held here: the point estimates equal :func:`human_coverage_agreement` and the
``krippendorff`` package, and the analysis's intervals equal the per-round loop's (kept
below as the reference) for a fixed seed, up to floating-point rounding."""

from __future__ import annotations

import krippendorff
import numpy as np
import pytest

from metaeval.analyses.coverage import HUMAN_FIGURES, _human_vs_human
from metaeval.stats.bootstrap import cluster_bootstrap
from metaeval.stats.coverage_agreement import (
    HUMAN_PAIR_FIGURES,
    human_coverage_agreement,
    human_pair_figures,
    human_pair_rows,
)

CLOSE = {"rtol": 1e-12, "atol": 1e-12}


def labels(seed: int, questions=15, per=5, annotators=5, missing=0.5):
    """0–4 labels, units × annotators, some units with one label or none, some with three
    or more; each question's units in a row."""
    rng = np.random.default_rng(seed)
    units = questions * per
    truth = rng.integers(0, 5, units)
    m = np.where(rng.random((units, annotators)) < 0.6, truth[:, None],
                 rng.integers(0, 5, (units, annotators))).astype(float)  # fmt: skip
    m[rng.random(m.shape) < missing] = np.nan
    return m, np.repeat([f"q{i:02d}" for i in range(questions)], per)


def reference(m, questions, rounds, seed):
    """The previous implementation: the figures recomputed on every resample."""
    doubly = (~np.isnan(m)).sum(axis=1) >= 2
    sub, clusters = m[doubly], questions[doubly]

    def statistic(rows):
        got = human_coverage_agreement(sub[rows])
        return np.array([getattr(got, k) for k in HUMAN_FIGURES], dtype=float)

    return cluster_bootstrap(statistic, clusters, n_rounds=rounds, seed=seed)


def test_the_figures_are_in_the_analysis_order():
    assert HUMAN_PAIR_FIGURES == HUMAN_FIGURES


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_point_estimates_are_human_coverage_agreement_and_the_krippendorff_package(seed):
    m, _ = labels(seed)
    rows, _ = human_pair_rows(m)
    got = human_pair_figures(rows.sum(axis=0))[0]
    want = human_coverage_agreement(m)
    np.testing.assert_allclose(got, [getattr(want, k) for k in HUMAN_FIGURES], **CLOSE)
    package = krippendorff.alpha(reliability_data=m.T, level_of_measurement="ordinal")
    assert got[3] == pytest.approx(package, abs=1e-12)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_intervals_are_the_per_round_loops(seed):
    m, questions = labels(seed)
    out = _human_vs_human(m, questions, rounds=300, seed=seed)
    old = reference(m, questions, 300, seed)
    for k, name in enumerate(HUMAN_FIGURES):
        assert out[f"{name}_low"] == pytest.approx(old.low[k], abs=1e-12)
        assert out[f"{name}_high"] == pytest.approx(old.high[k], abs=1e-12)


def test_a_round_of_one_category_has_no_alpha_or_kappa():
    """Every doubly labelled unit of one question agrees on 3, of another on 1: a round
    drawing only the first has one category (α, κ undefined: NaN, as the per-round
    package call gives), and exact agreement 1."""
    m = np.array([[3, 3, np.nan], [3, np.nan, 3], [1, 1, 1], [np.nan, 1, 1]], dtype=float)
    rows, units = human_pair_rows(m)
    first = rows[np.isin(units, [0, 1])].sum(axis=0)
    exact, binarised, kappa, alpha = human_pair_figures(first)[0]
    assert (exact, binarised) == (1.0, 1.0)
    assert np.isnan(kappa) and np.isnan(alpha)
    # a unit of three labels adds 1/2 per ordered pair: its coincidences total 3 labels
    third = rows[units == 2].sum(axis=0)[8:]
    assert third.sum() == pytest.approx(3.0)


def test_no_doubly_labelled_unit_gives_no_interval_and_a_note():
    m = np.array([[1, np.nan], [np.nan, 2]], dtype=float)
    out = _human_vs_human(m, np.array(["a", "b"]), rounds=100, seed=0)
    assert out["pairs"] == 0 and out["note"]
    assert all(out[f"{k}_low"] is None and out[f"{k}_high"] is None for k in HUMAN_FIGURES)
