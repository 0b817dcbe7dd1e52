"""The judge card reproduces biases set by construction (issue 27 "Done when").

Each synthetic study has K questions of M comparisons with two reports of known length;
two experts label each comparison (tie with probability 0.15, else the longer report with
probability 0.55). Judges are built with one bias set: a judge that always (or, with
probability π, regardless of content) picks the report shown first, one that always picks
the longer report, one that ties twice as often as the experts, and two runs of a judge
that agree with probability s. For every figure with a set value we count the seeds
whose cluster-bootstrap 95 % CI holds it.

Sizes: 300 seeds × K = 80 questions × M = 6 comparisons, 1,000 bootstrap rounds (the
report's default). Fewer rounds are not enough here: at 300 rounds the 2.5 % bound rests
on ~7 rounds and its Monte-Carlo noise alone lowered the measured coverage of the
three-run self-agreement to 92.9 % over 1,000 seeds (94.4 % at 1,000 rounds). 300 seeds
put the coverage's standard error at 1.3 points. The module runs in about ten seconds:
each figure's bootstrap is one matrix product of the rounds' multiplicities with the
per-question sums (``bootstrap_from_cluster_sums``), no Python loop over rounds.

The bar: a nominal 95 % interval holds the set value in 95 % of seeds on average, so a
check "≥ 95 %" on a finite number of seeds would fail half the time for a perfectly
calibrated interval. We require coverage ≥ 93 % (two standard errors below 95 % at 300
seeds): an interval that is too narrow, or a figure that is biased (a wrong orientation,
a wrong denominator), falls far below it — e.g. a first-shown share computed in display
order instead of canonical order is 0.5 for the always-first judge, covered in 0 % of
seeds. The degenerate cases (always first, always longer) must be covered in 100 %.
"""

from __future__ import annotations

import numpy as np
import pytest

from metaeval.analyses.judge_card import pairwise_cards
from metaeval.loaders.pairwise import PairwiseData
from metaeval.stats import judge_card as jc

SEEDS = 300
K, M = 80, 6
ROUNDS = 1000
EXPERT_TIE, EXPERT_LONGER = 0.15, 0.55
MIN_COVERAGE = 0.93


def study(rng):
    """Comparisons (question, longer side) and two experts' canonical labels."""
    q = np.repeat(np.arange(K), M)
    n = q.size
    length = rng.integers(300, 3000, size=(n, 2))
    longer = jc.longer_side(length[:, 0], length[:, 1])
    labels = []
    for _ in range(2):
        tie = rng.random(n) < EXPERT_TIE
        picks_longer = rng.random(n) < EXPERT_LONGER
        labels.append(np.where(tie, 0.0, np.where(picks_longer, longer, -longer)))
    return (
        q,
        longer,
        np.concatenate(labels),
        np.concatenate((q, q)),
        np.concatenate((longer, longer)),
    )


def covered(fig: dict, value: float) -> bool:
    assert fig["value"] is not None and fig["low"] is not None, fig
    return fig["low"] - 1e-12 <= value <= fig["high"] + 1e-12


def coverage(run) -> dict[str, float]:
    hits: dict[str, int] = {}
    for seed in range(SEEDS):
        for name, ok in run(np.random.default_rng(seed), seed).items():
            hits[name] = hits.get(name, 0) + int(ok)
    return {k: v / SEEDS for k, v in hits.items()}


def first_biased_judge(rng, q, pi):
    """With probability π (per order) the judge picks the report shown first, else it
    picks the better report (its content verdict v, the same in both orders)."""
    v = np.where(rng.random(q.size) < 0.5, 1.0, -1.0)
    first = np.where(rng.random(q.size) < pi, 1.0, v)  # order 1: A shown first
    second = np.where(rng.random(q.size) < pi, -1.0, v)  # order 2: B shown first
    return first, second


@pytest.mark.parametrize("pi", [1.0, 0.4])
def test_position_bias_is_recovered(pi):
    """Set: order consistency 1 − π, first-shown share (1 + π) / 2 (module doc)."""

    def run(rng, seed):
        q, *_ = study(rng)
        first, second = first_biased_judge(rng, q, pi)
        got = jc.position_bias(first, second, q, ROUNDS, seed)
        return {"consistency": covered(got["order_consistency"], 1 - pi),
                "first": covered(got["first_shown"], (1 + pi) / 2)}  # fmt: skip

    cov = coverage(run)
    floor = 1.0 if pi == 1.0 else MIN_COVERAGE
    assert all(c >= floor for c in cov.values()), cov


