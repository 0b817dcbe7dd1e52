"""The landing page after login: what this user can do, by role."""

from django.contrib.auth.decorators import login_required
from django.shortcuts import render

from annotation import roles
from annotation.models import AdjudicationRequest
from annotation.permissions import readable_studies, visible_assignments


def waiting_adjudications(annotator) -> int:
    """How many adjudication requests wait for ``annotator``: the home page and the queue
    both say so and link to them (the adjudication page is reached from nowhere else)."""
    return AdjudicationRequest.objects.filter(
        adjudicator=annotator, status=AdjudicationRequest.Status.OPEN
    ).count()


@login_required
def home(request):
    user_roles = roles.roles_of(request.user)
    context = {"roles": sorted(user_roles)}
    if roles.is_researcher(request.user):
        context["studies"] = readable_studies(request.user).order_by("name")
    if roles.is_annotator(request.user):
        context["assignments"] = (
            visible_assignments(request.user.annotator)  # as the queue: nothing withdrawn
            # the study names each row: the list mixes every study's tasks (a study's name
            # is the annotator's to see, never a system's)
            .select_related("question", "study")
            .order_by("position", "id")
        )
        context["adjudications"] = waiting_adjudications(request.user.annotator)
    return render(request, "annotation/home.html", context)
