"""Database rows -> :class:`~metaeval.frame.PairFrame`, in a fixed number of queries.

Why here and not in the statistics: the statistics are pure functions over arrays
(ARCHITECTURE.md). This module is the one place that knows the tables. It reads each table
once, through the raw cursor and only the columns it needs (never one query per ranking,
never a model instance), then decomposes every medal ranking into its pairwise comparisons
by transitivity (METHODS §2.4) with numpy: sorts, ``searchsorted`` joins and integer codes,
so the cost grows with the number of rows, and no Python loop runs once per pair.

Why numpy and not pandas: the same joins are as short in numpy, and a report command that
does not import pandas starts about half a second sooner (issue 3 measures the report
end to end).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from operator import itemgetter

import numpy as np
from django.db import connection
from django.db.models import Case, CharField, F, FloatField, IntegerField, Value, When

from annotation.models import ExpertAgreedRecord, HumanMetricScore, Medal, MedalRanking, Question
from judges.models import Judge, JudgeScore, default_judge

from .frame import ALL_METRICS, PairFrame

#: Position of a pair whose reports are not both in the annotator's report order.
NO_POSITION = 64


@dataclass(frozen=True)
class Selection:
    """What to load. ``None`` means everything."""

    study_id: int
    settings: tuple[str, ...] | None = None
    judge: str | None = None
    systems: tuple[str, ...] | None = None  # keep pairs whose both systems are listed
    exclude_systems: tuple[str, ...] = ()
    #: (pseudonym, setting, report id) -> answer_relevance of the adjudicated paragraph
    #: labels (``adjudicated`` signal: :func:`metaeval.loaders.signal.adjudicated_relevance`)
    relevance: Mapping[tuple[str, str, int], float] | None = None


def _fetch(queryset) -> list[tuple]:
    """Rows of a ``values_list`` queryset straight from the cursor.

    Why: the ORM's per-row converters cost more than the query itself at the scale of the
    benchmark (240,000 medals, 720,000 judge scores); every column read here is a plain
    number or string, except JSON, which the caller decodes (see :func:`_json_lists`).
    """
    sql, params = queryset.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def _columns(rows: list[tuple], width: int) -> list[list]:
    """Rows -> one list per column (``zip(*rows)`` is far slower on 10⁵–10⁶ rows)."""
    return [list(map(itemgetter(i), rows)) for i in range(width)]


def _ints(values) -> np.ndarray:
    return np.fromiter(values, dtype=np.int64, count=len(values))


def _codes(values) -> tuple[np.ndarray, list]:
    """Integer codes into the sorted distinct labels (one dict lookup per value)."""
    labels = sorted(set(values))
    index = {label: i for i, label in enumerate(labels)}
    return np.fromiter((index[v] for v in values), np.int64, len(values)), labels


def _compact(codes: np.ndarray, labels: list) -> tuple[np.ndarray, list]:
    """Keep only the labels still used by ``codes`` (sorted labels stay sorted)."""
    used, codes = np.unique(codes, return_inverse=True)
    return codes.astype(np.int64).ravel(), [labels[i] for i in used]


def _json_lists(values) -> list:
    """Decode many JSON columns at once: one ``json.loads`` of ``[v1, v2, …]``.

    Backends return JSON as text (Django decodes it in the field's converter, which
    :func:`_fetch` skips); one call instead of one per row. NULL becomes ``[]``.
    """
    if all(isinstance(v, str) for v in values):
        return [v or [] for v in json.loads("[" + ",".join(values) + "]")]
    return [(json.loads(v) if isinstance(v, str | bytes) else v) or [] for v in values]


def _lookup(keys: np.ndarray, values: np.ndarray, wanted: np.ndarray, missing) -> np.ndarray:
    """``values`` at each ``wanted`` key (first occurrence of duplicate keys), else ``missing``.

    A sort and a binary search: the join of two integer columns without pandas.
    """
    unique, first = np.unique(keys, return_index=True)
    out = np.full(wanted.shape, missing, dtype=values.dtype)
    if unique.size == 0 or wanted.size == 0:
        return out
    at = np.minimum(np.searchsorted(unique, wanted), unique.size - 1)
    found = unique[at] == wanted
    out[found] = values[first[at[found]]]
    return out


def load_frame(selection: Selection) -> PairFrame:
    """Every human medal ranking of the selection as pairwise rows, with judge scores.

    The frame's ``judge_name`` says whose scores ``judge`` holds: ``selection.judge``, or
    the study's :func:`default_judge`.
    """
    rankings = MedalRanking.objects.filter(study_id=selection.study_id)
    if selection.settings:
        rankings = rankings.filter(setting__in=selection.settings)
    ranking_id, pseudonym, question_id, setting, order = _columns(
        _fetch(
            rankings.values_list(
                "id", "annotator__pseudonym", "question_id", "setting", "assignment__report_order"
            )
        ),
        5,
    )
    score = Case(
        *(When(medal=m, then=Value(s)) for m, s in Medal.SCORE.items()), output_field=FloatField()
    )
    m_ranking, m_report, m_system, m_score = _columns(
        _fetch(
            Medal.objects.filter(ranking__in=rankings)
            .annotate(score=score)
            .values_list("ranking_id", "report_id", "report__system__name", "score")
        ),
        4,
    )
    if not m_ranking:
        return _empty_frame(selection.judge or default_judge(selection.study_id))

    # Rankings: one row each, sorted by id; medals point at them by index.
    ranking_id = _ints(ranking_id)
    by_id = np.argsort(ranking_id)
    m_ranking = _ints(m_ranking)
    at = np.minimum(np.searchsorted(ranking_id, m_ranking, sorter=by_id), len(ranking_id) - 1)
    m_index = by_id[at]
    known = ranking_id[m_index] == m_ranking  # a ranking created between the two queries
    m_index, m_report = m_index[known], _ints(m_report)[known]
    m_score = np.array(m_score, dtype=float)[known]
    system_code, system_names = _codes(m_system)
    system_code = system_code[known]

    first, second = _pairs_within(m_index)
    # canonical orientation: system A before system B by name (METHODS §5 "Comparison")
    swap = system_code[first] > system_code[second]
    a = np.where(swap, second, first)
    b = np.where(swap, first, second)
    keep = system_code[a] != system_code[b]
    if selection.systems:
        listed = np.isin(system_names, list(selection.systems))
        keep &= listed[system_code[a]] & listed[system_code[b]]
    if selection.exclude_systems:
        dropped = np.isin(system_names, list(selection.exclude_systems))
        keep &= ~dropped[system_code[a]] & ~dropped[system_code[b]]
    a, b = a[keep], b[keep]
    ranking = m_index[a]

    annotator_code, annotators = _codes(pseudonym)
    setting_code, settings_ = _codes(setting)
    question_id = _ints(question_id)
    position = _pair_positions(ranking, m_report[a], m_report[b], _json_lists(order))
    sorted_rows = np.lexsort(
        (
            system_code[b],
            system_code[a],
            position,
            question_id[ranking],
            annotator_code[ranking],
            setting_code[ranking],
        )
    )
    a, b, ranking = a[sorted_rows], b[sorted_rows], ranking[sorted_rows]
    report_a, report_b = m_report[a], m_report[b]

    q_id, q_key, q_split = _columns(
        _fetch(
            Question.objects.filter(id__in=rankings.values("question_id")).values_list(
                "id", "external_id", "split"
            )
        ),
        3,
    )
    key_code, question_keys = _codes(q_key)
    split_code, splits = _codes(q_split)
    q_row = _lookup(_ints(q_id), np.arange(len(q_id)), question_id[ranking], -1)
    question, questions = _compact(key_code[q_row], question_keys)
    split, splits = _compact(split_code[q_row], splits)

    pair_annotator, pair_setting = annotator_code[ranking], setting_code[ranking]
    human = _human_scores(selection, annotators, settings_, pair_annotator, pair_setting,
                          report_a, report_b)  # fmt: skip
    judge_name, judge = _judge_scores(selection, report_a, report_b)

    system_a, systems = system_code[a], system_names
    used = np.unique(np.concatenate([system_a, system_code[b]]))
    recode = np.full(len(system_names), -1, dtype=np.int64)
    recode[used] = np.arange(used.size)
    annotator, annotators = _compact(pair_annotator, annotators)
    setting_out, settings_ = _compact(pair_setting, settings_)
    return PairFrame(
        question=question,
        system_a=recode[system_a],
        system_b=recode[system_code[b]],
        annotator=annotator,
        setting=setting_out,
        split=split,
        preference=np.column_stack([m_score[a], m_score[b]]),
        human=human,
        judge=judge,
        questions=questions,
        systems=[systems[i] for i in used],
        annotators=annotators,
        settings=settings_,
        splits=splits,
        judge_name=judge_name,
    )


def _pairs_within(group: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every unordered pair (i, j) of rows sharing a ``group`` value, as two index arrays.

    A ranking of k reports gives its k(k−1)/2 pairs (METHODS §2.4, transitivity), built
    with ``repeat`` and offsets instead of a self-join.
    """
    order = np.argsort(group, kind="stable")
    g = group[order]
    starts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]])
    sizes = np.diff(np.r_[starts, g.size])
    offset = np.arange(g.size) - np.repeat(starts, sizes)
    later = np.repeat(sizes, sizes) - offset - 1  # rows after this one in its group
    first = np.repeat(np.arange(g.size), later)
    step = np.arange(first.size) - np.repeat(np.cumsum(later) - later, later) + 1
    return order[first], order[first + step]


