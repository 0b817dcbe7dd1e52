"""Judge results alone → arrays, for each benchmark's own scoreboard (issue 26 "Reports that
fit the protocol"; docs/ANALYSES.md §14).

Nothing here reads a human label: a team that has imported a benchmark's judge outputs
sees the benchmark's leaderboard before any expert has labelled anything. Every row is
judge's result on one report (summed in the database where a report has many: coverage
labels, DeepScholar labels), with its report's question (the bootstrap cluster) and
system. Three queries (coverage, per-report scores, DeepScholar labels), a fourth for the
questions' nugget counts when a judge labelled nugget support; the pairwise verdicts come
from :func:`metaeval.loaders.pairwise.load_pairwise`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._db import codes, fetch, floats, ints


@dataclass
class JudgeRows:
    """One judge result per row: its judge, report, question, system and values."""

    judge: np.ndarray  # codes into ``judges``
    report: np.ndarray
    question: np.ndarray
    system: np.ndarray  # codes into ``systems``
    judges: list[str]
    systems: list[str]
    #: the kind-specific columns (coverage: ``label``, ``covered``, ``weight``; scores:
    #: ``metric`` codes into ``metrics`` and ``value``; DeepScholar: ``kind``, ``label``)
    columns: dict

    @property
    def size(self) -> int:
        return int(self.report.size)


def _objects(values) -> np.ndarray:
    return np.array(values, dtype=object)


def _rows(columns: list[list], names: tuple[str, ...], extra: dict) -> JudgeRows:
    judge, judges = codes(columns[0])
    system, systems = codes(columns[3])
    return JudgeRows(judge=judge, report=ints(columns[1]), question=ints(columns[2]),
                     system=system, judges=judges, systems=systems,
                     columns={n: extra[n](c) for n, c in zip(names, columns[4:], strict=True)})  # fmt: skip


def _systems(qs, options):
    """The selection's systems (``systems`` / ``exclude_systems`` options)."""
    if options is not None and options.systems:
        qs = qs.filter(report__system__name__in=list(options.systems))
    if options is not None and options.exclude_systems:
        qs = qs.exclude(report__system__name__in=list(options.exclude_systems))
    return qs


def load_coverage_results(study_id: int, options=None) -> JudgeRows:
    """Every judge rubric-coverage result of the study, summed per (judge, report) in the
    database (one row per report, whatever the number of labels: a ResearchQA-scale study
    holds millions): ``covered`` = Σ w·b / Σ w with ``weight`` = Σ w over the items with a
    binary verdict (ResearcherBench), ``label`` = the mean 0–4 label (ResearchQA); NaN
    where the judge gave none of that kind."""
    from django.db.models import Avg, Case, F, FloatField, Sum, When

    from judges.models import JudgeCoverage

    qs = _systems(JudgeCoverage.objects.filter(report__question__study_id=study_id), options)
    weight = F("item__weight")
    cols = fetch(
        qs.values("judge__name", "report_id", "report__question_id", "report__system__name")
        .annotate(
            num=Sum(Case(When(covered=True, then=weight), default=0.0, output_field=FloatField())),
            den=Sum(Case(When(covered__isnull=False, then=weight), default=0.0,
                         output_field=FloatField())),
            label=Avg("label", output_field=FloatField()),
        )
        .order_by("judge__name", "report_id")
        .values_list("judge__name", "report_id", "report__question_id", "report__system__name",
                     "num", "den", "label"),
        7,
    )  # fmt: skip
    rows = _rows(cols, ("num", "weight", "label"), {"num": floats, "weight": floats,
                                                    "label": floats})  # fmt: skip
    num, den = rows.columns.pop("num"), rows.columns["weight"]
    with np.errstate(invalid="ignore", divide="ignore"):
        rows.columns["covered"] = np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)
    return rows


