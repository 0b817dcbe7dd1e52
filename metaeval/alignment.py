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
     "coverage": [{"judge", "pearson", "mean_difference", "human_complete",
                   "judge_complete", "n", "confusion"}]}

``pearson.n`` is the number of reports every judge gave an overall score; each cell uses
the reports both judges scored (pairwise deletion, as :func:`pearson_matrix`).
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from .reports import ReportOptions, agreement_report
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
    ``EXISTS`` per judge, not a read of every score (720,000 rows at 40,000 questions)."""
    from django.db.models import Exists, OuterRef

    from judges.models import Judge, JudgeScore

    scored = JudgeScore.objects.filter(judge=OuterRef("pk"), report__question__study_id=study_id)
    names = sorted(Judge.objects.filter(Exists(scored)).values_list("name", flat=True))
    if options.judge:
        if options.judge not in names:
            raise ValueError(f"judge: {options.judge!r} has no score in this study")
        names = [options.judge]
    return names


def _block(report: dict) -> dict:
    return {
        "preference": {
            metric: {k: row.get(k) for k in ROW_KEYS}
            for metric, row in report.get("preference", {}).items()
        },
        "system_tau_b": report.get("system", {}).get("tau_b"),
    }


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
        return {"judges": [], "matrix": [], "n": 0}
    reports, column = np.unique(ints(report), return_inverse=True)
    row_of = {n: i for i, n in enumerate(names)}
    matrix = np.full((len(names), reports.size), np.nan)
    matrix[np.fromiter((row_of[j] for j in judge), np.int64, len(judge)), column.ravel()] = floats(
        value
    )
    scores = {n: matrix[i] for i, n in enumerate(names)}
    m = pearson_matrix(scores)
    complete = np.all(np.isfinite(matrix), axis=0) if reports.size else []
    return {
        "judges": list(m.names),
        "matrix": [[_num(x) for x in row] for row in m.r],
        "n": int(np.sum(complete)),
    }


def coverage_rows(study_id: int, names: list[str], options: ReportOptions) -> list[dict]:
    """Each judge's 0–4 coverage labels against the experts' (one row per human label)."""
    from annotation.models import RubricCoverage
    from judges.models import JudgeCoverage

    human = RubricCoverage.objects.filter(
        study_id=study_id, label__isnull=False, report__in=_reports(study_id, options)
    )
    if options.settings:
        human = human.filter(setting__in=options.settings)
    human_rows = list(human.values_list("report_id", "item_id", "label"))
    if not human_rows:
        return []
    out = []
    for name in names:
        judged = dict(
            ((r, i), label)
            for r, i, label in JudgeCoverage.objects.filter(
                judge__name=name, label__isnull=False, report__question__study_id=study_id
            ).values_list("report_id", "item_id", "label")
        )
        pairs = [(h, judged[(r, i)]) for r, i, h in human_rows if (r, i) in judged]
        if not pairs:
            continue
        a = coverage_alignment([p[0] for p in pairs], [p[1] for p in pairs])
        out.append(
            {
                "judge": name,
                "pearson": _num(a.pearson),
                "mean_difference": _num(a.mean_difference),
                "human_complete": _num(a.human_complete),
                "judge_complete": _num(a.judge_complete),
                "n": a.n,
                "confusion": a.confusion.tolist(),
            }
        )
    return out


__all__ = ["judge_alignment"]
