"""Loading one assignment for its annotator: ownership, stable report order, progress."""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cached_property

from django.db.models import Count, Exists, OuterRef, Q, QuerySet, Subquery
from django.http import Http404

from annotation.models import (
    Annotator,
    Assignment,
    Draft,
    Flag,
    Guidelines,
    Reopening,
    Report,
    Rubric,
    RubricItem,
)
from annotation.models.quality import may_hold_back, released, requires_qualification
from annotation.rendering import (
    RenderedReport,
    page_reports,
    recent_reports,
    remember,
    render_reports,
)


@dataclass
class Progress:
    index: int
    total: int
    submitted: int

    def __str__(self) -> str:
        return f"Query {self.index} of {self.total}"


@dataclass
class TaskPage:
    assignment: Assignment
    annotator: Annotator
    #: An autosave's page: its reports may be the ones this process rendered for a save of
    #: the last minute (``annotation.rendering.recent_reports``).
    recent_reports: bool = False
    #: Each of the question's reports' public id and content version, as read by this
    #: request (``ensure_report_order``). Set for the task page (``load_page(...,
    #: reuse_renderings=True)``): its reports may then be the renderings this process kept
    #: for the same content (``annotation.rendering.page_reports``).
    report_versions: dict[int, tuple[str, int]] | None = None

    @property
    def study(self):
        return self.assignment.study

    @property
    def question(self):
        return self.assignment.question

    @property
    def setting(self) -> str:
        return self.assignment.setting

    @cached_property
    def reports(self) -> list[RenderedReport]:
        order = self.assignment.report_order
        if self.report_versions is not None:
            reports = page_reports(order, self.report_versions)
            remember(order, reports)  # the autosaves that follow this page reuse them
            return reports
        if self.recent_reports:
            return recent_reports(order)
        reports = render_reports(order)
        remember(order, reports)  # the autosaves that follow this page reuse them
        return reports

    @cached_property
    def by_public_id(self) -> dict[str, RenderedReport]:
        return {r.public_id: r for r in self.reports}

    @cached_property
    def rubric_items(self) -> list[RubricItem]:
        """The items of the rubric this task uses: the study's ``rubric_kind`` if set, else
        the question's first rubric. One query."""
        kind = self.study.setting("rubric_kind")
        rubrics = Rubric.objects.filter(question_id=self.assignment.question_id)
        if kind:
            rubrics = rubrics.filter(kind=kind)
        first = rubrics.order_by("pk").values("pk")[:1]
        return list(RubricItem.objects.filter(rubric_id=Subquery(first))
                    .select_related("rubric").order_by("position"))  # fmt: skip

    @cached_property
    def rubrics(self) -> list[Rubric]:
        """The question's rubrics in an order drawn per assignment (seeded by it, so stable
        across reloads), with their items. Two queries."""
        rubrics = sorted(
            Rubric.objects.filter(question_id=self.assignment.question_id).prefetch_related(
                "items"
            ),
            key=lambda r: r.pk,
        )
        random.Random(f"rubrics-{self.assignment.pk}").shuffle(rubrics)
        return rubrics

    def label_of(self, public_id: str) -> str:
        report = self.by_public_id.get(public_id)
        return report.label if report else "an unknown report"


def annotator_of(user) -> Annotator:
    annotator = getattr(user, "annotator", None) if user.is_authenticated else None
    if annotator is None:
        raise Http404("No annotator profile")
    return annotator


def with_review_state(assignments: QuerySet) -> QuerySet:
    """Annotate ``skipped`` (an open skip flag) and ``revision_reason`` (the latest
    reopening's reason, when the judgment is open again): no extra query per row."""
    reopenings = Reopening.objects.filter(assignment=OuterRef("pk")).order_by("-created_at", "-pk")
    return assignments.annotate(
        skipped=Exists(Flag.objects.filter(assignment=OuterRef("pk"), skipped=True)),
        reopened_by_author=Subquery(reopenings.values("by_author")[:1]),
        revision_reason=Subquery(reopenings.values("reason")[:1]),
    )


