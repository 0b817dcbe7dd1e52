"""The landing page after login: what this user can do, by role."""

from django.contrib.auth.decorators import login_required
from django.db.models import Count, Exists, OuterRef
from django.shortcuts import render

from annotation import roles
from annotation.models import AdjudicationRequest, Assignment, Flag
from annotation.models.quality import held_studies, qualification_tasks
from annotation.permissions import readable_studies, visible_assignments


def waiting_adjudications(annotator) -> int:
    """How many adjudication requests wait for ``annotator``: the home page and the queue
    both say so and link to them (the adjudication page is reached from nowhere else)."""
    return AdjudicationRequest.objects.filter(
        adjudicator=annotator, status=AdjudicationRequest.Status.OPEN
    ).count()


def qualification_notices(annotator) -> dict[int, dict]:
    """Study id -> where ``annotator`` stands in each study whose qualification round they
    have not passed (``held_studies``): ``state`` "failed" (decided: no further tasks),
    "qualifying" (undecided, qualification items left for them to do) or "pending"
    (undecided, nothing left to do: the study admin's turn), and ``waiting``, how many of
    their tasks there the round holds back (what they will be given once they qualify).
    What the queue and the home page both say (``partials/qualification_notice.html``),
    never which answers were wrong. Four queries, however many studies."""
    held = held_studies(annotator)
    if not held:
        return {}
    pks = [s.pk for s in held]
    visible = visible_assignments(annotator).filter(study_id__in=pks)
    items = qualification_tasks([s.pk for s, result in held.items() if result is None])
    to_do = set()
    if items:
        open_items = (
            visible.exclude(status=Assignment.Status.SUBMITTED)
            .exclude(Exists(Flag.objects.filter(assignment=OuterRef("pk"), skipped=True)))
            .values_list("study_id", "task", "question_id")
        )
        to_do = {row[0] for row in open_items if row in items}
    waiting = dict(
        Assignment.objects.filter(annotator=annotator, study_id__in=pks)
        .exclude(status=Assignment.Status.WITHDRAWN)
        .exclude(pk__in=visible.values("pk"))
        .order_by()
        .values("study_id")
        .annotate(n=Count("pk"))
        .values_list("study_id", "n")
    )
    return {
        study.pk: {
            "study": study,
            "state": "failed"
            if result is False
            else "qualifying"
            if study.pk in to_do
            else "pending",
            "waiting": waiting.get(study.pk, 0),
        }
        for study, result in held.items()
    }


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
        notices = qualification_notices(request.user.annotator)
        context["qualification_notices"] = sorted(
            notices.values(), key=lambda n: (n["study"].name, n["study"].pk)
        )
    return render(request, "annotation/home.html", context)
