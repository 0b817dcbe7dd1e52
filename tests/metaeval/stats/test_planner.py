"""The budget planner (issue 17 part 3): validated by simulation on synthetic studies whose
truth is known, plus the formulas' exact cases and the null + note cases."""

from __future__ import annotations

import numpy as np
import pytest

from metaeval.stats import planner as P

SEEDS = range(20)


def synth(rng, n_questions, overlap, per_unit=3, a=6.0, b=2.0, noise=0.6, b_shift=0.0):
    """A study with a known truth: question q has judge-agreement probability p_q ~ Beta(a, b)
    (between-question variance); each annotator's unit perturbs it on the logit scale
    (within); each unit holds ``per_unit`` comparisons (a 3-report ranking: 3 pairs).
    Human decisions are −1 / 0 / 1 (20 % ties); the judge agrees with probability p.
    A second judge agrees with probability p shifted by ``b_shift`` on the logit scale."""
    units = n_questions * overlap
    pq = rng.beta(a, b, n_questions)
    logit = np.log(pq / (1 - pq))
    lu = np.repeat(logit, overlap) + rng.normal(0, noise, units)
    n = units * per_unit
    lp = np.repeat(lu, per_unit)
    h = rng.choice(np.array([-1, 0, 1]), size=n, p=[0.4, 0.2, 0.4])
    other = np.where(h == 0, rng.choice(np.array([-1, 1]), size=n), -h)

    def judge(shift):
        agree = rng.random(n) < 1 / (1 + np.exp(-(lp + shift)))
        return np.where(agree, h, other)

    q = np.repeat(np.arange(n_questions), overlap * per_unit)
    u = np.repeat(np.tile(np.arange(overlap), n_questions), per_unit)
    return h, judge(0.0), judge(b_shift), q, u


def _pilot(figure, data, seconds=None):
    h, j, jb, q, u = data
    return P.pilot_from_rows(figure, h, j, q, u, judge_b=jb, seconds=seconds)


@pytest.mark.parametrize(
    ("figure", "target", "b_shift"),
    [("agreement", 0.025, 0.0), ("tau_b", 0.04, 0.0), ("judge_difference", 0.025, 0.7)],
)
def test_predicted_questions_reach_the_target_half_width(figure, target, b_shift):
    """Issue 17: on synthetic studies with a known truth, the predicted size reaches the
    target half-width within ±15 % in at least 80 % of seeds. Pilot: 150 questions × 2
    annotators; the study of the predicted size is drawn afresh from the same truth and
    its bootstrap half-width (the report's interval) compared with the target."""
    hits, sizes = 0, []
    for seed in SEEDS:
        pilot = _pilot(figure, synth(np.random.default_rng(seed), 150, 2, b_shift=b_shift))
        model = P.fit(pilot, n_rounds=2000, seed=seed)
        route = P.plan_new_questions(model, target, overlap=2)
        assert route.new_questions > 0  # the pilot is wider than the target
        size = model.n_questions + route.new_questions
        sizes.append(size)
        fresh = _pilot(figure, synth(np.random.default_rng(10_000 + seed), size, 2,
                                     b_shift=b_shift))  # fmt: skip
        realised = P.fit(fresh, n_rounds=2000, seed=seed).half_width
        hits += abs(realised / target - 1) <= 0.15
    assert hits >= 0.8 * len(SEEDS), (hits, sizes)