def _pair_positions(ranking, report_a, report_b, orders: list) -> np.ndarray:
    """Reading order of each pair within its ranking: (1st, 2nd), (1st, 3rd), (2nd, 3rd)
    of the reports in the order the annotator saw them (``Assignment.report_order``).

    Why: the ScholarQA-CS2 script keeps "the last pair read" per question for its IAA
    (METHODS §6.3); the released files list each question's pairs in exactly this order
    of first appearance, which the importer keeps as the assignment's report order.
    Rankings without an order fall back to canonical order (position from system names).
    """
    lengths = np.fromiter((len(o) for o in orders), np.int64, len(orders))
    flat = [v if isinstance(v, int) and not isinstance(v, bool) else -1 for o in orders for v in o]
    o_report = np.array(flat, dtype=np.int64)
    o_ranking = np.repeat(np.arange(len(orders)), lengths)
    o_position = np.arange(o_report.size) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    base = int(max(o_report.max(initial=0), report_a.max(initial=0), report_b.max(initial=0))) + 2
    keys = o_ranking * base + (o_report + 1)

    def position_of(report: np.ndarray) -> np.ndarray:
        return _lookup(keys, o_position, ranking * base + (report + 1), -1)

    pos_a, pos_b = position_of(report_a), position_of(report_b)
    lo, hi = np.minimum(pos_a, pos_b), np.maximum(pos_a, pos_b)
    return np.where(lo >= 0, lo * 8 + hi, NO_POSITION)


