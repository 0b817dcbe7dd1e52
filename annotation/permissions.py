"""Who may do what through the API (roles from :mod:`annotation.roles`).

The rule, in one place:

- anonymous: nothing (DRF answers 403; 401 when a bad token is sent);
- admin: everything;
- researcher: reads the studies they were added to (``StudyResearcher``), writes nothing;
  another study does not exist for them (404), like another annotator's assignment;
- annotator: reads only what belongs to their own assignments (assignments, the questions,
  rubrics and reports of those assignments, their own judgments), writes nothing through
  the API. What an annotator may not see does not exist for them: the viewsets scope their
  querysets (see the ``visible_*`` functions below), so another annotator's object is a 404,
  never a 403 that would confirm it exists.

Blinding (system names, system ids, report database ids) is the serializers' job: annotators
get their own serializers, which identify reports and rubrics by ``public_id`` only.
"""

from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import Http404
from django.shortcuts import get_object_or_404
from rest_framework.permissions import SAFE_METHODS, BasePermission

from annotation import roles
from annotation.models import Annotator, Assignment, Report, Study
from annotation.models.quality import released
from concord.query import is_digits


def sees_everything(user) -> bool:
    """Researchers and admins read their studies' data unblinded (not scoped to assignments)."""
    return roles.is_researcher(user)


def readable_studies(user) -> QuerySet:
    """The studies ``user`` reads as staff: every study for an admin, the studies a
    researcher was added to, none for anyone else (annotators read through assignments)."""
    if roles.is_admin(user):
        return Study.objects.all()
    if roles.is_researcher(user):
        return Study.objects.filter(researchers=user)
    return Study.objects.none()


def require_staff(user, refusal: str) -> None:
    """403 ``refusal`` unless ``user`` is a researcher or an admin."""
    if not roles.is_researcher(user):
        raise PermissionDenied(refusal)


def staff_study_or_404(user, study_id: int, refusal: str) -> Study:
    """The study for a researcher's or admin's page or endpoint: 403 ``refusal`` for other
    roles, 404 for a study the researcher was not added to (it does not exist for them)."""
    require_staff(user, refusal)
    return get_object_or_404(readable_studies(user), pk=study_id)


#: The one answer to a list filtered by a study the caller does not read: the same for a
#: study that does not exist, so the answer says nothing of other researchers' studies.
NO_SUCH_STUDY = "No such study among those you read."


def listable_studies(user) -> QuerySet:
    """The studies a list's ``?study=`` may name: those ``user`` reads as staff
    (:func:`readable_studies`), or, for an annotator, those they hold an assignment in."""
    annotator = annotator_of(user)
    if annotator is not None:
        return Study.objects.filter(assignments__annotator=annotator).distinct()
    return readable_studies(user)


def listed_study_or_404(user, study_id: int) -> int:
    """``study_id`` when a list of ``user``'s may be filtered by it, else a 404
    (:data:`NO_SUCH_STUDY`). Every list's ``study`` filter goes through here: it answered
    200 with ``count: 0`` for another researcher's study and for one that does not exist,
    so a script could not tell a wrong id from an empty study (found by a tester with a
    researcher's token)."""
    if not listable_studies(user).filter(pk=study_id).exists():
        raise Http404(NO_SUCH_STUDY)
    return study_id


def staff_study_by_key_or_404(user, key: int | str, refusal: str) -> Study:
    """The study a report URL names by id or by name (``/reports/<id or name>/…``), by the
    rule of :func:`staff_study_or_404`: digits are an id (the report page's id route comes
    before its name route), anything else a name. A study that does not exist and one the
    researcher does not read are the same 404 (:data:`NO_SUCH_STUDY`), by id or by name:
    the downloads took an id only, so a name answered an HTML 404 while a missing id
    answered JSON (found by a tester with a researcher's token)."""
    require_staff(user, refusal)
    text = str(key)
    lookup = {"pk": int(text)} if is_digits(text) else {"name": text}
    study = readable_studies(user).filter(**lookup).first()
    if study is None:
        raise Http404(NO_SUCH_STUDY)
    return study


#: Why a user who is neither researcher nor admin may not export a study's data.
EXPORT_REFUSAL = "Only the study's researchers and admins may export its data."


def exportable_study_or_404(user, study_id: int) -> Study:
    """The one rule of every export of a study's data, judgments included (the study page's
    downloads, ``/api/studies/{id}/export/``, a token's fetch): its researchers and admins
    read it, blinded as the API blinds it (annotators by pseudonym, reports by public id);
    other roles get 403, a researcher not added to the study 404 (issue 24: researchers
    were refused some judgment formats and given the same records through others).
    ``study_id`` may come from the API's URL as text: one that is not an id is a 404."""
    if not is_digits(str(study_id)):
        require_staff(user, EXPORT_REFUSAL)
        raise Http404(f"No study {study_id!r}.")
    return staff_study_or_404(user, int(study_id), EXPORT_REFUSAL)


