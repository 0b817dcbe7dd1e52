"""What a study's data lets annotators do: per task, and per question.

A task page can only be completed when its question has what the page shows: two reports to
compare for pairwise and medal ranking, one report for metric-wise, claims for a claim check,
a rubric with items for coverage and item quality, two rubrics for a rubric comparison. An
assignment made without that is work nobody can do, so the Assign preview leaves such
questions out and says why (:func:`question_problems`), and a new study enables the tasks
its imported data supports (:func:`supported_tasks`) instead of none, which would make every
assignment a "This task is not available" page.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from django.db.models import Count, Exists, OuterRef

from annotation.annotate.base import Needs
from annotation.annotate.registry import SPECS
from annotation.models import Question, Report, ReportClaim, Rubric, RubricItem, Study

T = Study.Task
#: Tasks an Assign plan cannot make (they come from an annotator's own work); never
#: enabled automatically.
PERSONAL = {T.RELEVANCE_ADJUDICATION, T.QUESTION_AUTHORING}
#: DeepScholar-Bench tasks (seed 002 §8.11): enabled automatically only in a study that has
#: DeepScholar units (nuggets or an exemplar's references), not in every study with reports.
DEEPSCHOLAR = {T.ORGANIZATION, T.NUGGET_IMPORTANCE, T.NUGGET_SUPPORT, T.RETRIEVAL_RELEVANCE,
               T.REFERENCE_IMPORTANCE, T.ENTAILMENT}  # fmt: skip


#: What one question needs for each task's page to be completable: each task type's own
#: declaration (``TaskSpec.needs`` in ``annotation/annotate/<key>.py``), never a list here.
NEEDS: dict[str, Needs] = {key: spec.needs for key, spec in SPECS.items()}

#: Tasks whose assignments carry reports (``Assignment.report_order``); the others (query
#: quality, triage, nugget importance, …) are about the question.
REPORT_TASKS: frozenset[str] = frozenset(k for k, spec in SPECS.items() if spec.shows_reports)

#: Tasks whose pages show the question's rubrics (rubric coverage, rubric item quality, rubric
#: comparison: ``Needs.rubrics``); the others show none.
RUBRIC_TASKS: frozenset[str] = frozenset(k for k, spec in SPECS.items() if spec.needs.rubrics)


#: ``T.values`` builds a new list on each call: read once.
_TASKS = frozenset(T.values)


def task_label(task: str) -> str:
    return T(task).label if task in _TASKS else task


@dataclass(frozen=True)
class QuestionData:
    """What one question has: its reports (of the systems compared), rubrics with items,
    and how many claims its reports carry."""

    reports: int = 0
    rubrics: int = 0
    claims: int = 0
    nuggets: int = 0
    exemplar: bool = False
    references: int = 0


def question_data(questions, *, systems=(), units: bool = True) -> dict[int, QuestionData]:
    """``QuestionData`` for every question of the queryset, in three queries (three more
    for the DeepScholar units, unless ``units`` is False)."""
    reports = Report.objects.filter(question__in=questions)
    claims = ReportClaim.objects.filter(report__question__in=questions)
    if systems:
        reports = reports.filter(system_id__in=systems)
        claims = claims.filter(report__system_id__in=systems)
    n_reports = Counter(
        dict(reports.values("question_id").annotate(n=Count("pk")).values_list("question_id", "n"))
    )
    n_rubrics = Counter(
        dict(
            Rubric.objects.filter(question__in=questions)
            # rubrics with items, counted once each (a Count over the items' join counted
            # the items: one rubric of 14 items passed for the two a comparison needs)
            .filter(Exists(RubricItem.objects.filter(rubric=OuterRef("pk"))))
            .values("question_id")
            .annotate(n=Count("pk"))
            .values_list("question_id", "n")
        )
    )
    n_claims = Counter(
        dict(
            claims.values("report__question_id")
            .annotate(n=Count("pk"))
            .values_list("report__question_id", "n")
        )
    )
    n_nuggets, exemplars, n_refs = Counter(), set(), Counter()
    if units:
        from annotation.models import Exemplar, ExemplarReference, Nugget

        n_nuggets = _count(Nugget.objects.filter(question__in=questions))
        exemplars = set(
            Exemplar.objects.filter(question__in=questions).values_list("question_id", flat=True)
        )
        n_refs = _count(ExemplarReference.objects.filter(question__in=questions))
    ids = set(n_reports) | set(n_rubrics) | set(n_claims) | set(n_nuggets) | exemplars
    ids |= set(n_refs)
    return {
        q: QuestionData(
            n_reports[q], n_rubrics[q], n_claims[q], n_nuggets[q], q in exemplars, n_refs[q]
        )  # fmt: skip
        for q in ids
    }


def _count(rows) -> Counter:
    """Rows per question (one query)."""
    return Counter(
        dict(rows.values("question_id").annotate(n=Count("pk")).values_list("question_id", "n"))
    )


def problem(task: str, data: QuestionData) -> str | None:
    """Why this question's ``task`` page could not be completed, or None when it can."""
    needs = NEEDS.get(task)
    if needs is None:
        return None
    if data.reports < needs.reports:
        if data.reports == 0:
            return f"has no report ({task_label(task).lower()} needs {needs.reports})"
        return (
            f"has {data.reports} report; {task_label(task).lower()} compares at least "
            f"{needs.reports}"
        )
    if needs.claims and data.claims == 0:
        return "its reports have no claims to check (import claims or extract them with a judge)"
    if needs.nuggets and data.nuggets == 0:
        return "has no nuggets (import the question's DeepScholar nuggets)"
    if needs.exemplar and not data.exemplar:
        return "has no exemplar to compare with (import the question's DeepScholar exemplar)"
    if needs.references and data.references == 0:
        return "its exemplar has no references (import the question's DeepScholar references)"
    if data.rubrics < needs.rubrics:
        have = "no rubric with items" if data.rubrics == 0 else f"{data.rubrics} rubric"
        if needs.rubrics == 1:
            return f"has {have}; import its rubric with the questions"
        return f"has {have}; a rubric comparison needs at least {needs.rubrics} rubrics"
    return None