def test_always_longer_judge_against_experts():
    """Set: judge 1, experts 0.55, difference 0.45."""

    def run(rng, seed):
        q, longer, labels, lq, llonger = study(rng)
        got = jc.length_bias(longer, longer, q, labels, llonger, lq, ROUNDS, seed)
        return {"judge": covered(got["judge"], 1.0),
                "experts": covered(got["experts"], EXPERT_LONGER),
                "difference": covered(got["difference"], 1 - EXPERT_LONGER)}  # fmt: skip

    cov = coverage(run)
    assert cov["judge"] == 1.0, cov
    assert cov["experts"] >= MIN_COVERAGE and cov["difference"] >= MIN_COVERAGE, cov


def test_judge_that_ties_twice_as_often():
    """Set: judge tie rate 0.30, experts 0.15, difference 0.15."""

    def run(rng, seed):
        q, longer, labels, lq, _ = study(rng)
        verdict = np.where(rng.random(q.size) < 2 * EXPERT_TIE, 0.0, longer)
        got = jc.tie_behaviour(verdict, q, labels, lq, ROUNDS, seed)
        return {"judge": covered(got["judge"], 2 * EXPERT_TIE),
                "experts": covered(got["experts"], EXPERT_TIE),
                "difference": covered(got["difference"], EXPERT_TIE)}  # fmt: skip

    cov = coverage(run)
    assert all(c >= MIN_COVERAGE for c in cov.values()), cov


def test_two_runs_with_known_self_agreement():
    """Set: the second run repeats the first verdict with probability 0.8, else gives one
    of the two others: self-agreement 0.8. Three runs built the same way from one
    reference agree pairwise with probability 0.8² + 0.2² / 2 = 0.66."""

    def other(rng, v):
        shift = np.where(rng.random(v.size) < 0.5, 1, 2)
        return ((v + 1 + shift) % 3) - 1  # one of the two other verdicts in {-1, 0, 1}

    def run(rng, seed):
        q, *_ = study(rng)
        base = rng.integers(-1, 2, q.size).astype(float)
        runs = [np.where(rng.random(q.size) < 0.8, base, other(rng, base)) for _ in range(2)]
        two = jc.self_agreement([base, runs[0]], q, ROUNDS, seed)
        three = jc.self_agreement([runs[0], runs[1], base], q, ROUNDS, seed)
        p3 = (0.8 + 0.8 + (0.8**2 + 0.2**2 / 2)) / 3
        return {"two": covered(two, 0.8), "three": covered(three, p3)}

    cov = coverage(run)
    assert all(c >= MIN_COVERAGE for c in cov.values()), cov


def test_undefined_figures_are_null_with_a_note():
    one = jc.self_agreement([np.array([1.0, -1.0])], np.array([1, 2]))
    assert one["value"] is None and "two runs" in one["note"]
    never = jc.position_bias(np.array([1.0, np.nan]), np.array([np.nan, 1.0]), np.array([1, 2]))
    assert never["order_consistency"]["value"] is None
    assert "both orders" in never["order_consistency"]["note"]
    ties = jc.length_bias(np.zeros(3), np.ones(3), np.arange(3), np.zeros(3), np.ones(3),
                          np.arange(3))  # fmt: skip
    assert ties["judge"]["value"] is None and ties["difference"]["value"] is None
    flat = jc.rank_correlation([1, 1, 1, 1], [3, 4, 5, 6], [1, 2, 3, 4])
    assert flat["value"] is None and flat["note"]
    assert jc.per_thousand(5.0, 0) is None and jc.per_thousand(2.0, 500) == 4.0


def test_rank_correlation_of_a_score_that_is_its_length():
    rng = np.random.default_rng(0)
    length = rng.integers(100, 1000, 60)
    got = jc.rank_correlation(length * 2.0, length, np.repeat(np.arange(20), 3), 200, 0)
    assert got["value"] == pytest.approx(1.0) and got["low"] == pytest.approx(1.0)


