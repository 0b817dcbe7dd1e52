"""The data behind the report's figures, computed with :mod:`metaeval.stats` functions.

The report dict (:mod:`metaeval.reports`) holds the tables; the figures need a little more
of the same selection: the judge tie rate at every candidate threshold (the calibration
curve), the human-vs-judge decision counts (confusion matrices) and the alignment per
annotator (seed 003 Figs. 3 and 4). This module loads the selection the way
:func:`metaeval.reports.agreement_report` does and reads the thresholds *from the report*,
so every figure shows the decisions whose agreement the tables report.

In compatibility mode the rows are those of the compat setting and the thresholds the
compat thresholds; the curves and matrices are then the default §5 definitions applied at
those thresholds (said in the figures' captions).
"""

from __future__ import annotations

import numpy as np

from .compat import is_released_agreed
from .frame import PairFrame
from .reports import PREFERENCE, ReportOptions, expert_agreed_rows
from .stats.calibration import agreement_curve, candidate_thresholds, judge_tie_rates
from .stats.correlation import per_annotator_alignment
from .stats.decisions import score_decisions, tie_rate

TABLES = (PREFERENCE, "metric_wise")
DECISIONS = (1, 0, -1)  # confusion-matrix order: A better, tie, B better
DECISION_LABELS = ("A better", "tie", "B better")


def _num(x) -> float | None:
    if x is None:
        return None
    x = float(x)
    return None if np.isnan(x) else x


def load_analysed_frame(study_id: int, options: ReportOptions, report: dict) -> PairFrame:
    """The rows the report analysed: its settings, systems and expert-agreed subset."""
    from .reports import load_selection

    frame, _, _ = load_selection(study_id, options)
    return analysed_frame(frame, options, report)


def analysed_frame(frame: PairFrame, options: ReportOptions, report: dict) -> PairFrame:
    """Of the rows :func:`metaeval.reports.load_selection` loaded, those ``report``
    analysed (the report page passes the rows it loaded once for the report)."""
    if options.compat:
        setting = report["selection"].get("compat_setting")
        keep = frame.setting == (frame.settings.index(setting) if setting in frame.settings else -1)
        frame = frame.take(keep)
    released = options.compat and is_released_agreed(
        frame, frame.settings[0] if frame.settings else ""
    )
    if options.expert_agreed and len(frame) and not released:  # released records: the subset
        medals = score_decisions(frame.preference[:, 0], frame.preference[:, 1], 0.0)
        frame = frame.take(expert_agreed_rows(frame, medals))
    return frame


