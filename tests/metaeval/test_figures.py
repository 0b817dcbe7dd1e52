"""metaeval.figures: the figure data agree with the report they illustrate."""

import numpy as np
import pytest

from metaeval import figures
from metaeval.reports import ReportOptions, build_report
from tests.metaeval.test_reports import tiny_frame


def test_calibration_curve_marks_the_threshold_and_the_human_tie_rate():
    frame = tiny_frame()
    report = build_report(frame, ReportOptions())
    data = figures.report_figures(frame, report, ReportOptions())
    curve = data["calibration"]["preference"]["overall"]
    overall = report["preference"]["overall"]
    # candidates {0} ∪ {|d|} = {0, .1, .5, .6}; the judge tie rate is a step function
    assert curve["thresholds"] == pytest.approx([0.0, 0.1, 0.5, 0.6])
    assert curve["judge_tie_rate"] == pytest.approx([0, 2 / 6, 4 / 6, 1])
    assert curve["threshold"] == overall["threshold"]
    assert curve["human_tie_rate"] == pytest.approx(overall["human_tie_rate"])
    assert curve["judge_tie_rate_at_threshold"] == pytest.approx(overall["judge_tie_rate"])
    i = curve["thresholds"].index(curve["threshold"])
    assert curve["agreement"][i] == pytest.approx(overall["agreement"])


def test_confusion_matrix_diagonal_is_the_agreement():
    frame = tiny_frame()
    report = build_report(frame, ReportOptions())
    cm = figures.report_figures(frame, report, ReportOptions())["confusion"]["preference"]
    m = np.array(cm["overall"]["matrix"])
    assert m.sum() == report["preference"]["overall"]["n"] == 6
    assert np.trace(m) / m.sum() == pytest.approx(report["preference"]["overall"]["agreement"])
    # rows human (A, tie, B), columns judge: y's tie on (A,B) was judged "A better"
    assert m.tolist() == [[5, 0, 0], [1, 0, 0], [0, 0, 0]]


@pytest.mark.parametrize("ties", ["threshold", "partial", "exclude"])
def test_per_annotator_alignment_pools_to_the_report(ties):
    frame = tiny_frame()
    options = ReportOptions(ties=ties)
    report = build_report(frame, options)
    grid = figures.report_figures(frame, report, options)["annotator_judge"]
    assert grid["annotators"] == ["x", "y"] and grid["metrics"] == ["overall"]
    n = [row[0] for row in grid["n"]]
    agree = [row[0] for row in grid["agreement"]]
    pooled = sum(a * k for a, k in zip(agree, n, strict=True)) / sum(n)
    assert sum(n) == report["preference"]["overall"]["n"]
    assert pooled == pytest.approx(report["preference"]["overall"]["agreement"])


def test_own_metric_wise_alignment_uses_exact_ties():
    frame = tiny_frame()
    frame.human["answer_recall"] = np.array([[1.0, 0.5], [1.0, 0.0], [0.5, 0.0]] * 2)
    report = build_report(frame, ReportOptions())
    grid = figures.report_figures(frame, report, ReportOptions())["annotator_self"]
    assert grid["metrics"] == ["answer_recall"]
    # x: own scores agree with every preference; y: its (A,B) tie is "A better" in scores
    assert [row[0] for row in grid["agreement"]] == pytest.approx([1.0, 2 / 3])


def test_figure_tables_are_flat():
    frame = tiny_frame()
    report = build_report(frame, ReportOptions())
    tables = figures.figure_tables(figures.report_figures(frame, report, ReportOptions()))
    rows, columns = tables["confusion"]
    assert len(rows) == 9 and set(rows[0]) == set(columns)
    rows, columns = tables["calibration"]
    assert sum(r["chosen"] for r in rows) == 1


def test_alignment_tables_follow_the_alignment_shape():
    alignment = {
        "judges": [{"judge": "j1", "all": {"preference": {"overall": {"agreement": 0.5,
                    "tau_b": 0.1, "n": 4, "threshold": 0.0}}, "system_tau_b": 0.4},
                    "expert_agreed": {"preference": {}, "system_tau_b": 0.6}}],
        "pearson": {"judges": ["j1", "j2"], "matrix": [[1.0, None], [None, 1.0]], "n": 3,
                    "note": "fewer than two reports"},
    }  # fmt: skip
    tables = figures.alignment_tables(alignment)
    assert tables["judges"][0] == [{"judge": "j1", "subset": "all", "metric": "overall",
                                    "agreement": 0.5, "tau_b": 0.1, "n": 4, "threshold": 0.0,
                                    "system_tau_b": 0.4}]  # fmt: skip
    # a judge is not compared with itself; a null r carries the matrix's note
    assert tables["cross_judge"][0] == [
        {"judge": "j1", "other": "j2", "pearson_r": None, "note": "fewer than two reports"},
        {"judge": "j2", "other": "j1", "pearson_r": None, "note": "fewer than two reports"},
    ]
    assert figures.alignment_tables(None) == {}
