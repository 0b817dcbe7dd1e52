"""History pages: an annotator's own saved versions; every version of a study for admins."""

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from annotation import history, roles
from annotation.models import Annotator, Assignment, Study
from annotation.permissions import visible_assignments
from annotation.views.access import admin_required
from concord.query import is_digits


def _int_param(request, name: str):
    value = request.GET.get(name, "")
    if not value:
        return None
    if not is_digits(value):
        raise Http404(f"{name}: {value!r} is not an id")
    return int(value)


@login_required
@require_GET
def my_history(request):
    """The versions of the annotator's own work (``?assignment=`` narrows to one task)."""
    annotator = getattr(request.user, "annotator", None)
    if annotator is None or not roles.is_annotator(request.user):
        raise Http404("No annotator profile")
    assignment_id = _int_param(request, "assignment")
    assignment = None
    if assignment_id is not None:
        # another annotator's assignment, or one held back or withdrawn, does not exist here
        assignment = get_object_or_404(
            visible_assignments(annotator).select_related("question"), pk=assignment_id
        )
    page = history.versions(
        history.of_annotator(annotator, assignment_id), page_number=request.GET.get("page")
    )
    mine = visible_assignments(annotator)
    if assignment_id is not None:
        mine = mine.filter(pk=assignment_id)
    unopened = history.unopened(mine)
    return render(
        request,
        "annotation/history.html",
        {
            "page": page,
            "assignment": assignment,
            "mine": True,
            # listed on the first page, newest submissions first; counted on every page
            "unopened": unopened if page.number == 1 else [],
            "rows": history.in_time_order(unopened if page.number == 1 else [], page.entries),
            "total": page.paginator.count + len(unopened),
            "coalesce": settings.CONCORD_AUTOSAVE_COALESCE_SECONDS,
        },  # fmt: skip
    )


@admin_required
@require_GET
def study_history(request, study_id: int):
    """Every version of every judgment of the study: who saved it, when, what."""
    study = get_object_or_404(Study, pk=study_id)
    annotator_id = _int_param(request, "annotator")
    assignment_id = _int_param(request, "assignment")
    page = history.versions(
        history.of_study(study, annotator_id=annotator_id, assignment_id=assignment_id),
        page_number=request.GET.get("page"),
        labels=False,
    )
    annotators = Annotator.objects.filter(assignments__study=study).distinct().order_by("pseudonym")
    theirs = Assignment.objects.filter(study=study)
    if annotator_id is not None:
        theirs = theirs.filter(annotator_id=annotator_id)
    if assignment_id is not None:
        theirs = theirs.filter(pk=assignment_id)
    unopened = history.unopened(theirs)
    return render(
        request,
        "annotation/history.html",
        {
            "page": page,
            "study": study,
            "annotators": annotators,
            "annotator_id": annotator_id,
            "assignment_id": assignment_id,
            "mine": False,
            "unopened": unopened if page.number == 1 else [],
            "rows": history.in_time_order(unopened if page.number == 1 else [], page.entries),
            "total": page.paginator.count + len(unopened),
        },
    )
