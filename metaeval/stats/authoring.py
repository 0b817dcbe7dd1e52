"""Question authoring (003 Setting 3; docs/ANALYSES.md §12): how many questions each
annotator wrote, in which fields, how long they are, how many rubric items each got and how
many were used (answered by a system's report, judged by an expert).

Pure functions over plain sequences (no Django): the loader
(:mod:`metaeval.loaders.authoring`) gives the columns.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from .figure import number

REVIEWS = ("accepted", "pending", "rejected")


def _mean(values: list[float]) -> float | None:
    return number(sum(values) / len(values)) if values else None


def summarise(rows: list[dict]) -> dict:
    """One summary row over authored-question rows (keys of :func:`analyse_authoring`)."""
    return {
        "questions": len(rows),
        **{r: sum(1 for x in rows if x["review"] == r) for r in REVIEWS},
        "mean_chars": _mean([x["chars"] for x in rows]),
        "median_chars": number(sorted(x["chars"] for x in rows)[len(rows) // 2])
        if rows else None,
        "mean_rubric_items": _mean([x["rubric_items"] for x in rows]),
        "with_rubric": sum(1 for x in rows if x["rubric_items"] > 0),
        "with_reports": sum(1 for x in rows if x["reports"] > 0),
        "judged": sum(1 for x in rows if x["judged"]),
    }  # fmt: skip


def analyse_authoring(question: Sequence[str], author: Sequence[str], field: Sequence[str],
                      review: Sequence[str], chars: Sequence[int], rubric_items: Sequence[int],
                      reports: Sequence[int], judged: Sequence[bool]) -> dict:  # fmt: skip
    """Per annotator, per field and in all: questions written, their review state, text
    length (characters; the median is the upper median), mean rubric items per question
    (0 for a question without a rubric: it counts), and how many were used — with at least
    one report, with at least one human judgment. A question without a field is listed
    under "" (the task requires one; an import may not)."""
    rows = [{"question": q, "author": a, "field": f, "review": r, "chars": int(c),
             "rubric_items": int(i), "reports": int(n), "judged": bool(j)}
            for q, a, f, r, c, i, n, j in zip(question, author, field, review, chars,
                                              rubric_items, reports, judged, strict=True)]  # fmt: skip
    groups: dict[str, dict[str, list]] = {"author": defaultdict(list), "field": defaultdict(list)}
    for row in rows:
        groups["author"][row["author"]].append(row)
        groups["field"][row["field"]].append(row)
    return {
        "total": summarise(rows),
        "by_annotator": [{"annotator": k, **summarise(v)}
                         for k, v in sorted(groups["author"].items())],
        "by_field": [{"field": k, **summarise(v)} for k, v in sorted(groups["field"].items())],
        "questions": rows,
    }  # fmt: skip