def staff_run_or_404(user, runs: QuerySet, run_id: int, refusal: str):
    """A run (judge run, report run) of ``runs`` whose study ``user`` reads, by the same
    rule as :func:`staff_study_or_404`."""
    require_staff(user, refusal)
    return get_object_or_404(runs.filter(study__in=readable_studies(user)), pk=run_id)


def annotator_of(user) -> Annotator | None:
    """The annotator profile the API scopes this user to, or None when not scoped."""
    if sees_everything(user) or not roles.is_annotator(user):
        return None
    return user.annotator


class RolePermission(BasePermission):
    """Admins write; researchers read; annotators read where the view allows them.

    A view opts annotators in with ``annotator_readable = True`` and must then scope its
    queryset to the annotator's own objects.
    """

    message = "Your role does not allow this."

    def has_permission(self, request, view) -> bool:
        user = request.user
        if roles.is_admin(user):
            return True
        if request.method not in SAFE_METHODS:
            return False
        if roles.is_researcher(user):
            return True
        return bool(getattr(view, "annotator_readable", False)) and roles.is_annotator(user)


class IsAdmin(BasePermission):
    """Admin only, whatever the method (imports, destructive actions)."""

    message = "Only an admin may do this."

    def has_permission(self, request, view) -> bool:
        return roles.is_admin(request.user)


# --- What an annotator may see -------------------------------------------------------------


def visible_assignments(annotator: Annotator, assignments: QuerySet | None = None) -> QuerySet:
    """The annotator's assignments they may still see (of ``assignments``, default all):
    what the queue lists and the task page opens. Neither what a qualification round holds
    back (see :func:`annotation.models.quality.released`; issue 24) nor what was withdrawn
    from them (reassigned to someone else) gives access to its question, reports, rubrics,
    judgments or history; another assignment of theirs on the same question still does."""
    assignments = Assignment.objects.all() if assignments is None else assignments
    return released(assignments.filter(annotator=annotator)).exclude(
        status=Assignment.Status.WITHDRAWN
    )


def visible_question_ids(annotator: Annotator) -> QuerySet:
    """The questions of the annotator's own assignments (a subquery, no extra query)."""
    return visible_assignments(annotator).values("question_id")


def visible_rubric_question_ids(annotator: Annotator) -> QuerySet:
    """The questions whose rubrics the annotator's own assignments show (a subquery): those
    of an assignment of a task that shows rubrics (``Needs.rubrics``: rubric coverage, item
    quality, comparison). Least privilege, as :func:`visible_reports`: a task about the
    question or its reports that shows no rubric gives no rubric through the API."""
    from annotation.readiness import RUBRIC_TASKS  # the task registry imports this module

    return visible_assignments(annotator).filter(task__in=RUBRIC_TASKS).values("question_id")


def visible_reports(annotator: Annotator, question_id: int | None = None) -> QuerySet:
    """The reports the annotator's own assignments show (of one question if
    ``question_id``): least privilege, the API gives no report a task page does not show.

    An assignment of a task that shows reports (``TaskSpec.shows_reports``: the planner
    gives it a ``report_order``) shows exactly those of its order (a claim check or a
    pairwise task may show one or two of three); one of those without an order yet shows
    what its page will draw at first opening, every readable report of its question
    (``annotation.annotate.page.ensure_report_order``). An assignment of a task about the
    question (query quality, triage, rubric item quality, nugget importance …) shows no
    report, whatever order its page once drew: another task's reports of the same
    question do not become readable through it. One query to read the assignments; the
    result is a lazy queryset. ``question_id`` narrows what is read and the id list the
    query carries: an annotator with thousands of assignments asking for one question's
    reports (the API's ``?question=``) should not pay for all of them.
    """
    from annotation.readiness import REPORT_TASKS  # the task registry imports this module

    ordered: set[int] = set()
    question_ids: set[int] = set()
    open_questions: set[int] = set()
    assignments = visible_assignments(annotator).filter(task__in=REPORT_TASKS)
    if question_id is not None:
        assignments = assignments.filter(question_id=question_id)
    for question, order in assignments.values_list("question_id", "report_order"):
        question_ids.add(question)
        if order:
            ordered.update(i for i in order if isinstance(i, int))
        else:
            open_questions.add(question)
    return Report.objects.filter(id__in=ordered, question_id__in=question_ids) | (
        Report.objects.readable().filter(question_id__in=open_questions)
    )
