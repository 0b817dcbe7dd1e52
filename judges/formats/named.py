"""The names a judge-score import gives the verdicts it changes (``ImportReport.changes``).

Why: a dry run of a report or rubric import lists each stored record it would change; a
judge-score import only counted them, so re-importing a judge's file told "1 updated"
and not which judge's score of which unit, nor from what to what. The writers pass these
to :func:`annotation.importers.common.sync_rows` (``describe``): asked once, with the keys
of the rows updated only, a unit is named by its natural key as the report imports name
a report (question id and system), never by a database id.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from annotation.models import Paragraph, Question, Report, RubricItem


def report_names(ids: Iterable[int]) -> dict[int, str]:
    """report id -> ``question 'q1', system 'S'``."""
    rows = Report.objects.filter(pk__any_of=set(ids)).values_list(
        "pk", "question__external_id", "system__name"
    )
    return {pk: f"question {q!r}, system {s!r}" for pk, q, s in rows}


def per_report(judge: str, unit: Callable[[object], str] = lambda _: "") -> Callable:
    """A ``describe`` for keys ``(report id, *rest)``: ``judge 'J', <report><unit(key)>``."""

    def describe(keys: list[tuple]) -> dict[tuple, str]:
        names = report_names(k[0] for k in keys)
        return {k: f"judge {judge!r}, {names[k[0]]}{unit(k)}" for k in keys}

    return describe


def coverage(judge: str) -> Callable:
    """Keys ``(report id, rubric item id)``: the item by its rubric's kind and position."""

    def describe(keys: list[tuple]) -> dict[tuple, str]:
        items = dict(
            (pk, f", {kind!r} rubric item at position {pos}")
            for pk, kind, pos in RubricItem.objects.filter(
                pk__any_of={k[1] for k in keys}
            ).values_list("pk", "rubric__kind", "position")
        )
        return per_report(judge, lambda k: items[k[1]])(keys)

    return describe


def pairwise(judge: str) -> Callable:
    """Keys ``(left report id, right report id)``."""

    def describe(keys: list[tuple]) -> dict[tuple, str]:
        names = report_names(r for k in keys for r in k)
        return {k: f"judge {judge!r}, {names[k[0]]} vs {names[k[1]]}" for k in keys}

    return describe


def paragraphs(judge: str) -> Callable:
    """Keys: paragraph ids, by their report and number."""

    def describe(keys: list[int]) -> dict[int, str]:
        rows = dict(
            (pk, (rid, number))
            for pk, rid, number in Paragraph.objects.filter(pk__any_of=set(keys)).values_list(
                "pk", "report_id", "number"
            )
        )
        names = report_names(rid for rid, _ in rows.values())
        return {k: f"judge {judge!r}, {names[rows[k][0]]}, paragraph {rows[k][1]}" for k in keys}

    return describe


def deepscholar_labels(judge: str) -> Callable:
    """Keys ``(kind, question id, report id or None, unit)``: a DeepScholar label."""

    def describe(keys: list[tuple]) -> dict[tuple, str]:
        questions = dict(
            Question.objects.filter(pk__any_of={k[1] for k in keys}).values_list(
                "pk", "external_id"
            )
        )
        reports = report_names(k[2] for k in keys if k[2] is not None)
        return {
            k: f"judge {judge!r}, {k[0]} of "
            + (reports[k[2]] if k[2] is not None else f"question {questions[k[1]]!r}")
            + (f", unit {k[3]!r}" if k[3] else "")
            for k in keys
        }

    return describe
