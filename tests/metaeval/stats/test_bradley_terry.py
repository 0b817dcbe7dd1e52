import math

import numpy as np
import pytest
from scipy.special import expit

from metaeval.stats.bradley_terry import (
    bradley_terry,
    bradley_terry_bootstrap,
    bradley_terry_fit,
    elo_win_probability,
)


def test_elo_win_probability_paper_figure():
    # 1/(1 + 10^((1244 − 1505)/400)) = 1/(1 + 10^−0.6525) = 0.818.
    assert elo_win_probability(1505, 1244) == pytest.approx(0.818, abs=5e-4)
    assert elo_win_probability(1000, 1000) == 0.5


def test_two_systems_closed_form_with_ties_half():
    # A beats B twice, two ties: A has 2 + ½ + ½ = 3 points of 4. Two-player MLE:
    # 10^(c_A − c_B) = 3/1 -> R_A − R_B = 400·log10(3) = 190.85, centred on 1000.
    r = bradley_terry([0, 0, 0, 0], [1, 1, 1, 1], [1, 1, 0, 0], n_systems=2)
    half = 200 * math.log10(3)
    assert r == pytest.approx([1000 + half, 1000 - half], abs=1e-3)
    assert elo_win_probability(r[0], r[1]) == pytest.approx(0.75, abs=1e-6)


def test_orientation_and_unplayed_systems():
    # 0 beats 1, 1 beats 2, 2 ties 0, 0 beats 2: every system gained and lost points
    a, b, d = [0, 1, 2, 0], [1, 2, 0, 2], [1, 1, 0, 1]
    r1 = bradley_terry(a, b, d, n_systems=4)
    r2 = bradley_terry(b, a, -np.array(d), n_systems=4)
    assert np.allclose(r1[:3], r2[:3]) and math.isnan(r1[3]) and math.isnan(r2[3])
    assert np.nanmean(r1) == pytest.approx(1000)


def test_score_equations_hold_at_the_fit():
    # At the (essentially unpenalised) MLE every system's expected points equal its
    # actual points: Σ_j n_ij P(i beats j) = W_i (Bradley–Terry likelihood equations).
    rng = np.random.default_rng(5)
    a = rng.integers(0, 4, 400)
    b = (a + rng.integers(1, 4, 400)) % 4
    strength = np.array([0.8, 0.3, 0.0, -0.5])
    p = expit(strength[a] - strength[b])
    u = rng.random(400)
    d = np.where(u < p - 0.1, 1, np.where(u < p + 0.1, 0, -1))
    r = bradley_terry(a, b, d, n_systems=4)
    prob = elo_win_probability(r[a], r[b])
    points_a = (1 + d) / 2
    for s in range(4):
        actual = points_a[a == s].sum() + (1 - points_a[b == s]).sum()
        expected = prob[a == s].sum() + (1 - prob[b == s]).sum()
        assert expected == pytest.approx(actual, abs=1e-3)


def test_bootstrap_is_reproducible_and_sensible():
    a = [0] * 30 + [1] * 30
    b = [1] * 30 + [2] * 30
    d = [1] * 20 + [-1] * 10 + [1] * 15 + [0] * 15
    r1 = bradley_terry_bootstrap(a, b, d, n_systems=3, n_rounds=200, seed=7)
    r2 = bradley_terry_bootstrap(a, b, d, n_systems=3, n_rounds=200, seed=7)
    assert np.array_equal(r1.median, r2.median) and np.array_equal(r1.sd, r2.sd)
    assert r1.median[0] > r1.median[1] > r1.median[2]
    assert np.all(r1.sd > 0) and r1.n_battles.tolist() == [30, 60, 30]
    assert np.all(np.abs(r1.median - r1.rating) < 3 * r1.sd)


def test_a_system_that_lost_every_battle_has_no_rating():
    """Issue 13: the penalised fit gave such a system about -2,000 Elo; it is undefined."""
    # 0 beats 1 twice; 1 beats 2 and loses to it; 3 lost every battle (to 0 and 2)
    a, b, d = [0, 0, 1, 1, 3, 3, 0], [1, 1, 2, 2, 0, 2, 2], [1, 1, 1, -1, -1, -1, 0]
    fit = bradley_terry_fit(a, b, d, 4, names=["w", "x", "y", "loser"])
    assert math.isnan(fit.rating[3]) and not np.isnan(fit.rating[:3]).any()
    assert fit.notes == ("Bradley-Terry: no rating for loser: it lost every battle.",)
    # the others are fitted without the loser's battles
    assert fit.rating[:3] == pytest.approx(bradley_terry(a[:4] + a[6:], b[:4] + b[6:],
                                                         d[:4] + d[6:], 3), abs=1e-6)  # fmt: skip
    winner = bradley_terry_fit([0, 0, 1], [1, 2, 2], [1, 1, 0], 3, names=["top", "b", "c"])
    assert math.isnan(winner.rating[0]) and "top: it won every battle" in winner.notes[0]
    assert winner.rating[1] == pytest.approx(winner.rating[2])  # one tie: equal


def test_two_systems_one_always_wins_both_undefined():
    fit = bradley_terry_fit([0, 0, 0], [1, 1, 1], [1, 1, 1], 2)
    assert np.isnan(fit.rating).all() and len(fit.notes) == 2


