"""Database rows -> :class:`~metaeval.frame.PairFrame`, in a fixed number of queries.

Why here and not in the statistics: the statistics are pure functions over arrays
(ARCHITECTURE.md). This module is the one place that knows the tables. It reads each table
once with ``values_list`` (never one query per ranking), then decomposes every medal
ranking into its pairwise comparisons by transitivity (METHODS §2.4) with vectorised pandas
joins, so the cost grows with the number of rows, not the number of queries.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np
import pandas as pd
from django.db import connection
from django.db.models import Count

from annotation.models import HumanMetricScore, Medal, MedalRanking, Question
from judges.models import JudgeScore

from .frame import ALL_METRICS, PairFrame


@dataclass(frozen=True)
class Selection:
    """What to load. ``None`` means everything."""

    study_id: int
    settings: tuple[str, ...] | None = None
    judge: str | None = None
    systems: tuple[str, ...] | None = None  # keep pairs whose both systems are listed
    exclude_systems: tuple[str, ...] = ()


def _codes(values: pd.Series) -> tuple[np.ndarray, list]:
    """Integer codes into the sorted distinct labels (vectorised: ``pandas.factorize``)."""
    codes, labels = pd.factorize(values, sort=True)
    return codes.astype(np.int64), labels.tolist()


def _fetch(queryset) -> list[tuple]:
    """Rows of a ``values_list`` queryset straight from the cursor.

    Why: the ORM's per-row converters cost more than the query itself at the scale of the
    benchmark (240,000 medals); every column read here is a plain number or string, except
    JSON, which the caller decodes (see :func:`_json`).
    """
    sql, params = queryset.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def _json(value):
    return json.loads(value) if isinstance(value, str | bytes) else value


def default_judge(study_id: int) -> str | None:
    """The judge with the most scores in the study (one query), for a selection without one."""
    row = (
        JudgeScore.objects.filter(report__question__study_id=study_id)
        .values_list("judge__name")
        .order_by()
        .annotate(n=Count("id"))
        .order_by("-n", "judge__name")
        .first()
    )
    return row[0] if row else None


def load_frame(selection: Selection) -> PairFrame:
    """Every human medal ranking of the selection as pairwise rows, with judge scores."""
    rankings = MedalRanking.objects.filter(study_id=selection.study_id)
    if selection.settings:
        rankings = rankings.filter(setting__in=selection.settings)
    medal_rows = _fetch(
        Medal.objects.filter(ranking__in=rankings).values_list(
            "ranking_id",
            "ranking__annotator__pseudonym",
            "ranking__question_id",
            "ranking__setting",
            "report_id",
            "report__system__name",
            "medal",
        )
    )
    medals = pd.DataFrame(
        medal_rows,
        columns=["ranking", "annotator", "question", "setting", "report", "system", "medal"],
    )
    if medals.empty:
        return _empty_frame()
    medals["score"] = medals["medal"].map(Medal.SCORE).astype(float)

    pairs = medals.merge(
        medals, on=["ranking", "annotator", "question", "setting"], suffixes=("_a", "_b")
    )
    pairs = pairs[pairs["system_a"] < pairs["system_b"]]
    if selection.systems:
        keep = set(selection.systems)
        pairs = pairs[pairs["system_a"].isin(keep) & pairs["system_b"].isin(keep)]
    if selection.exclude_systems:
        drop = set(selection.exclude_systems)
        pairs = pairs[~pairs["system_a"].isin(drop) & ~pairs["system_b"].isin(drop)]
    pairs["position"] = _pair_positions(pairs, rankings)
    pairs = pairs.sort_values(["setting", "annotator", "question", "position", "system_a"])
    pairs = pairs.reset_index(drop=True)

    questions = pd.DataFrame(
        _fetch(
            Question.objects.filter(study_id=selection.study_id).values_list(
                "id", "external_id", "split"
            )
        ),
        columns=["question", "question_key", "split"],
    )
    pairs = pairs.merge(questions, on="question", how="left")

    human = _scores_by_report(
        HumanMetricScore.objects.filter(study_id=selection.study_id).values_list(
            "annotator__pseudonym", "setting", "report_id", "metric", "value"
        ),
        ["annotator", "setting"],
        pairs,
    )
    judge_name = selection.judge or default_judge(selection.study_id)
    judge = _scores_by_report(
        JudgeScore.objects.filter(
            judge__name=judge_name, report__question__study_id=selection.study_id
        ).values_list("report_id", "metric", "value")
        if judge_name
        else [],
        [],
        pairs,
    )

    question, questions = _codes(pairs["question_key"])
    systems = sorted(set(pairs["system_a"]) | set(pairs["system_b"]))
    system_index = {s: i for i, s in enumerate(systems)}
    annotator, annotators = _codes(pairs["annotator"])
    setting, settings_ = _codes(pairs["setting"])
    split, splits = _codes(pairs["split"])
    return PairFrame(
        question=question,
        system_a=pairs["system_a"].map(system_index).to_numpy(dtype=np.int64),
        system_b=pairs["system_b"].map(system_index).to_numpy(dtype=np.int64),
        annotator=annotator,
        setting=setting,
        split=split,
        preference=pairs[["score_a", "score_b"]].to_numpy(dtype=float),
        human=human,
        judge=judge,
        questions=questions,
        systems=systems,
        annotators=annotators,
        settings=settings_,
        splits=splits,
    )


def _pair_positions(pairs: pd.DataFrame, rankings) -> np.ndarray:
    """Reading order of each pair within its ranking: (1st, 2nd), (1st, 3rd), (2nd, 3rd)
    of the reports in the order the annotator saw them (``Assignment.report_order``).

    Why: the ScholarQA-CS2 script keeps "the last pair read" per question for its IAA
    (METHODS §6.3); the released files list each question's pairs in exactly this order
    of first appearance, which the importer keeps as the assignment's report order.
    Rankings without an order fall back to canonical order (position from system names).
    """
    rows = _fetch(rankings.values_list("id", "assignment__report_order"))
    ranking, report, position = [], [], []
    for r, order in rows:
        order = _json(order) or ()
        ranking.extend([r] * len(order))
        report.extend(order)
        position.extend(range(len(order)))
    slots = pd.Series(position, index=pd.MultiIndex.from_arrays([ranking, report]), dtype=np.int64)
    slots = slots[~slots.index.duplicated()]

    def position_of(side: str) -> np.ndarray:
        keys = pd.MultiIndex.from_arrays([pairs["ranking"], pairs[f"report_{side}"]])
        return slots.reindex(keys).fillna(-1).to_numpy(dtype=np.int64)

    pos_a, pos_b = position_of("a"), position_of("b")
    lo, hi = np.minimum(pos_a, pos_b), np.maximum(pos_a, pos_b)
    return np.where(lo >= 0, lo * 8 + hi, 64)


def _scores_by_report(rows, keys: list[str], pairs: pd.DataFrame) -> dict[str, np.ndarray]:
    """Pivot (keys…, report, metric, value) rows onto the pairs' A and B reports.

    Returns metric -> (n, 2) array, NaN where the score is absent.
    """
    rows = _fetch(rows) if hasattr(rows, "query") else list(rows)
    scores = pd.DataFrame(rows, columns=[*keys, "report", "metric", "value"])
    out: dict[str, np.ndarray] = {}
    n = len(pairs)
    if scores.empty:
        return {metric: np.full((n, 2), np.nan) for metric in ALL_METRICS}
    # one hash lookup per pair side and metric (pivot_table is far slower at this size)
    sides = {
        side: pd.MultiIndex.from_arrays([pairs[k] for k in keys] + [pairs[f"report_{side}"]])
        if keys
        else pd.Index(pairs[f"report_{side}"])
        for side in ("a", "b")
    }
    for metric, group in scores.groupby("metric", sort=False):
        index = (
            pd.MultiIndex.from_frame(group[[*keys, "report"]])
            if keys
            else pd.Index(group["report"])
        )
        values = pd.Series(group["value"].to_numpy(dtype=float), index=index)
        values = values[~values.index.duplicated()]
        arr = out.setdefault(metric, np.full((n, 2), np.nan))
        arr[:, 0] = values.reindex(sides["a"]).to_numpy(dtype=float)
        arr[:, 1] = values.reindex(sides["b"]).to_numpy(dtype=float)
    for metric in ALL_METRICS:  # every metric present, NaN where never scored
        out.setdefault(metric, np.full((n, 2), np.nan))
    return {m: out[m] for m in sorted(out, key=_metric_order)}


def _metric_order(metric: str) -> tuple[int, str]:
    return (ALL_METRICS.index(metric) if metric in ALL_METRICS else len(ALL_METRICS), metric)


def _empty_frame() -> PairFrame:
    empty_i = np.zeros(0, dtype=np.int64)
    return PairFrame(
        question=empty_i,
        system_a=empty_i,
        system_b=empty_i,
        annotator=empty_i,
        setting=empty_i,
        split=empty_i,
        preference=np.zeros((0, 2)),
        human={},
        judge={},
    )


__all__ = ["Selection", "default_judge", "load_frame"]
