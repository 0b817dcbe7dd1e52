"""Rubric coverage (METHODS §2.3): each (report, rubric item) gets 0 Not at all · 1 Barely ·
2 Moderately · 3 Mostly · 4 Completely, or — with the study setting ``coverage_binary``
(ResearcherBench) — covered yes / no, weighted by the item's weight in the analysis.

Payload: ``{"coverage": {report public id: {item position: 0..4 | "yes" | "no"}}}``.
"""

from __future__ import annotations

from annotation.models import RubricCoverage

from ..quality import labels as ql
from . import qc
from .base import Needs, Problems, TaskSpec, demote, item_numbers, reports_of, rubric_items_of
from .form import Choices, Field, Form, Unit, as_int
from .page import TaskPage
from .widgets import radio_group

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


def choices(binary: bool) -> Choices:
    return Choices(allowed_values(binary), "yes or no" if binary else "a label from 0 to 4")


def has_weights(items) -> bool:
    """Whether the rubric of ``items`` weighs its items: its kind declares a weight range
    (ResearcherBench's 1-3, :data:`annotation.rubric_weights.WEIGHT_RANGES`) or an item
    weighs other than the default 1. Then every item shows its weight, a weight-1 item
    too (it showed none beside the "(weight 2.0)" of the others, and read as unweighted);
    an unweighted rubric (ResearchQA's) shows none."""
    from annotation.rubric_weights import WEIGHT_RANGES

    return any(i.rubric.kind in WEIGHT_RANGES or i.weight != 1 for i in items)


def weight_text(weight: float) -> str:
    """ "weight 2" for 2.0 (ResearcherBench weighs 1, 2 or 3); a released fractional weight
    as it is ("weight 1.5")."""
    return f"weight {weight:g}"


REPORT = Unit(
    "report", reports_of, unknown="Coverage: an answer names a report that is not in this task."
)
ITEM = Unit("item", rubric_items_of, unknown="Coverage ({report}): there is no rubric item {id}.")
COVERAGE = Field(
    "cov.<report>.<item>",
    "coverage.<report>.<item>",
    convert=as_int,
    skip_blank=True,
    choices=choices,  # graded or binary: the study's ``coverage_binary``
    invalid="Coverage ({report}, item {item}): {value!r} is not {choices}.",
)
FORM = Form(title="Coverage", fields=(COVERAGE,), units=(REPORT, ITEM))


def coverage_problems(
    coverage: dict, labels: dict[str, str], positions: set[str], *, binary: bool, final: bool
) -> Problems:
    """``labels``: report public id -> "Report A"; ``positions``: the rubric's item positions."""
    number = item_numbers(positions)
    payload = {"coverage": coverage}
    resolve = lambda unit, ids: labels if unit == "report" else number  # noqa: E731
    hard = FORM.problems(payload, resolve, binary)
    if hard:
        return Problems(errors=hard)
    missing: dict[str, list[int]] = {}
    for where in FORM.missing(payload, COVERAGE, resolve):
        missing.setdefault(where["report"], []).append(where["item"])
    rules = Problems()
    for label, numbers in missing.items():
        shown = ", ".join(map(str, numbers[:10])) + (" …" if len(numbers) > 10 else "")
        rules.errors.append(
            f"Coverage ({label}): judge item{'s' if len(numbers) > 1 else ''} {shown}."
        )
    return demote(rules, final)


def stored(study, annotator=None):
    return RubricCoverage.objects.filter(study=study, **qc.who(annotator))


def qc_rows(study, annotator=None):
    rows = stored(study, annotator).select_related("report__system", "item__rubric", "assignment")
    for c in rows.iterator(chunk_size=qc.CHUNK):
        label = str(c.label) if c.label is not None else ("yes" if c.covered else "no")
        yield c, ql.on_report(qc.item_name(c.item), c.report.system.name), label


def qc_units(study, question):
    binary = bool(study.setting("coverage_binary"))
    values = ql.Values(tuple(str(v) for v in allowed_values(binary)), ordinal=not binary)
    return qc.per_report(
        question, {qc.item_name(i): values for i in qc.rubric_items(study, question)}
    )


QC = ql.LabelSpec(
    unit="one rubric item in one report: item <rubric kind>:<position>@System",
    label="the grade 0–4 (ordinal; exact match) or, with coverage_binary, yes / no",
    rows=qc_rows,
    held=qc.held(stored),
    units=qc_units,
    notation="unit “item expert:1@SysA”, answer 3 (or yes / no)",
)


class RubricCoverageTask(TaskSpec):
    needs = Needs(reports=1, rubrics=1)
    qc = QC
    key = "rubric_coverage"
    form = FORM

    def binary(self, page: TaskPage) -> bool:
        return bool(page.study.setting("coverage_binary"))

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

    def stored_answers(self, page):
        a = page.assignment
        ids = {r.report.pk: r.public_id for r in page.reports}
        rows = RubricCoverage.objects.filter(
            annotator=page.annotator, setting=a.setting, report_id__in=list(ids),
            item__in=page.rubric_items,
        ).values_list("report_id", "item__position", "label", "covered")  # fmt: skip
        coverage: dict = {}
        for report, position, label, covered in rows:
            value = label if label is not None else ("yes" if covered else "no")
            coverage.setdefault(ids[report], {})[str(position)] = value
        return {"coverage": coverage} if coverage else None

    def context(self, payload, page):
        coverage = payload.get("coverage") or {}
        options = BINARY if self.binary(page) else GRADED
        rows = []
        weighted = has_weights(page.rubric_items)
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
            rows.append({"item": item, "n": n, "groups": groups,
                         "weight": weight_text(item.weight) if weighted else None})  # fmt: skip
        return {"rows": rows, "binary": self.binary(page)}


TASK = RubricCoverageTask()