def test_card_orients_a_stored_direct_judge_by_the_order_it_was_asked_in():
    """The composed card reads a direct judge from stored rows: one row per order, the
    verdict canonical, ``j_order`` 1 when A was shown first. An always-first judge stored
    that way is order-consistent 0 and picks the first shown 1 — and a verdict line says
    so from the figures."""
    n = 40
    q = np.arange(n) // 2
    item = np.concatenate((np.arange(n), np.arange(n)))
    order = np.concatenate((np.ones(n, int), np.full(n, 2)))
    verdict = np.where(order == 1, 1.0, -1.0)  # first shown: A in order 1, B in order 2
    data = PairwiseData(
        question=q, report_a=np.arange(n) * 2, report_b=np.arange(n) * 2 + 1,
        system_a=np.zeros(n, int), system_b=np.ones(n, int), systems=["s1", "s2"],
        h_item=np.arange(n), h_annotator=np.zeros(n, int),
        h_label=np.where(np.arange(n) % 2 == 0, 1.0, -1.0), h_setting=["assigned"] * n,
        j_judge=np.zeros(2 * n, int), j_protocol=["direct"] * (2 * n), j_item=item,
        j_order=order, j_verdict=verdict, judges=["first-picker"],
    )  # fmt: skip
    lengths = {int(r): 100 + int(r) for r in range(2 * n)}  # B (odd ids) is always longer
    cards = pairwise_cards(data, {}, lengths, {}, rounds=50, seed=0)
    card = cards["first-picker"][0]
    assert card["position"]["order_consistency"]["value"] == 0.0
    assert card["position"]["first_shown"]["value"] == 1.0
    assert card["length"]["judge"]["value"] == 0.5  # B first in order 2 only: half longer
    assert card["length"]["experts"]["value"] == 0.5
    assert card["self_agreement"]["value"] is None and card["self_agreement"]["note"]
    line = jc.verdict_line("direct", card)
    assert "order-consistent 0.00" in line and "picks the report shown first 1.00" in line


def test_coverage_labels_card_from_units():
    """A coverage judge (0–4 labels of (report, item) units): exact agreement with each
    expert label, the experts' own pair agreement, ρ of the per-report mean label with
    length, and self-agreement of two runs — counted by hand on six units."""
    from metaeval.analyses.judge_card import coverage_cards
    from metaeval.loaders.coverage import CoverageData

    report = np.array([1, 1, 2, 2, 3, 3])
    # experts: two labels on units 0-3, one on 4-5
    h_unit = np.array([0, 0, 1, 1, 2, 2, 3, 3, 4, 5])
    h_label = np.array([4, 4, 3, 2, 0, 0, 1, 2, 4, 3], dtype=float)
    judge_a = np.array([4, 3, 0, 1, 4, 2], dtype=float)  # equals 2+1+2+1+1+0 = 7 of 10
    judge_b = np.array([4, 3, 1, 1, 4, 3], dtype=float)  # the rerun: 4 of 6 units equal
    data = CoverageData(
        report=report, item=np.arange(6), question=np.array([1, 1, 2, 2, 3, 3]),
        field=np.zeros(6, int), system=np.zeros(6, int), weight=np.ones(6), fields=["f"],
        systems=["s"], h_unit=h_unit, h_annotator=np.array([1, 2] * 4 + [1, 1]),
        h_label=h_label, h_covered=np.full(10, np.nan),
        j_judge=np.repeat([0, 1], 6), j_unit=np.tile(np.arange(6), 2),
        j_label=np.concatenate((judge_a, judge_b)), j_covered=np.full(12, np.nan),
        judges=["cov-a", "cov-a-seed2"],
    )  # fmt: skip
    lengths = {1: 100, 2: 300, 3: 200}
    family = {"cov-a": ["cov-a", "cov-a-seed2"], "cov-a-seed2": ["cov-a-seed2", "cov-a"]}
    card = coverage_cards(data, lengths, family, rounds=0, seed=0)["cov-a"][0]
    assert card["protocol"] == "coverage" and card["kind"] == "labels"
    assert card["agreement"]["value"] == pytest.approx(7 / 10)
    assert card["experts_agreement"]["value"] == pytest.approx(2 / 4)  # units 0, 2 of 0-3
    assert card["self_agreement"]["value"] == pytest.approx(4 / 6)
    # per-report mean labels: judge 3.5, 0.5, 3.0 (ranks 3, 1, 2); lengths 100, 300, 200
    # (ranks 1, 3, 2): Σd² = 8, ρ = 1 − 6·8 / (3·8) = −1
    assert card["length"]["judge_rho"]["value"] == pytest.approx(-1.0)
    # experts' means 4, 2.5 | 0, 1.5 | 4, 3 -> 3.25, 0.75, 3.5 (ranks 2, 1, 3): Σd² = 6, ρ = −0.5
    assert card["length"]["experts_rho"]["value"] == pytest.approx(-0.5)
    assert card["position"]["order_consistency"]["value"] is None
    assert card["ties"]["judge"]["note"]
    assert "coverage: 0.70 agreement with each expert's label" in jc.verdict_line("coverage", card)