def _metric_code():
    """SQL: the metric as its index in ``ALL_METRICS``, −1 for any other metric.

    With :func:`_other_metric`, the database turns ~10⁶ metric names into small integers,
    and Python sees a string only for metrics outside ``ALL_METRICS`` (usually none).
    """
    return Case(
        *(When(metric=m, then=Value(i)) for i, m in enumerate(ALL_METRICS)),
        default=Value(-1),
        output_field=IntegerField(),
    )


def _other_metric():
    """SQL: NULL for a metric of ``ALL_METRICS``, else its name."""
    return Case(
        When(metric__in=ALL_METRICS, then=Value(None)),
        default=F("metric"),
        output_field=CharField(),
    )


def _metric_codes(code: list, other: list) -> tuple[np.ndarray, list[str]]:
    """Codes into a list of metric names, from the :func:`_metric_code` columns."""
    codes = np.fromiter(code, np.int64, len(code))
    names = list(ALL_METRICS)
    extra = np.flatnonzero(codes < 0)
    if extra.size:
        extra_codes, extra_names = _codes([other[i] for i in extra])
        codes[extra] = extra_codes + len(names)
        names += extra_names
    return codes, names


def _score_arrays(metric, key, value, want_a, want_b) -> dict[str, np.ndarray]:
    """(metric, key, value) rows onto the pairs' A and B keys: metric -> (n, 2), NaN absent.

    ``metric`` is (codes, names). Rows are first spread into one keys × metrics matrix
    (one sort), then each pair side finds its key once (one binary search per side),
    whatever the number of metrics. Every metric of ``ALL_METRICS`` is present, NaN where
    never scored; other metrics only when scored.
    """
    n = want_a.size
    codes, names = metric
    key = np.asarray(key, dtype=np.int64)
    value = np.asarray(value, dtype=float)
    unique, inverse = np.unique(key, return_inverse=True)
    matrix = np.full((unique.size + 1, len(names)), np.nan)  # last row: "no such key"
    matrix[inverse[::-1], codes[::-1]] = value[::-1]  # the first of duplicate rows wins
    scored = np.bincount(codes, minlength=len(names)) > 0

    def rows_of(wanted: np.ndarray) -> np.ndarray:
        at = np.minimum(np.searchsorted(unique, wanted), max(unique.size - 1, 0))
        found = unique[at] == wanted if unique.size else np.zeros(wanted.shape, bool)
        return np.where(found, at, unique.size)

    row_a, row_b = rows_of(want_a), rows_of(want_b)
    out = {}
    for i, name in enumerate(names):
        if scored[i] or name in ALL_METRICS:
            out[name] = np.column_stack([matrix[row_a, i], matrix[row_b, i]]).reshape(n, 2)
    return {m: out[m] for m in sorted(out, key=_metric_order)}