def load_claim_results(study_id: int, options=None) -> JudgeRows:
    """Every judge claim-support verdict of the study (``JudgeClaimVerdict``: the live
    claim-support task's, or imported ``claim-verdicts``), counted per (judge, report,
    verdict) in the database (``n``): ResearcherBench's faithfulness reads how many of a
    report's cited claims each verdict has (004 §4.2, eq. 4). One query."""
    from django.db.models import Count

    from judges.models import JudgeClaimVerdict

    qs = JudgeClaimVerdict.objects.filter(report__question__study_id=study_id)
    names = ("judge__name", "report_id", "report__question_id", "report__system__name",
             "verdict")  # fmt: skip
    cols = fetch(_systems(qs, options).values(*names).annotate(n=Count("pk"))
                 .order_by(*names).values_list(*names, "n"), 6)  # fmt: skip
    return _rows(cols, ("verdict", "n"), {"verdict": _objects, "n": floats})


def load_score_results(study_id: int, options=None) -> JudgeRows:
    """Every per-report judge score of the study (``JudgeScore``: ScholarQA-CS2's metrics,
    imported CSV metrics, derived coverage).

    Judges and systems are read as ids and named by two small queries (720,000 scores at
    40,000 questions, issue 29: no join to the judge and system tables, no name string
    per row); the codes are those of the names, as :func:`_rows` gives them."""
    from annotation.models import System
    from judges.models import Judge, JudgeScore

    qs = _systems(JudgeScore.objects.filter(report__question__study_id=study_id), options)
    judge, report, question, system, metric, value = fetch(qs.order_by("pk").values_list(
        "judge_id", "report_id", "report__question_id", "report__system_id", "metric",
        "value"), 6)  # fmt: skip
    judge, judges = _named_codes(judge, Judge)
    system, systems = _named_codes(system, System)
    metric, metrics = codes(metric)
    return JudgeRows(judge=judge, report=ints(report), question=ints(question), system=system,
                     judges=judges, systems=systems,
                     columns={"metric": metric, "value": floats(value), "metrics": metrics})  # fmt: skip


def _named_codes(ids: list, model) -> tuple[np.ndarray, list[str]]:
    """Codes into the sorted distinct names of ``model`` rows ``ids`` (one query for the
    names of the distinct ids): :func:`codes` of the names, without a name per row."""
    distinct, inverse = np.unique(ints(ids), return_inverse=True)
    name = dict(model.objects.filter(pk__in=distinct.tolist()).values_list("pk", "name"))
    names = [name[i] for i in distinct.tolist()]
    labels = sorted(set(names))
    index = {label: i for i, label in enumerate(labels)}
    code = np.array([index[n] for n in names], dtype=np.int64)
    return code[inverse.ravel()], labels


def load_deepscholar_results(study_id: int, options=None) -> JudgeRows:
    """Every report-level DeepScholar judge label of the study (organization, nugget
    support, retrieval relevance, entailment), counted per (judge, report, kind, label) in
    the database (``n``); the question-level kinds (nugget and reference importance) have
    no system and rank nothing. ``columns["nuggets"]``: :func:`question_nuggets` (a second
    query, only when there are nugget support labels), so that a nugget the judge left
    unlabelled still counts against the report."""
    from django.db.models import Count

    from annotation.models.deepscholar import REPORT_KINDS
    from judges.models import JudgeDeepScholarLabel

    qs = JudgeDeepScholarLabel.objects.filter(
        question__study_id=study_id, kind__in=REPORT_KINDS, report__isnull=False
    )
    names = ("judge__name", "report_id", "question_id", "report__system__name", "kind", "label")
    cols = fetch(_systems(qs, options).values(*names).annotate(n=Count("pk"))
                 .order_by(*names).values_list(*names, "n"), 7)  # fmt: skip
    rows = _rows(cols, ("kind", "label", "n"), {"kind": _objects, "label": _objects, "n": floats})
    support = (rows.columns["kind"] == "nugget_support").any()
    rows.columns["nuggets"] = question_nuggets(study_id) if support else {}
    return rows


def question_nuggets(study_id: int) -> dict[int, int]:
    """question id -> how many nuggets it has: nugget coverage's denominator (002 Table 2:
    the share of *the question's* nuggets, not of those the judge labelled). One query."""
    from django.db.models import Count

    from annotation.models import Nugget

    return dict(Nugget.objects.filter(question__study_id=study_id).values("question_id")
                .annotate(n=Count("pk")).order_by().values_list("question_id", "n"))  # fmt: skip
