"""Alignment of every judge of a study with the experts: the per-judge table (seed 003
Table 5), the cross-judge Pearson matrix of overall scores (Fig. 10) and rubric-coverage
alignment with human labels (ResearchQA §3.3: Pearson, mean difference, share of
"Completely").

Agreement is never re-implemented here: each judge's figures are those of the agreement
report (:func:`metaeval.reports.agreement_report`, i.e. ``build_report``) run with that
judge, once on all data and once on the expert-agreed subset, so the table equals the main
report for every judge, whatever the options (ties, calibration, compat mode…).

Shape (the JSON contract of the command, the API and the report pages)::

    {"judges": [{"judge": name,
                 "all": {"preference": {METRIC: {"agreement", "tau_b", "n", "threshold"}},
                         "system_tau_b": float | None},
                 "expert_agreed": {...same...}}],
     "pearson": {"judges": [names], "matrix": [[r | None]], "n": int},
     "coverage": [{"judge", "scale", "binarised", "pearson", "mean_difference",
                   "human_complete", "judge_complete", "n", "confusion", "notes"?}]}

A null figure has a note (``notes``: figure -> why, or ``note`` for the matrix), as in
the agreement report (METHODS §7).

``pearson.n`` is the number of reports every judge gave an overall score; each cell uses
the reports both judges scored (pairwise deletion, as :func:`pearson_matrix`).
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from .reports import ReportOptions, agreement_report, judge_not_scored
from .stats.correlation import pearson_matrix
from .stats.coverage import coverage_alignment

ROW_KEYS = ("agreement", "tau_b", "n", "threshold")


def _num(x):
    if x is None:
        return None
    x = float(x)
    return None if math.isnan(x) else x


def judge_names(study_id: int, options: ReportOptions) -> list[str]:
    """Judges with scores in the study (only ``options.judge`` when one is named): one
    ``EXISTS`` per judge, not a read of every score (720,000 rows at 40,000 questions).

    A named judge needs output of any kind in the study (:func:`judges.models.judged_in`),
    as the report's own judge option does: a DeepScholar judge (labels, no score) chosen on
    the report page gets its row here, each figure null with its note, rather than a
    refusal of the page."""
    from django.db.models import Exists, OuterRef

    from judges.models import Judge, JudgeScore, judged_in

    if options.judge:
        if not Judge.objects.filter(judged_in(study_id), name=options.judge).exists():
            raise judge_not_scored(options.judge)
        return [options.judge]
    scored = JudgeScore.objects.filter(judge=OuterRef("pk"), report__question__study_id=study_id)
    return sorted(Judge.objects.filter(Exists(scored)).values_list("name", flat=True))


#: Why a judge's block has no preference row (METHODS §7: a null figure says why).
NO_PREFERENCE = (
    "No preference row: the selection has no medal ranking or metric-wise score of two "
    "reports with this judge's scores, the comparisons Table 5 is computed on (METHODS §5)."
)


def _block(report: dict) -> dict:
    """A judge's Table 5 figures from its agreement report, with the report's note for
    each null figure (``notes``: figure -> why)."""
    preference = {
        metric: {k: row.get(k) for k in ROW_KEYS}
        | ({"notes": row["notes"]} if row.get("notes") else {})
        for metric, row in (report.get("preference") or {}).items()
    }
    system = report.get("system", {})
    out = {"preference": preference, "system_tau_b": system.get("tau_b")}
    notes = {}
    if not preference:
        notes["preference"] = NO_PREFERENCE
    if out["system_tau_b"] is None:
        notes["system_tau_b"] = (system.get("notes") or {}).get("tau_b") or NO_PREFERENCE
    if notes:
        out["notes"] = notes
    return out


def judge_alignment(study_id: int, options: ReportOptions, *, report_of=None) -> dict:
    """The per-judge alignment report of a study (module doc for the shape).

    ``report_of(options, notes=False)``: the agreement report of ``options`` (its notes
    not needed: the table reads figures only); the report page passes its
    :class:`metaeval.sections.Analysis`, which loads each judge's rows once and shares the
    reports it has already computed (the page's own report among them).
    """
    if report_of is None:

        def report_of(opts: ReportOptions, notes: bool = True) -> dict:
            return agreement_report(study_id, opts, notes=notes)

    names = judge_names(study_id, options)
    judges = []
    for name in names:
        all_data = report_of(replace(options, judge=name, expert_agreed=False), notes=False)
        agreed = report_of(replace(options, judge=name, expert_agreed=True), notes=False)
        judges.append({"judge": name, "all": _block(all_data), "expert_agreed": _block(agreed)})
    return {
        "judges": judges,
        "pearson": overall_pearson(study_id, names, options),
        "coverage": coverage_rows(study_id, names, options),
    }


def _reports(study_id: int, options: ReportOptions):
    from annotation.models import Report

    qs = Report.objects.filter(question__study_id=study_id)
    if options.systems:
        qs = qs.filter(system__name__in=options.systems)
    if options.exclude_systems:
        qs = qs.exclude(system__name__in=options.exclude_systems)
    return qs


def overall_pearson(study_id: int, names: list[str], options: ReportOptions) -> dict:
    """Pearson r of every two judges' overall scores over the study's reports (Fig. 10).

    The scores are read through the raw cursor into a judges × reports array (one row per
    score, no model instance or Python loop per score: 120,000 of them at 40,000 questions,
    issue 29)."""
    from judges.models import JudgeScore

    from .loaders._db import fetch, floats, ints

    judge, report, value = fetch(
        JudgeScore.objects.filter(
            judge__name__in=names, metric="overall", report__in=_reports(study_id, options)
        ).values_list("judge__name", "report_id", "value"),
        3,
    )
    if not names:
        return {"judges": [], "matrix": [], "n": 0,
                "note": "No judge with a score in this selection: no matrix."}  # fmt: skip
    reports, column = np.unique(ints(report), return_inverse=True)
    row_of = {n: i for i, n in enumerate(names)}
    matrix = np.full((len(names), reports.size), np.nan)
    matrix[np.fromiter((row_of[j] for j in judge), np.int64, len(judge)), column.ravel()] = floats(
        value
    )
    scores = {n: matrix[i] for i, n in enumerate(names)}
    m = pearson_matrix(scores)
    complete = np.all(np.isfinite(matrix), axis=0) if reports.size else []
    out = {
        "judges": list(m.names),
        "matrix": [[_num(x) for x in row] for row in m.r],
        "n": int(np.sum(complete)),
    }
    if any(x is None for row in out["matrix"] for x in row):
        out["note"] = _pearson_note(names, matrix)
    return out


def _pearson_note(names: list[str], matrix: np.ndarray) -> str:
    """Why cells of the Pearson matrix are null: a judge without an overall score (it
    scores other metrics: a benchmark's own judge), or two judges sharing fewer than two
    scored reports, or a constant score (:func:`pearson_matrix`)."""
    scored = np.isfinite(matrix)
    without = [n for i, n in enumerate(names) if not scored[i].any()]
    text = ("Pearson r is over the judges' overall scores (Fig. 10); a null cell has fewer "
            "than two reports both judges scored, or a judge whose overall score is constant.")  # fmt: skip
    if without:
        text += (f" No overall score in this selection: {', '.join(without)} (a judge that "
                 "scores other metrics only, such as rubric coverage, has no row to correlate).")  # fmt: skip
    return text


def coverage_rows(study_id: int, names: list[str], options: ReportOptions) -> list[dict]:
    """Each judge's coverage verdicts against the experts' 0–4 labels (one row per human
    label). Every judge with a coverage verdict in the study is read (``names`` are the
    judges with scores; a judge that only labels coverage has none), only
    ``options.judge`` when one is named. A binary judge (ResearcherBench's covered
    verdicts) is compared on the binarised scale ({0, 1} vs {2, 3, 4}, METHODS §7): its
    row has ``binarised`` and a note saying why the 0–4 figures are null."""
    from annotation.models import RubricCoverage
    from judges.models import JudgeCoverage

    from .analyses.coverage import BINARY_JUDGE

    human = RubricCoverage.objects.filter(
        study_id=study_id, label__isnull=False, report__in=_reports(study_id, options)
    )
    if options.settings:
        human = human.filter(setting__in=options.settings)
    human_rows = list(human.values_list("report_id", "item_id", "label"))
    if not human_rows:
        return []
    verdicts = JudgeCoverage.objects.filter(report__question__study_id=study_id)
    if options.judge:
        verdicts = verdicts.filter(judge__name=options.judge)
    labels: dict[str, dict] = {}
    covered: dict[str, dict] = {}
    for name, r, i, label, flag in verdicts.values_list(
        "judge__name", "report_id", "item_id", "label", "covered"
    ).iterator(chunk_size=5000):
        if label is not None:
            labels.setdefault(name, {})[(r, i)] = label
        elif flag is not None:
            covered.setdefault(name, {})[(r, i)] = float(flag)
    out = []
    for name in sorted(set(labels) | set(covered)):
        judged, binary = labels.get(name), False
        pairs = (
            [(h, judged[(r, i)]) for r, i, h in human_rows if (r, i) in judged] if judged else []
        )
        if not pairs and name in covered:
            judged, binary = covered[name], True
            pairs = [(h, judged[(r, i)]) for r, i, h in human_rows if (r, i) in judged]
        if not pairs:
            continue
        h = np.array([p[0] for p in pairs], dtype=float)
        j = np.array([p[1] for p in pairs], dtype=float)
        if binary:
            confusion = np.zeros((5, 2), dtype=int)
            np.add.at(confusion, (h.astype(int), j.astype(int)), 1)
            null = ("pearson", "mean_difference", "judge_complete")
            out.append({"judge": name, "scale": "binary",
                        "binarised": _num(np.mean((h >= 2) == (j == 1))),
                        "human_complete": _num(np.mean(h == 4)),
                        **dict.fromkeys(null), "n": int(h.size),
                        "confusion": confusion.tolist(),
                        "notes": dict.fromkeys(null, BINARY_JUDGE)})  # fmt: skip
            continue
        a = coverage_alignment(h, j)
        row = {
            "judge": name,
            "scale": "0-4",
            "binarised": _num(np.mean((h >= 2) == (j >= 2))),
            "pearson": _num(a.pearson),
            "mean_difference": _num(a.mean_difference),
            "human_complete": _num(a.human_complete),
            "judge_complete": _num(a.judge_complete),
            "n": a.n,
            "confusion": a.confusion.tolist(),
        }
        if row["pearson"] is None:
            row["notes"] = {"pearson": "Pearson: a constant side."}
        out.append(row)
    return out


__all__ = ["judge_alignment"]
