"""The system τ-b note and the preference table of a selection with nothing to rank say
the actual reason, checked in order: fewer than two systems selected, no human judgment,
no judge overall score (tester's report: ``systems=sqa`` and a setting without judgments
both read "the judge has no overall score to rank systems by", and ``preference`` came
back ``{}`` with no note)."""

import numpy as np
import pytest

from metaeval.reports import ReportOptions, build_report
from tests.metaeval.test_null_notes import frame, unexplained_nulls


def empty():
    """A selection whose rows are all left out (one system, or a setting with none)."""
    whole = frame()
    return whole.take(np.zeros(len(whole), dtype=bool))


def system_note(report) -> str:
    return report["system"]["notes"]["tau_b"]


def test_one_system_selected_says_so():
    report = build_report(empty(), ReportOptions(systems=("A",)))
    assert system_note(report) == (
        "System τ-b undefined: the selection keeps one system (A); ranking systems, or "
        "comparing two reports, needs two."
    )
    assert report["preference"] is None
    assert any(n.startswith("preference is null: the selection keeps one system (A)")
               for n in report["notes"])  # fmt: skip
    assert unexplained_nulls(report) == []


@pytest.mark.parametrize("options", [{}, {"settings": ("expertise_matched",)},
                                     {"systems": ("A", "B")}])  # fmt: skip
def test_no_human_judgment_says_so(options):
    report = build_report(empty(), ReportOptions(**options))
    assert system_note(report) == (
        "System τ-b undefined: no human judgment (a medal ranking or metric-wise score of "
        "two reports) in this selection."
    )
    assert report["preference"] is None
    assert "preference is null: no human judgment" in " ".join(report["notes"])


def test_a_judge_without_overall_scores_is_still_named():
    whole = frame()
    del whole.judge["overall"]
    report = build_report(whole, ReportOptions())
    assert system_note(report) == (
        "System τ-b undefined: the judge has no overall score to rank systems by."
    )
    assert report["preference"]  # answer_recall: the judge scored it


def test_a_judge_with_no_score_leaves_preference_null_saying_so():
    whole = frame()
    whole.judge.clear()
    report = build_report(whole, ReportOptions())
    assert report["preference"] is None
    assert "preference is null: the judge has no score of these reports." in report["notes"]