def test_predicted_overlap_reaches_the_target_half_width():
    """The other route: more annotators on the same questions, predicted by the within-
    question component; checked the same way (80 % of seeds within ±15 %). The size is an
    integer number of annotators per question, so the predicted half-width at the chosen
    overlap is below the target: the realised one is compared with the target, as asked."""
    hits, grew, target = 0, 0, 0.03
    truth = dict(a=12, b=3, noise=1.0)
    for seed in SEEDS:
        data = synth(np.random.default_rng(seed), 150, 2, **truth)
        model = P.fit(_pilot("agreement", data), seed=seed, n_rounds=2000)
        route = P.plan_more_annotators(model, target)
        assert route.extra_per_question is not None
        grew += route.extra_per_question > 0
        overlap = 2 + route.extra_per_question
        fresh = synth(np.random.default_rng(10_000 + seed), 150, overlap, **truth)
        realised = P.fit(_pilot("agreement", fresh), seed=seed, n_rounds=2000).half_width
        hits += abs(realised / target - 1) <= 0.15
    assert hits >= 0.8 * len(SEEDS)
    assert grew >= 0.8 * len(SEEDS)  # the pilot was mostly wider than the target


def test_components_recover_the_truth_of_a_balanced_anova():
    """σ_b² and σ_w² of φ = β_q + ε_qr by the method of moments (Searle et al. §3.5)."""
    rng = np.random.default_rng(3)
    k, r = 4000, 3
    q = np.repeat(np.arange(k), r)
    phi = np.repeat(rng.normal(0, 2.0, k), r) + rng.normal(0, 1.0, k * r)
    between, within, total = P.components(phi, q)
    assert between == pytest.approx(4.0, rel=0.05)
    assert within == pytest.approx(1.0, rel=0.05)
    assert total == pytest.approx(5.0, rel=0.05)


def test_design_variance_balanced_formula():
    """Balanced K × k: V = (σ_b² + σ_w²/k) / K."""
    assert P.design_variance([3] * 50, 0.2, 0.6) == pytest.approx((0.2 + 0.6 / 3) / 50)


def test_influences_of_agreement_are_residuals():
    """For a pooled ratio, φ_u = N (a_u − R n_u) / Σ n (delta method, exact form)."""
    rng = np.random.default_rng(0)
    data = synth(rng, 30, 2)
    pilot = _pilot("agreement", data)
    phi = P.influences(pilot.sums, pilot.statistic)
    a = pilot.sums[:, 0] + pilot.sums[:, 4]
    n = pilot.sums.sum(axis=1)
    rate = a.sum() / n.sum()
    expected = len(n) * (a - rate * n) / n.sum()
    np.testing.assert_allclose(phi, expected, atol=1e-6)
    assert abs(phi.sum()) < 1e-6


def test_half_width_scales_as_one_over_root_questions():
    model = P.fit(_pilot("agreement", synth(np.random.default_rng(1), 80, 1)))
    assert model.between is None  # one annotator per question: not separable
    h4 = P.predict_half_width(model, new_questions=3 * 80, overlap=1)
    assert h4 == pytest.approx(model.half_width / 2)
    # overlap 2 cannot be planned from a pilot without a doubly annotated question
    route = P.plan_new_questions(model, model.half_width / 2, overlap=2)
    assert route.units is None and "two annotators" in route.note
    assert P.plan_more_annotators(model, 0.01).units is None


def test_more_annotators_has_a_floor():
    """Annotating the same questions again cannot beat the between-question variance."""
    model = P.fit(_pilot("agreement", synth(np.random.default_rng(2), 100, 2)))
    assert model.between > 0
    route = P.plan_more_annotators(model, model.half_width / 10)
    assert route.units is None and "between-question" in route.note
    assert P.plan_more_annotators(model, model.half_width / 10, max_overlap=5).units is None


def test_costs_from_measured_time():
    data = synth(np.random.default_rng(4), 60, 2)
    pilot = _pilot("agreement", data, seconds=np.full(data[0].size, 360.0))
    model = P.fit(pilot)
    assert model.seconds_per_unit == 360.0 and model.comparisons_per_unit == 3.0
    route = P.plan_new_questions(model, model.half_width / 2, overlap=2)
    assert route.units == 2 * route.new_questions
    assert route.comparisons == 3 * route.units
    assert route.hours == pytest.approx(route.units * 0.1)
    answer = P.plan(model, model.half_width / 2)
    assert answer["cheapest"] in ("new_questions", "more_annotators")
    assert answer["routes"]["new_questions"]["units"] == route.units
    assert not answer["reached"]
    assert P.plan(model, model.half_width * 2)["reached"]


