"""How far a study is: per annotator and in total, from one query over its assignments.

Per annotator: assignments not started / in progress / submitted, the median time on task of
the submitted ones (``Assignment.seconds_on_task``). Per study: the same totals, and the
comparisons pending double annotation: a (question, task, setting) given to two or more
annotators of which not every assignment is submitted yet. A task each annotator does on
their own work (relevance adjudication: an annotator's labels against the judge's, so two
annotators may each adjudicate one question; question authoring) is never a double.
"""

from __future__ import annotations

import io
import statistics
from collections import defaultdict
from dataclasses import dataclass, field

from annotation.models import Assignment, Study
from annotation.readiness import PERSONAL
from annotation.spreadsheets import csv_writer

S = Assignment.Status


@dataclass
class AnnotatorProgress:
    annotator_id: int
    pseudonym: str
    not_started: int = 0
    in_progress: int = 0
    submitted: int = 0
    seconds: list[int] = field(default_factory=list, repr=False)

    @property
    def total(self) -> int:
        return self.not_started + self.in_progress + self.submitted

    @property
    def median_seconds(self) -> float | None:
        return float(statistics.median(self.seconds)) if self.seconds else None

    @property
    def state(self) -> str:
        if self.total and self.submitted == self.total:
            return "submitted"
        if self.submitted or self.in_progress:
            return "in progress"
        return "not started"


@dataclass
class StudyProgress:
    study: Study
    annotators: list[AnnotatorProgress]
    not_started: int
    in_progress: int
    submitted: int
    median_seconds: float | None
    pending_double: int
    double_total: int
    by_task: dict[str, dict[str, int]]

    @property
    def total(self) -> int:
        return self.not_started + self.in_progress + self.submitted


def study_progress(study: Study) -> StudyProgress:
    people: dict[int, AnnotatorProgress] = {}
    groups: dict[tuple, list[str]] = defaultdict(list)
    counted = [v for v in S.values if v != S.WITHDRAWN]  # withdrawn: reassigned to someone else
    by_task: dict[str, dict[str, int]] = defaultdict(lambda: dict.fromkeys(counted, 0))
    rows = Assignment.objects.filter(study=study, status__in=counted).values_list(
        "annotator_id", "annotator__pseudonym", "question_id", "task", "setting", "status",
        "seconds_on_task",
    )  # fmt: skip
    for aid, name, qid, task, setting, status, seconds in rows:
        p = people.setdefault(aid, AnnotatorProgress(aid, name))
        setattr(p, status, getattr(p, status) + 1)
        if status == S.SUBMITTED:
            p.seconds.append(seconds)
        if qid is not None and task not in PERSONAL:
            groups[(qid, task, setting)].append(status)
        by_task[task][status] += 1
    doubles = [g for g in groups.values() if len(g) >= 2]
    all_seconds = [s for p in people.values() for s in p.seconds]
    annotators = sorted(people.values(), key=lambda p: p.pseudonym)
    return StudyProgress(
        study=study,
        annotators=annotators,
        not_started=sum(p.not_started for p in annotators),
        in_progress=sum(p.in_progress for p in annotators),
        submitted=sum(p.submitted for p in annotators),
        median_seconds=float(statistics.median(all_seconds)) if all_seconds else None,
        pending_double=sum(1 for g in doubles if any(s != S.SUBMITTED for s in g)),
        double_total=len(doubles),
        by_task={t: by_task[t] for t in sorted(by_task)},
    )


CSV_COLUMNS = (
    "annotator", "state", "not_started", "in_progress", "submitted", "total",
    "median_seconds_on_task",
)  # fmt: skip


def progress_csv(progress: StudyProgress) -> str:
    """One row per annotator. The median is written with one decimal, always: times are
    whole seconds, so a median is exact at one decimal (4.5), and an odd count's (5) must
    not read differently from an even count's (5.0) in the same column (the tester's
    download had both)."""
    out = io.StringIO()
    w = csv_writer(out, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for p in progress.annotators:
        median = "" if p.median_seconds is None else f"{p.median_seconds:.1f}"
        w.writerow(
            [p.pseudonym, p.state, p.not_started, p.in_progress, p.submitted, p.total, median]
        )
    return out.getvalue()


def annotator_assignments(study: Study, annotator) -> list[Assignment]:
    return list(
        Assignment.objects.filter(study=study, annotator=annotator)
        .select_related("question")
        .order_by("position", "pk")
    )
