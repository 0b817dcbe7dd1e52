"""Compat and default are one report path (issue 14 item 4): the default report is the
path with every switch off, and a compat mode only turns switches on.

Why: before, compat mode had its own selection, calibration, tables and IAA beside
``build_report``, so an option could work in one mode and not the other. These tests fail
if the modes drift apart again.
"""

from __future__ import annotations

import pytest

from metaeval import compat, pipeline
from metaeval.compat import COMPAT, DEFAULT
from metaeval.reports import ReportOptions, build_report

pytestmark = pytest.mark.shared_data


@pytest.fixture(scope="module")
def released(scholarqa_dir):
    from tests.metaeval.scholarqa_json import load_released

    return load_released(scholarqa_dir)


@pytest.fixture(scope="module")
def near(released):
    """The near-expert judgments alone: one judgment per comparison, no rank fields."""
    return released.take(released.setting == released.settings.index("near_expert"))


def test_default_policy_is_every_switch_off():
    assert pipeline.Policy() == pipeline.Policy(**{f: False for f in (
        "slot_average", "tie_target", "calibration_pool", "iaa_per_question",
        "ranking_ignores_subset", "exact_win_rates", "degenerate_tau_zero",
        "script_records")}, grid=None)  # fmt: skip
    assert DEFAULT.policy() == pipeline.Policy(script_records=True)
    assert COMPAT.policy().grid == pipeline.SCRIPT_GRID


@pytest.mark.parametrize(
    ("ties", "threshold"),
    [(ties, t) for ties in ("threshold", "partial", "exclude") for t in (None, 0.0, 0.05)
     if not (ties == "partial" and t == 0.05)],  # partial compares exactly
)  # fmt: skip
def test_every_quirk_off_is_the_default_report(near, ties, threshold):
    """Same rows, same options: compat's tables with every quirk off equal the default
    report's, figure for figure, for every tie strategy and fixed threshold."""
    options = ReportOptions(ties=ties, threshold=threshold)
    default = build_report(near, options)
    for table, function in (("preference", compat.compat_preference_table),
                            ("metric_wise", compat.compat_metric_wise_table)):  # fmt: skip
        got = function(near, "near_expert", mode=DEFAULT, ties=ties, threshold=threshold)
        assert {r.metric for r in got.rows} == set(default[table])
        for row in got.rows:
            want = default[table][row.metric]
            assert (row.agreement, row.tau_b, row.n, row.threshold) == (
                want["agreement"],
                want["tau_b"],
                want["n"],
                want["threshold"],
            ), (table, row.metric)
    system = compat.compat_system_tau(near, "near_expert", mode=DEFAULT)
    if ties == "threshold" and threshold is None:
        assert system.tau_b == default["system"]["tau_b"]


def test_a_fixed_threshold_reaches_the_system_step_in_every_mode(released):
    """``threshold=0`` compares exactly, so the exact-win-rates quirk changes nothing:
    no note says it does (the system step reads the threshold the tables apply)."""
    calibrated = compat.differences(released, "deep_expert")
    exact = compat.differences(released, "deep_expert", threshold=0.0)
    assert any(d.quirk == "exact_win_rates" for d in calibrated)
    assert not any(d.quirk == "exact_win_rates" for d in exact)
    report = build_report(released, ReportOptions(compat="scholarqa-cs2", threshold=0.0,
                                                  settings=("deep_expert",)))  # fmt: skip
    assert not any(isinstance(n, dict) and n["quirk"] == "exact_win_rates"
                   for n in report["notes"])  # fmt: skip