def load_page(
    user,
    assignment_id: int,
    enabled_tasks,
    *,
    display: bool = True,
    recent: bool | None = None,
    reuse_renderings=False,
) -> TaskPage:
    """The assignment if it is this user's and its task is enabled; 404 otherwise.

    ``display=False`` (an autosave, which answers with the save status only) leaves out what
    only the page shows (skipped, revision notice, guidelines link): three subqueries fewer
    in the most frequent request of all (issue 29), and lets the save's checks reuse the
    reports this process rendered within the last minute (``recent_reports``). It also
    keeps the report order the page drew as it is (no query): a report deleted since is
    left out when the reports are read, and the next page load drops it from the order.
    ``recent`` (default: ``not display``) says whether the reports may be the recent ones;
    a submit, which writes judgment rows, asks for neither the display state nor them.
    ``reuse_renderings`` (the task page) lets it show the renderings this process kept for
    the reports' current content (``page_reports``): no query for them."""
    if not user.is_authenticated:
        raise Http404("No annotator profile")
    try:
        # the annotator comes with the assignment (joined by its user): no query of its own
        assignments = Assignment.objects.select_related("study", "question", "annotator").exclude(
            status=Assignment.Status.WITHDRAWN  # reassigned: kept, not theirs now
        )
        if display:
            assignments = with_review_state(assignments).annotate(
                has_guidelines=Exists(Guidelines.objects.filter(study=OuterRef("study")))
            )
        assignment = assignments.get(pk=assignment_id, annotator__user=user)
        # held back by a qualification round: asked only where the study has one
        if (
            may_hold_back(assignment.study)
            and not released(Assignment.objects.filter(pk=assignment.pk)).exists()
        ):
            raise Assignment.DoesNotExist
    except Assignment.DoesNotExist:  # not theirs, held back, or they are no annotator
        raise Http404("No such assignment") from None
    annotator = assignment.annotator
    if (
        assignment.task not in (assignment.study.tasks or [])
        or assignment.task not in enabled_tasks
    ):
        raise Http404("This task is not available")
    versions = None
    if display or reuse_renderings or not assignment.report_order:
        versions = ensure_report_order(assignment)
    return TaskPage(
        assignment=assignment,
        annotator=annotator,
        recent_reports=not display if recent is None else recent,
        report_versions=versions if reuse_renderings else None,
    )


def ensure_report_order(assignment: Assignment) -> dict[int, tuple[str, int]] | None:
    """Draw the report order once (randomized) and keep it: stable across reloads. An
    assignment without a question (question authoring) has no reports: no query. A stored
    order is kept as it is (a released annotation may point at a textless report); a drawn
    one leaves out the empty reports.

    Returns the question's reports' public ids and content versions (read in the same
    query): what ``page_reports`` keys its kept renderings by."""
    if assignment.question_id is None:
        return None
    reports = Report.objects.filter(question_id=assignment.question_id)
    versions = {
        pk: (public_id, version)
        for pk, public_id, version in reports.values_list("pk", "public_id", "content_version")
    }
    valid = set(versions)
    order = [pk for pk in assignment.report_order or [] if pk in valid]
    if not order and valid:  # drawn now: never an empty report (issue 25)
        order = Assignment.shuffled(sorted(reports.readable().values_list("pk", flat=True)))
    if order != assignment.report_order:
        assignment.report_order = order
        assignment.save(update_fields=["report_order"])
    return versions


def progress_of(assignment: Assignment) -> Progress:
    before = Q(position__lt=assignment.position) | Q(
        position=assignment.position, pk__lt=assignment.pk
    )
    mine = Assignment.objects.filter(
        annotator_id=assignment.annotator_id, study_id=assignment.study_id
    )
    if may_hold_back(assignment.study):
        mine = released(mine)
    agg = mine.exclude(status=Assignment.Status.WITHDRAWN).aggregate(
        total=Count("pk"),
        before=Count("pk", filter=before),
        submitted=Count("pk", filter=Q(status=Assignment.Status.SUBMITTED)),
    )
    return Progress(index=agg["before"] + 1, total=agg["total"], submitted=agg["submitted"])


def next_assignment(assignment: Assignment, enabled_tasks) -> Assignment | None:
    """The next open assignment in this annotator's queue (same study first).

    Read as plain values, once per submit (issue 29): the queue's open assignments without
    the page's display state (only the skip flag matters here) and without building
    ``released``'s subqueries unless one of them is in a study that requires qualification
    (then ``released`` itself decides for those). What comes back carries what the redirect
    needs (``pk``, ``study_id``, ``question_id``, ``task``, ``position``), not a whole row."""
    rows = (
        Assignment.objects.filter(annotator_id=assignment.annotator_id, task__in=enabled_tasks)
        .exclude(status__in=[Assignment.Status.SUBMITTED, Assignment.Status.WITHDRAWN])
        .exclude(pk=assignment.pk)
        .exclude(Exists(Flag.objects.filter(assignment=OuterRef("pk"), skipped=True)))
        .values_list(
            "pk",
            "study_id",
            "question_id",
            "task",
            "position",
            "study__tasks",
            "study__config",
        )
    )
    candidates = [r for r in rows if r[3] in (r[5] or [])]
    held = {r[0] for r in candidates if requires_qualification(r[6])}  # released decides
    if held:
        kept = set(released(Assignment.objects.filter(pk__in=held)).values_list("pk", flat=True))
        candidates = [r for r in candidates if r[0] not in held or r[0] in kept]
    later = [
        r
        for r in candidates
        if r[1] == assignment.study_id and (r[4], r[0]) > (assignment.position, assignment.pk)
    ]
    found = (later or candidates or [None])[0]
    if found is None:
        return None
    pk, study_id, question_id, task, position = found[:5]
    return Assignment(
        pk=pk, study_id=study_id, question_id=question_id, task=task, position=position
    )


def open_draft(assignment: Assignment) -> Draft:
    draft, _ = Draft.objects.get_or_create(assignment=assignment)
    return draft
