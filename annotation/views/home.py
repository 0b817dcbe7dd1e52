"""The landing page after login: what this user can do, by role."""

from django.contrib.auth.decorators import login_required
from django.shortcuts import render

from annotation import roles
from annotation.models import AdjudicationRequest
from annotation.permissions import readable_studies, visible_assignments


@login_required
def home(request):
    user_roles = roles.roles_of(request.user)
    context = {"roles": sorted(user_roles)}
    if roles.is_researcher(request.user):
        context["studies"] = readable_studies(request.user).order_by("name")
    if roles.is_annotator(request.user):
        context["assignments"] = (
            visible_assignments(request.user.annotator)  # as the queue: nothing withdrawn
            .select_related("question")
            .order_by("position", "id")
        )
        context["adjudications"] = AdjudicationRequest.objects.filter(
            adjudicator=request.user.annotator, status=AdjudicationRequest.Status.OPEN
        ).count()
    return render(request, "annotation/home.html", context)