def human_decisions(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(decision per row, rows with one) of (n, 2) human scores; 0 where none is known.

    A row without a human label is masked out, never decided: a majority / adjudicated
    frame keeps a comparison whose medal rankings tie (no adjudication yet) when one of
    its metric-wise scores has a majority, with NaN medals (:func:`metaeval.frame.
    with_human_signal`). Deciding those raised "score_decisions: NaN input" and the report
    page lost every section to it; the tables leave them out the same way
    (:func:`metaeval.pipeline.present`) and the report's human-signal note counts them.
    """
    known = ~np.isnan(values).any(axis=1)
    human = np.zeros(len(values), dtype=np.int8)
    human[known] = score_decisions(values[known, 0], values[known, 1], 0.0)
    return human, known


def _signal_rows(frame: PairFrame, table: str, metric: str, options: ReportOptions):
    """(human decisions, judge A scores, judge B scores, annotator codes) of one signal."""
    judge = frame.judge.get(metric)
    if judge is None or len(frame) == 0:
        return None
    values = frame.preference if table == PREFERENCE else frame.human.get(metric)
    if values is None:
        return None
    rows = ~np.isnan(judge).any(axis=1)
    human, known = human_decisions(values)
    rows &= known
    if options.ties == "exclude":
        rows &= human != 0
    if not rows.any():
        return None
    return human[rows], judge[rows, 0], judge[rows, 1], frame.annotator[rows]


def _threshold(report: dict, table: str, metric: str, options: ReportOptions) -> float:
    if options.ties == "partial":
        return 0.0
    t = ((report.get(table) or {}).get(metric) or {}).get("threshold")
    return 0.0 if t is None else float(t)


def calibration_curve(human, score_a, score_b, threshold: float) -> dict:
    """Judge tie rate and agreement at every candidate threshold (METHODS §5).

    The candidates are ``{0} ∪ {|s_A − s_B|}`` — the judge decisions change only there —
    plus the threshold applied, so the marked point lies on the curve.
    """
    diffs = np.abs(score_a - score_b)
    cand = np.union1d(candidate_thresholds(diffs), [threshold])
    rates = judge_tie_rates(diffs, cand)
    agree = agreement_curve(human, score_a, score_b, cand) / human.size
    return {
        "thresholds": [float(t) for t in cand],
        "judge_tie_rate": [float(r) for r in rates],
        "agreement": [float(a) for a in agree],
        "human_tie_rate": _num(tie_rate(human)),
        "threshold": float(threshold),
        "judge_tie_rate_at_threshold": _num(judge_tie_rates(diffs, [threshold])[0]),
        "n": int(human.size),
    }


def confusion_matrix(human, judge) -> list[list[int]]:
    """Counts of (human decision, judge decision), rows and columns in ``DECISIONS`` order."""
    return [[int(np.sum((human == h) & (judge == j))) for j in DECISIONS] for h in DECISIONS]


def _alignment_grid(frame: PairFrame, signals: dict, ties: str) -> dict:
    """{annotators, metrics, tau_b, agreement, n} with one row per annotator."""
    metrics = list(signals)
    codes = sorted({int(c) for h, j, ann in signals.values() for c in ann})
    names = [frame.annotators[c] for c in codes]
    grid = {k: [[None] * len(metrics) for _ in codes] for k in ("tau_b", "agreement", "n")}
    for col, metric in enumerate(metrics):
        human, judge, ann = signals[metric]
        for res in per_annotator_alignment(ann, human, judge, ties=ties):
            row = codes.index(int(res.annotator))
            grid["tau_b"][row][col] = _num(res.tau_b)
            grid["agreement"][row][col] = _num(res.agreement)
            grid["n"][row][col] = int(res.n)
    return {"annotators": names, "metrics": metrics, **grid}


def report_figures(frame: PairFrame, report: dict, options: ReportOptions) -> dict:
    """Figure data for ``report`` over ``frame`` (the analysed rows).

    Returns ``{"calibration": {table: {metric: curve}}, "confusion": {table: {metric:
    {"matrix", "labels", "threshold", "n"}}}, "annotator_judge": grid (Fig. 3),
    "annotator_self": grid (Fig. 4)}``.
    """
    ties = "partial" if options.ties == "partial" else "threshold"
    calibration: dict = {t: {} for t in TABLES}
    confusion: dict = {t: {} for t in TABLES}
    judge_signals: dict = {}
    for table in TABLES:
        for metric in report.get(table) or {}:
            got = _signal_rows(frame, table, metric, options)
            if got is None:
                continue
            human, a, b, ann = got
            t = _threshold(report, table, metric, options)
            judge = score_decisions(a, b, t)
            calibration[table][metric] = calibration_curve(human, a, b, t)
            confusion[table][metric] = {
                "matrix": confusion_matrix(human, judge),
                "labels": list(DECISION_LABELS),
                "threshold": t,
                "n": int(human.size),
            }
            if table == PREFERENCE:
                judge_signals[metric] = (human, judge, ann)
    self_signals = {}
    if len(frame):
        medals, ranked = human_decisions(frame.preference)
        for metric, scores in frame.human.items():
            rows = ranked & ~np.isnan(scores).any(axis=1)
            if options.ties == "exclude":
                rows &= medals != 0
            if rows.any():
                own = score_decisions(scores[rows, 0], scores[rows, 1], 0.0)
                self_signals[metric] = (medals[rows], own, frame.annotator[rows])
    return {
        "calibration": calibration,
        "confusion": confusion,
        "annotator_judge": _alignment_grid(frame, judge_signals, ties),
        "annotator_self": _alignment_grid(frame, self_signals, ties),
    }


def study_figures(study_id: int, options: ReportOptions, report: dict) -> dict:
    """:func:`report_figures` for a study in the database (what pages and exports call)."""
    return report_figures(load_analysed_frame(study_id, options, report), report, options)


# ----------------------------------------------------------------------------- as tables


def figure_tables(figures: dict) -> dict[str, tuple[list[dict], list[str]]]:
    """The figure data as flat tables: name -> (rows, columns), for CSV/XLSX/JSON."""
    out: dict[str, tuple[list[dict], list[str]]] = {}
    rows = []
    for table, by_metric in figures.get("calibration", {}).items():
        for metric, curve in by_metric.items():
            for t, r, a in zip(
                curve["thresholds"], curve["judge_tie_rate"], curve["agreement"], strict=True
            ):
                rows.append({"table": table, "metric": metric, "threshold": t,
                             "judge_tie_rate": r, "agreement": a,
                             "human_tie_rate": curve["human_tie_rate"],
                             "chosen": t == curve["threshold"]})  # fmt: skip
    out["calibration"] = (rows, ["table", "metric", "threshold", "judge_tie_rate", "agreement",
                                 "human_tie_rate", "chosen"])  # fmt: skip
    rows = []
    for table, by_metric in figures.get("confusion", {}).items():
        for metric, cm in by_metric.items():
            for i, h in enumerate(cm["labels"]):
                for j, m in enumerate(cm["labels"]):
                    rows.append({"table": table, "metric": metric, "human": h, "judge": m,
                                 "count": cm["matrix"][i][j], "threshold": cm["threshold"]})  # fmt: skip
    out["confusion"] = (rows, ["table", "metric", "human", "judge", "count", "threshold"])
    for name in ("annotator_judge", "annotator_self"):
        grid = figures.get(name) or {"annotators": [], "metrics": []}
        rows = [
            {
                "annotator": ann,
                "metric": metric,
                "agreement": grid["agreement"][i][j],
                "tau_b": grid["tau_b"][i][j],
                "n": grid["n"][i][j],
            }  # fmt: skip
            for i, ann in enumerate(grid["annotators"])
            for j, metric in enumerate(grid["metrics"])
            if grid["n"][i][j]
        ]
        out[name] = (rows, ["annotator", "metric", "agreement", "tau_b", "n"])
    return out


def alignment_tables(alignment: dict | None) -> dict[str, tuple[list[dict], list[str]]]:
    """The per-judge table (003 Table 5) and cross-judge matrix (Fig. 10) as flat tables."""
    if not alignment:
        return {}
    rows = []
    for entry in alignment.get("judges", []):
        for subset in ("all", "expert_agreed"):
            block = entry.get(subset) or {}
            for metric, fig in (block.get("preference") or {}).items():
                rows.append({"judge": entry["judge"], "subset": subset, "metric": metric,
                             **{k: fig.get(k) for k in ("agreement", "tau_b", "n", "threshold")},
                             "system_tau_b": block.get("system_tau_b")})  # fmt: skip
    pearson = alignment.get("pearson") or {}
    names = pearson.get("judges") or []
    matrix = pearson.get("matrix") or []
    # a judge is never compared with itself (its r is 1, or null with no overall score:
    # a tester's "o3-mini vs o3-mini" row with a null r); a null cell says why
    cells = [
        {"judge": a, "other": b, "pearson_r": matrix[i][j],
         "note": pearson.get("note") if matrix[i][j] is None else None}
        for i, a in enumerate(names)
        for j, b in enumerate(names)
        if i != j and i < len(matrix) and j < len(matrix[i])
    ]  # fmt: skip
    return {
        "judges": (
            rows,
            ["judge", "subset", "metric", "agreement", "tau_b", "n", "threshold", "system_tau_b"],
        ),  # fmt: skip
        "cross_judge": (cells, ["judge", "other", "pearson_r", "note"]),
    }
