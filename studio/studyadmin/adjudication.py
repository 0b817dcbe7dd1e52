"""Relevance adjudication assignments from finished metric-wise work (003 A.6).

``preview(study, judge)`` finds, for every submitted metric-wise assignment, the paragraphs
where the annotator's label disagrees with the judge's verdict (``annotation.adjudication``
defines disagreement) — five queries whatever the study size. ``commit`` writes one
adjudication assignment per chosen source — same annotator, question, setting and report
order, so "Report A" is the report they called Report A before — with its disagreements
frozen, in one transaction. A source that already has an adjudication assignment is skipped,
so committing twice adds nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from django.db.models import Max

from annotation import adjudication as rules
from annotation.models import (
    Assignment,
    ParagraphRelevance,
    RelevanceDisagreement,
    Study,
    System,
)
from judges.models import Judge, JudgeRelevance

from . import StudyAdminError

TASK = Study.Task.RELEVANCE_ADJUDICATION


@dataclass
class AdjudicationPreview:
    judge: Judge
    #: (metric-wise assignment, its disagreements) in the order they would be created
    chosen: list[tuple[dict, list[rules.Disagreement]]]
    #: finished metric-wise assignments looked at, and those already adjudicated
    sources: int
    already: int

    @property
    def disagreements(self) -> int:
        return sum(len(d) for _, d in self.chosen)


def _check(study: Study, judge: Judge | None, limit: int | None) -> None:
    if judge is None:
        raise StudyAdminError("judge", "choose the judge whose verdicts are adjudicated")
    if study.tasks and TASK not in study.tasks:
        raise StudyAdminError(
            "judge", "the study does not enable relevance adjudication; enable it first"
        )
    if limit is not None and limit < 1:
        raise StudyAdminError("limit", "at least 1 question")


def preview(study: Study, judge: Judge | None, *, limit: int | None = None) -> AdjudicationPreview:
    _check(study, judge, limit)
    sources = {
        row["pk"]: row
        for row in Assignment.objects.filter(
            study=study, task=Study.Task.METRIC_WISE, status=Assignment.Status.SUBMITTED
        ).values("pk", "annotator_id", "question_id", "setting", "report_order")
    }
    existing = set(
        Assignment.objects.filter(study=study, task=TASK).values_list(
            "annotator_id", "question_id", "setting"
        )
    )
    done = [
        pk
        for pk, s in sources.items()
        if (s["annotator_id"], s["question_id"], s["setting"]) in existing
    ]
    labels = ParagraphRelevance.objects.filter(assignment_id__in=list(sources)).values_list(
        "assignment_id", "paragraph_id", "label", "paragraph__report_id", "paragraph__number"
    )

    def reading_order(row):
        order = sources[row[0]]["report_order"] or []
        report = order.index(row[3]) if row[3] in order else len(order)
        return (row[0], report, row[4])

    ordered = sorted(labels, key=reading_order)
    verdicts = {
        pid: rules.Verdict(relevant, rationale)
        for pid, relevant, rationale in JudgeRelevance.objects.filter(
            judge=judge, paragraph_id__in=[r[1] for r in ordered]
        ).values_list("paragraph_id", "relevant", "rationale")
    }
    found = rules.find((rules.Label(r[0], r[1], r[2]) for r in ordered), verdicts)
    names = list(System.objects.filter(study=study).values_list("name", flat=True))
    chosen = [
        (
            sources[s],
            [
                rules.Disagreement(
                    d.source,
                    d.paragraph,
                    d.annotator_label,
                    d.judge_relevant,
                    rules.blind(d.rationale, names),
                )
                for d in found_here
            ],
        )
        for s, found_here in rules.pick(found, limit=limit, skip=done)
    ]
    return AdjudicationPreview(judge=judge, chosen=chosen, sources=len(sources), already=len(done))


def commit(study: Study, judge: Judge | None, *, limit: int | None = None) -> AdjudicationPreview:
    """Create the adjudication assignments the preview shows. All or nothing."""
    with transaction.atomic():
        Study.objects.select_for_update().filter(pk=study.pk).first()
        result = preview(study, judge, limit=limit)
        if not result.chosen:
            raise StudyAdminError(
                "judge", f"no finished metric-wise work disagrees with {judge.name} anymore"
            )
        start = dict(
            Assignment.objects.filter(
                annotator_id__in={s["annotator_id"] for s, _ in result.chosen}
            )
            .values("annotator_id")
            .annotate(m=Max("position"))
            .values_list("annotator_id", "m")
        )
        items = []
        for source, found in result.chosen:
            start[source["annotator_id"]] = (start.get(source["annotator_id"]) or 0) + 1
            assignment = Assignment.objects.create(
                study=study,
                annotator_id=source["annotator_id"],
                question_id=source["question_id"],
                task=TASK,
                setting=source["setting"],
                report_order=list(source["report_order"] or []),
                position=start[source["annotator_id"]],
            )
            items.extend(
                RelevanceDisagreement(
                    assignment=assignment,
                    judge=judge,
                    paragraph_id=d.paragraph,
                    position=i,
                    annotator_label=d.annotator_label,
                    judge_relevant=d.judge_relevant,
                    judge_rationale=d.rationale,
                )
                for i, d in enumerate(found, start=1)
            )
        RelevanceDisagreement.objects.bulk_create(items)
    return result