def _human_scores(selection, annotators, settings_, pair_annotator, pair_setting, rep_a, rep_b):
    """Metric-wise human scores of the pairs' reports by the same annotator and setting."""
    pseudonym, setting, report, code, other, value = _columns(
        _fetch(
            HumanMetricScore.objects.filter(study_id=selection.study_id)
            .annotate(code=_metric_code(), other=_other_metric())
            .values_list("annotator__pseudonym", "setting", "report_id", "code", "other", "value")
        ),
        6,
    )
    if selection.relevance:
        value = _with_relevance(pseudonym, setting, report, code, value, selection.relevance)
    annotator_of = {p: i for i, p in enumerate(annotators)}
    setting_of = {s: i for i, s in enumerate(settings_)}
    a = np.fromiter((annotator_of.get(p, -1) for p in pseudonym), np.int64, len(pseudonym))
    s = np.fromiter((setting_of.get(x, -1) for x in setting), np.int64, len(setting))
    # (annotator, setting, report) as one integer; an annotator or setting not among the
    # pairs' matches nothing
    group = np.where((a >= 0) & (s >= 0), a * len(settings_) + s, -1)
    report = _ints(report)
    base = int(max(report.max(initial=0), rep_a.max(initial=0), rep_b.max(initial=0))) + 1
    key = np.where(group >= 0, group * base + report, -1)
    pair_group = pair_annotator * len(settings_) + pair_setting
    return _score_arrays(
        _metric_codes(code, other), key, value, pair_group * base + rep_a, pair_group * base + rep_b
    )


def _with_relevance(pseudonym, setting, report, code, value, relevance) -> list[float]:
    """The score values with answer_relevance replaced where ``relevance`` has one (the
    adjudicated paragraph labels), and overall, the mean of the four metrics (METHODS §3),
    moved by a quarter of the change. Only rows of the reports concerned are visited."""
    rel, overall = ALL_METRICS.index("answer_relevance"), ALL_METRICS.index("overall")
    value = list(value)
    rows: dict[tuple, dict[int, int]] = {}
    for i in np.flatnonzero(np.isin(_ints(report), [k[2] for k in relevance])).tolist():
        key = (pseudonym[i], setting[i], report[i])
        if code[i] in (rel, overall) and key in relevance:
            rows.setdefault(key, {})[code[i]] = i
    for key, at in rows.items():
        if rel in at:
            change = relevance[key] - value[at[rel]]
            value[at[rel]] = relevance[key]
            if overall in at:
                value[at[overall]] += change / 4
    return value


