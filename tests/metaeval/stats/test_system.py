import math

import numpy as np
import pytest

from metaeval.stats.system import system_tau_b, win_rates


def test_win_rates_worked_example():
    # (0 vs 1: A wins), (0 vs 2: tie), (1 vs 2: B wins); system 3 never judged.
    # sys0: 1 and ½ -> .75; sys1: 0 and 0 -> 0; sys2: ½ and 1 -> .75; sys3: NaN.
    r = win_rates([0, 0, 1], [1, 2, 2], [1, 0, -1], n_systems=4)
    assert r[:3].tolist() == [0.75, 0.0, 0.75] and math.isnan(r[3])


def test_win_rates_swap_orientation_changes_nothing():
    sa, sb, d = np.array([0, 0, 1, 2]), np.array([1, 2, 2, 0]), np.array([1, 0, -1, 1])
    assert np.array_equal(win_rates(sa, sb, d, 3), win_rates(sb, sa, -d, 3))


def test_win_rates_rejects_bad_codes():
    with pytest.raises(ValueError):
        win_rates([0], [3], [1], n_systems=3)


def test_system_tau_b_worked_example():
    # human [.75, 0, .75], judge [1, 0, .5]: (0,1) concordant, (0,2) tied in human
    # only, (1,2) concordant -> 2 / sqrt((3-1)(3-0)) = 0.8165.
    r = system_tau_b([0.75, 0.0, 0.75], [1.0, 0.0, 0.5])
    assert r.statistic == pytest.approx(2 / math.sqrt(6)) and r.n == 3


def test_system_tau_b_omits_unjudged_systems():
    r = system_tau_b([0.75, 0.0, 0.75, np.nan], [1.0, 0.0, 0.5, 0.2])
    assert r.statistic == pytest.approx(2 / math.sqrt(6)) and r.n == 3
