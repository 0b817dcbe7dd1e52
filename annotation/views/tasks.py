"""``/tasks/<id>/``: the old read-only task page, now a redirect to ``/annotate/<id>/``.

Links to it may survive in e-mails and bookmarks. The permission check stays: anyone but the
assignment's annotator gets the same 404 as for a missing id, so the redirect never tells
whether an assignment exists.
"""

from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect
from django.views.decorators.http import require_GET

from annotation import roles
from annotation.models import Assignment


@login_required
@require_GET
def task_page(request, assignment_id: int):
    """404 for anyone but the assignment's annotator (admins included: it is their task)."""
    annotator = getattr(request.user, "annotator", None)
    if not roles.is_annotator(request.user) or annotator is None:
        raise Http404("No such task.")
    if not Assignment.objects.filter(pk=assignment_id, annotator=annotator).exists():
        raise Http404("No such task.")
    return redirect("annotate:task", pk=assignment_id)