def _judge_scores(selection, rep_a, rep_b) -> tuple[str | None, dict[str, np.ndarray]]:
    """The judge's scores of the pairs' reports, and the judge's name.

    Without a judge in the selection, every judge's scores in the study are read in the
    same one query and the judge with the most scores wins (ties: by name), which is
    :func:`default_judge` without a second pass over the scores table: a study usually
    has one judge, whose rows had to be read anyway.
    """
    scores = JudgeScore.objects.filter(report__question__study_id=selection.study_id).annotate(
        code=_metric_code(), other=_other_metric()
    )
    if selection.judge:
        judge_name = selection.judge
        report, code, other, value = _columns(
            _fetch(
                scores.filter(judge__name=judge_name).values_list(
                    "report_id", "code", "other", "value"
                )
            ),
            4,
        )
        metric = _metric_codes(code, other)
    else:
        judge_id, report, code, other, value = _columns(
            _fetch(scores.values_list("judge_id", "report_id", "code", "other", "value")), 5
        )
        judge_name, metric = None, _metric_codes(code, other)
        if judge_id:
            judge_id = _ints(judge_id)
            ids, counts = np.unique(judge_id, return_counts=True)
            best = ids[counts == counts.max()]
            chosen, judge_name = min(
                Judge.objects.filter(pk__in=best.tolist()).values_list("id", "name"),
                key=lambda row: row[1],
            )
            rows = judge_id == chosen
            report = np.asarray(report, dtype=np.int64)[rows]
            metric = (metric[0][rows], metric[1])
            value = np.asarray(value, dtype=float)[rows]
    return judge_name, _score_arrays(metric, report, value, rep_a, rep_b)


#: Annotator label of released expert-agreed rows (``metaeval.compat.AGREED_ANNOTATOR``).
AGREED_ANNOTATOR = "expert_agreed"


def load_expert_agreed(study_id: int, setting: str, judge: str | None) -> PairFrame | None:
    """The study's released expert-agreed records of ``judge`` as a frame, or None.

    One row per record in the order read (METHODS §6: the script concatenates the dev and
    the test agreement-only files), systems in canonical order with every a/b pair swapped
    to follow, the record's own judge scores (null = NaN) and human values (preference:
    the mean medal score of the agreeing annotators). Two queries.
    """
    if judge is None:
        return None
    rows = list(
        ExpertAgreedRecord.objects.filter(study_id=study_id, setting=setting, judge_name=judge)
        .order_by("position", "id")
        .values_list(
            "question__external_id",
            "question__split",
            "report_a__system__name",
            "report_b__system__name",
            "preference",
            "human",
            "judge_scores",
        )  # fmt: skip
    )
    if not rows:
        return None
    systems = sorted({r[2] for r in rows} | {r[3] for r in rows})
    questions = sorted({r[0] for r in rows})
    splits = sorted({r[1] for r in rows})
    n = len(rows)
    swap = np.array([r[2] > r[3] for r in rows], dtype=bool)

    def pairs(values: list) -> np.ndarray:
        out = np.array([[np.nan if v is None else float(v) for v in pair] for pair in values])
        out = out.reshape(n, 2)
        out[swap] = out[swap][:, ::-1]
        return out

    def field(column: int) -> dict[str, np.ndarray]:
        names = sorted({m for r in rows for m in r[column]}, key=_metric_order)
        names += [m for m in ALL_METRICS if m not in names]
        return {m: pairs([r[column].get(m) or [None, None] for r in rows]) for m in names}

    a = np.array([systems.index(r[2]) for r in rows], dtype=np.int64)
    b = np.array([systems.index(r[3]) for r in rows], dtype=np.int64)
    return PairFrame(
        question=np.array([questions.index(r[0]) for r in rows], dtype=np.int64),
        system_a=np.where(swap, b, a),
        system_b=np.where(swap, a, b),
        annotator=np.zeros(n, dtype=np.int64),
        setting=np.zeros(n, dtype=np.int64),
        split=np.array([splits.index(r[1]) for r in rows], dtype=np.int64),
        preference=pairs([r[4] for r in rows]),
        human=field(5),
        judge=field(6),
        questions=questions,
        systems=systems,
        annotators=[AGREED_ANNOTATOR],
        settings=[setting],
        splits=splits,
        judge_name=judge,
    )


def _metric_order(metric: str) -> tuple[int, str]:
    return (ALL_METRICS.index(metric) if metric in ALL_METRICS else len(ALL_METRICS), metric)


def _empty_frame(judge_name: str | None = None) -> PairFrame:
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
        judge_name=judge_name,
    )


__all__ = ["Selection", "default_judge", "load_expert_agreed", "load_frame"]