def supported_tasks(study: Study) -> list[str]:
    """The tasks at least one accepted question of ``study`` has the data for, in the order
    of ``Study.Task`` (personal tasks excluded: an admin opens those from the study page)."""
    questions = Question.objects.filter(study=study, review=Question.Review.ACCEPTED)
    has_units = _deepscholar_flag(questions)  # None: no accepted question (one query)
    if has_units is None:
        return []
    data = set(question_data(questions, units=has_units).values()) | {QuestionData()}
    skip = set(PERSONAL) | (set() if has_units else DEEPSCHOLAR)
    return [t for t in T.values if t not in skip and any(problem(t, d) is None for d in data)]


def _deepscholar_flag(questions) -> bool | None:
    """Whether any of ``questions`` has DeepScholar units; None when there is no question."""
    from annotation.models import ExemplarReference, Nugget

    units = Exists(Nugget.objects.filter(question=OuterRef("pk"))) | Exists(
        ExemplarReference.objects.filter(question=OuterRef("pk"))
    )
    return questions.annotate(ds=units).order_by("-ds").values_list("ds", flat=True).first()


def judged_tasks(study: Study) -> list[str]:
    """The task types ``study`` holds judgments of (each task's quality-control declaration,
    ``TaskSpec.qc.held``: EXISTS queries, as many and as deep whatever the study's size), in
    the order of ``Study.Task``."""
    from annotation.quality import catalog

    specs = catalog.specs()
    return [t for t in T.values if t in specs and specs[t].has_label and specs[t].held(study)]


def enable_supported(study: Study) -> list[str]:
    """Until an admin chooses a study's tasks (``Study.tasks_chosen``), enable every task
    its data supports; in any study, enable the tasks whose judgments it holds (an import
    of 1,335 medal rankings into a study whose reports enabled query quality, metric-wise
    and triage must enable medal ranking, or its judgments are invisible to assignment and
    quality control). Returns what it enabled.

    The enabled tasks so follow from the data whatever the order of the imports (reports
    then questions enabled three tasks, questions then reports four, issue 28); an admin's
    choice stays."""
    have = list(study.tasks or [])
    new = [] if study.tasks_chosen else [t for t in supported_tasks(study) if t not in have]
    new += [t for t in judged_tasks(study) if t not in have and t not in new]
    if new:
        tasks = have + [t for t in T.values if t in new]
        Study.objects.filter(pk=study.pk).update(tasks=tasks)
        study.tasks = tasks
    return [t for t in T.values if t in new]


def enable_hint(study: Study, task: str) -> str:
    return (
        f"the study “{study.name}” does not enable the task “{task_label(task)}”: tick it "
        "under “Tasks and settings” on the study page and save, then assign it"
    )


__all__ = [
    "NEEDS",
    "REPORT_TASKS",
    "RUBRIC_TASKS",
    "Needs",
    "PERSONAL",
    "QuestionData",
    "enable_hint",
    "enable_supported",
    "judged_tasks",
    "problem",
    "question_data",
    "supported_tasks",
    "task_label",
]