def test_disconnected_groups_have_no_rating():
    # {0, 1} and {2, 3} never met: every rating is NaN
    fit = bradley_terry_fit([0, 0, 2, 2], [1, 1, 3, 3], [1, -1, 1, -1], 4)
    assert np.isnan(fit.rating).all()
    assert "2 groups that never met" in fit.notes[0]


def test_a_group_that_beat_the_rest_has_no_rating():
    # 0 and 1 split their games, as do 2 and 3; 0/1 beat 2/3 every time
    a, b = [0, 0, 2, 2, 0, 1, 0, 1], [1, 1, 3, 3, 2, 3, 3, 2]
    d = [1, -1, 1, -1, 1, 1, 1, 1]
    fit = bradley_terry_fit(a, b, d, 4)
    assert np.isnan(fit.rating).all() and "a group of systems won every battle" in fit.notes[-1]
    assert np.isnan(bradley_terry_bootstrap(a, b, d, 4, n_rounds=20).median).all()


# --- issue 27 / 29: rounds without an estimate; every round fitted at once ----------------


def _sweepy(n_questions=6, seed=0):
    """4 systems, every pair on every question; system 0 loses once (question 0)."""
    rng = np.random.default_rng(seed)
    a, b, d, q = [], [], [], []
    for k in range(n_questions):
        for i in range(4):
            for j in range(i + 1, 4):
                a.append(i), b.append(j), q.append(k)
                d.append(-1 if (k, i, j) == (0, 0, 1) else 1 if i == 0 else rng.choice([-1, 0, 1]))
    return np.array(a), np.array(b), np.array(d), np.array(q)


def test_vectorised_rounds_equal_one_fit_per_round():
    """Each round of :func:`bootstrap_ratings` is the maximum-likelihood fit of its resample
    (checked against :func:`bradley_terry_fit` on the battles repeated as drawn), and a
    round is flagged without estimate exactly where that fit leaves a rating undefined."""
    from metaeval.stats.bradley_terry import _groups, bootstrap_ratings

    a, b, d, _ = _sweepy()
    ga, gb, gs, size = _groups(a, b, d, 4)
    defined = np.isfinite(bradley_terry_fit(a, b, d, 4).rating)
    assert defined.all()
    rng = np.random.default_rng(3)
    draws = rng.multinomial(int(size.sum()), size / size.sum(), size=60).astype(float)
    got = bootstrap_ratings(ga, gb, gs, draws, 4, defined)
    assert 0 < (~got.estimable).sum() < 60
    for r in range(60):
        times = draws[r].astype(int)
        ra, rb = np.repeat(ga, times), np.repeat(gb, times)
        rd = np.repeat(np.rint(gs * 2 - 1).astype(int), times)
        one = bradley_terry_fit(ra, rb, rd, 4).rating
        if got.estimable[r]:
            assert one == pytest.approx(got.ratings[r], abs=1e-6)
        else:
            assert np.isnan(one).any() and np.isnan(got.ratings[r]).all()


def test_rounds_without_an_estimate_are_counted_and_left_out():
    from metaeval.stats.leaderboard import leaderboard

    a, b, d, q = _sweepy()
    board = leaderboard(a, b, d, 4, n_rounds=1000, clusters=q)
    assert 0 < board.rounds_without_estimate < 500
    assert any(f"{board.rounds_without_estimate} of 1000 rounds" in n for n in board.notes)
    # no round rated through the penalty: every bound lies within a few hundred Elo
    for row in board.rows:
        assert 500 < row.low <= row.rating <= row.high < 1600, row
        assert row.sd < 150


def test_too_few_rounds_with_an_estimate_give_no_interval():
    from metaeval.stats.leaderboard import leaderboard

    # 0 > 1 > 2 on each of 30 questions, but for two upsets: 1 beats 0 on question 0, 2
    # beats 1 on question 1. A round has an estimate only if it draws both questions
    # (each ≈ 1 − (29/30)^30 ≈ 0.64): about 4 rounds in 10.
    a = np.tile([0, 0, 1], 30)
    b = np.tile([1, 2, 2], 30)
    d = np.ones(90, int)
    d[0], d[5] = -1, -1  # question 0: 1 beats 0; question 1: 2 beats 1
    board = leaderboard(a, b, d, 3, n_rounds=400, clusters=np.repeat(np.arange(30), 3))
    top = board.rows[0]
    assert np.isfinite(top.rating)  # the fit on the data exists
    assert board.rounds_without_estimate > 200
    assert np.isnan([top.low, top.high, top.median, top.sd]).all()
    assert any("Too few remain" in n for n in board.notes)


def test_a_thousand_rounds_on_14_questions_and_4_systems_well_under_a_second():
    import time

    from metaeval.stats.leaderboard import leaderboard

    a, b, d, q = _sweepy(14, seed=1)
    leaderboard(a, b, d, 4, n_rounds=10)  # imports, first-call costs
    for clusters in (None, q):
        start = time.perf_counter()
        board = leaderboard(a, b, d, 4, n_rounds=1000, clusters=clusters)
        assert time.perf_counter() - start < 0.5, clusters is None
        assert board.n_rounds == 1000
