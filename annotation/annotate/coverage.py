"""Rubric coverage (METHODS §2.3): each (report, rubric item) gets 0 Not at all · 1 Barely ·
2 Moderately · 3 Mostly · 4 Completely, or — with the study setting ``coverage_binary``
(ResearcherBench) — covered yes / no, weighted by the item's weight in the analysis.

Payload: ``{"coverage": {report public id: {item position: 0..4 | "yes" | "no"}}}``.
"""

from __future__ import annotations

from annotation.models import RubricCoverage

from .base import Problems, TaskSpec, demote, item_numbers
from .page import TaskPage
from .widgets import as_int, radio_group

GRADED = [
    (0, "0 Not at all", "0"),
    (1, "1 Barely", "1"),
    (2, "2 Moderately", "2"),
    (3, "3 Mostly", "3"),
    (4, "4 Completely", "4"),
]
BINARY = [("yes", "Covered", "y"), ("no", "Not covered", "n")]


def allowed_values(binary: bool) -> tuple:
    return ("yes", "no") if binary else (0, 1, 2, 3, 4)


def coverage_problems(
    coverage: dict, labels: dict[str, str], positions: set[str], *, binary: bool, final: bool
) -> Problems:
    """``labels``: report public id -> "Report A"; ``positions``: the rubric's item positions."""
    number = item_numbers(positions)
    hard, rules = Problems(), Problems()
    allowed = allowed_values(binary)
    if not isinstance(coverage, dict):
        return Problems(errors=["Coverage: malformed answer."])
    for pid, by_item in coverage.items():
        if pid not in labels or not isinstance(by_item, dict):
            hard.errors.append("Coverage: an answer names a report that is not in this task.")
            continue
        for pos, value in by_item.items():
            if pos not in positions:
                hard.errors.append(f"Coverage ({labels[pid]}): there is no rubric item {pos}.")
            elif value not in allowed:
                expected = "yes or no" if binary else "a label from 0 to 4"
                hard.errors.append(
                    f"Coverage ({labels[pid]}, item {number[pos]}): {value!r} is not {expected}."
                )
    if hard.errors:
        return hard
    for pid, label in labels.items():
        missing = [number[p] for p in number if p not in (coverage.get(pid) or {})]
        if missing:
            shown = ", ".join(map(str, missing[:10])) + (" …" if len(missing) > 10 else "")
            rules.errors.append(
                f"Coverage ({label}): judge item{'s' if len(missing) > 1 else ''} {shown}."
            )
    return demote(rules, final)


class RubricCoverageTask(TaskSpec):
    key = "rubric_coverage"
    template = "annotation/annotate/rubric_coverage.html"
    min_reports = 1

    def binary(self, page: TaskPage) -> bool:
        return bool(page.study.setting("coverage_binary"))

    def initial(self, page):
        return {"coverage": {}}

    def parse(self, data, page):
        coverage: dict[str, dict] = {}
        for name, value in data.items():
            parts = name.split(".")
            if parts[0] == "cov" and len(parts) == 3 and value != "":
                coverage.setdefault(parts[1], {})[parts[2]] = as_int(value)
        return {"coverage": coverage}

    def check(self, payload, page, *, final):
        return coverage_problems(
            payload.get("coverage"),
            {r.public_id: r.label for r in page.reports},
            {str(item.position) for item in page.rubric_items},
            binary=self.binary(page),
            final=final,
        )

    def persist(self, payload, page):
        a, binary = page.assignment, self.binary(page)
        items = page.rubric_items
        RubricCoverage.objects.filter(
            annotator=page.annotator,
            setting=a.setting,
            report_id__in=[r.report.pk for r in page.reports],
            item__in=items,
        ).delete()
        RubricCoverage.objects.bulk_create(
            RubricCoverage(
                study=a.study,
                annotator=page.annotator,
                question=a.question,
                setting=a.setting,
                assignment=a,
                report=r.report,
                item=item,
                label=None if binary else payload["coverage"][r.public_id][str(item.position)],
                covered=(payload["coverage"][r.public_id][str(item.position)] == "yes")
                if binary
                else None,
            )
            for r in page.reports
            for item in items
        )

    def context(self, payload, page):
        coverage = payload.get("coverage") or {}
        options = BINARY if self.binary(page) else GRADED
        rows = []
        for n, item in enumerate(page.rubric_items, start=1):
            groups = [
                radio_group(
                    f"cov.{r.public_id}.{item.position}",
                    options,
                    (coverage.get(r.public_id) or {}).get(str(item.position)),
                    f"{r.label}",
                    css="choice-row coverage-row",
                    compact=not self.binary(page),
                )
                for r in page.reports
            ]
            rows.append({"item": item, "n": n, "groups": groups})
        return {"rows": rows, "binary": self.binary(page)}