def test_undefined_pilots_are_null_with_a_note():
    one = _pilot("agreement", synth(np.random.default_rng(5), 1, 3))
    model = P.fit(one)
    assert model.half_width is None and "at least 2" in model.note
    answer = P.plan(model, 0.05)
    assert answer["routes"]["new_questions"]["units"] is None
    assert answer["routes"]["new_questions"]["note"]
    empty = P.pilot_from_rows("agreement", [], [], [], [])
    assert P.fit(empty).note.startswith("No judgment")
    # judge always right: no variance, nothing to scale
    h = np.array([1, -1, 1, -1, 1, 1])
    flat = P.fit(P.pilot_from_rows("agreement", h, h, [0, 0, 1, 1, 2, 2], [0, 1, 0, 1, 0, 1]))
    assert P.plan_new_questions(flat, 0.01).units is None
    assert P.permutation_power([0.0], [3.0], 0.1) is None


def test_allocation_prefers_new_then_few_annotators_then_cheap_questions():
    # new question (0 units) first when σ_b² > 0
    add = P.allocate([2, 2, 0], between=0.1, within=0.5, cost=1.0, budget=1)
    assert add.tolist() == [0, 0, 1]
    # then the fewest annotators
    add = P.allocate([3, 1, 2], between=0.1, within=0.5, cost=1.0, budget=1)
    assert add.tolist() == [0, 1, 0]
    # among equal counts: the cheaper
    add = P.allocate([2, 2], between=0.1, within=0.5, cost=[600.0, 300.0], budget=1)
    assert add.tolist() == [0, 1]
    # the budget is spent, capped per question
    add = P.allocate([1, 1, 1], between=0.1, within=0.5, cost=1.0, budget=10, max_per_question=3)
    assert add.sum() == 6 and (add <= 2).all()


def test_allocation_shrinks_the_variance_faster_than_uniform():
    rng = np.random.default_rng(6)
    counts = rng.integers(1, 4, 50)
    within = rng.uniform(0.1, 1.0, 50)
    cost = rng.uniform(100, 600, 50)
    budget = 40
    add = P.allocate(counts, 0.05, within, cost, budget)
    spent = float(np.sum(add * cost))
    # the same seconds spent on the questions in index order
    order = np.zeros(50, int)
    left, i = spent, 0
    while i < 50 and left >= cost[i]:
        order[i] += 1
        left -= cost[i]
        i += 1
    greedy = P.design_variance(counts + add, 0.05, within)
    naive = P.design_variance(counts + order, 0.05, within)
    assert greedy < naive


def test_power_normal_approximation_matches_simulation():
    """The normal approximation of the paired permutation test's power against the test
    itself on resampled studies (both documented in the module)."""
    d, n = P.difference_by_question(
        _pilot("judge_difference", synth(np.random.default_rng(7), 60, 2, b_shift=0.5))
    )
    for delta in (0.02, 0.05):
        normal = P.permutation_power(d, n, delta)
        sim = P.permutation_power(d, n, delta, method="simulation", n_sims=200, n_rounds=499)
        assert normal == pytest.approx(sim, abs=0.1)
    assert P.permutation_power(d, n, 0.0) == pytest.approx(0.05, abs=0.01)
    small = P.permutation_power(d, n, 0.03)
    big = P.permutation_power(d, n, 0.03, n_questions=600)
    assert big > small
    k80 = P.questions_for_power(d, n, 0.03)
    assert P.permutation_power(d, n, 0.03, n_questions=k80) >= 0.8
    assert P.permutation_power(d, n, 0.03, n_questions=k80 - 1) < 0.8
