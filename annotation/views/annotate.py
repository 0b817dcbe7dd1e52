"""Task pages for annotators: thin views over annotation.annotate."""

import secrets
from functools import wraps

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Exists, OuterRef, Subquery
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render, resolve_url
from django.template.loader import render_to_string
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from annotation.annotate import drafts, review
from annotation.annotate.base import TaskSpec
from annotation.annotate.page import (
    TaskPage,
    annotator_of,
    load_page,
    next_assignment,
    progress_of,
    with_review_state,
)
from annotation.annotate.registry import SPECS
from annotation.models import (
    Assignment,
    Draft,
    DraftVersion,
    Flag,
    Guidelines,
    Reopening,
    Report,
    Study,
)
from annotation.models.quality import frozen, is_qualification_item
from annotation.permissions import visible_assignments
from annotation.views.access import admin_required
from annotation.views.home import qualification_notices, waiting_adjudications
from concord.errors import refused_page

GUIDELINE_TASKS = set(SPECS)


def signed_in_to_save(view=None, *, submitting: bool = False):
    """``login_required`` for what a task page sends in the background (htmx: autosave,
    submit): a page whose session has ended (signed out in another tab, the session
    expired) gets a 401 saying so, not the login page. Why: the browser follows a
    redirect by itself and hands the page a 200 holding the login form, which the page
    took for an acknowledged save and so dropped the copy of the answers it keeps until
    the server has them (lost work). The page keeps its answers on a 401 and saves them
    again once the annotator has signed in (``static/js/annotate.js``). A plain form post
    (no script) is redirected to the login page as before. ``submitting``: the message
    says "Not submitted"."""
    if view is None:
        return lambda v: signed_in_to_save(v, submitting=submitting)
    required = login_required(view)

    @wraps(view)
    def wrapped(request, pk: int, *args, **kwargs):
        if request.user.is_authenticated or not request.htmx:
            return required(request, pk, *args, **kwargs)
        task = reverse("annotate:task", args=[pk])
        html = render_to_string(
            "annotation/partials/signed_out.html",
            {"login_url": f"{resolve_url(settings.LOGIN_URL)}?next={task}",
             "submitted": submitting},
            request=request,
        )  # fmt: skip
        return HttpResponse(html, status=401)

    return wrapped


def _base_version(request) -> int | None:
    try:
        return int(request.POST.get("version", ""))
    except ValueError:
        return None


def _refused(request) -> drafts.SaveResult | None:
    """What makes a save or submit refused before it is read: a field over the cap, a
    ``version`` that is no number (each a 422 naming the field; nothing changes)."""
    field = drafts.oversized_field(request.POST)
    if field is not None:
        return drafts.too_long(field, _base_version(request) or 0)
    return drafts.malformed_version(request.POST)


def _client(request) -> drafts.Client:
    """The page load that sends this save (a random id in the form) and the one it resumes."""
    return drafts.Client(
        id=request.POST.get("client", "")[:40], resume=request.POST.get("resume", "")[:40]
    )


def _status(request, result: drafts.SaveResult, *, submitted=False) -> HttpResponse:
    html = render_to_string(
        "annotation/partials/save_status.html",
        {"result": result, "oob": True, "submitted": submitted},
        request=request,
    )
    return HttpResponse(html, status=result.status)


def _page_response(request, page, payload, *, draft, result=None, status=200, preview=False):
    spec = SPECS[page.assignment.task]
    # a failed qualification freezes the annotator's work in the study (quality.frozen)
    is_frozen = not preview and frozen(page.assignment)
    context = {
        "page": page,
        "spec": spec,
        "payload": payload,
        "draft": draft,
        "client_id": secrets.token_hex(8),
        # a preview is read-only as a submitted page is: no autosave, no submit; so is
        # frozen work
        "submitted": preview or is_frozen or draft.submitted_version is not None,
        "preview": preview,
        "frozen": is_frozen,
        "unstored": _unstored(spec, page, payload, draft),
        "progress": progress_of(page.assignment),
        "result": result,
        "task_label": Study.Task(page.assignment.task).label,
        "ties_allowed": page.study.setting("ties_allowed"),
        "three_way_tie_allowed": page.study.setting("three_way_tie_allowed"),
        "guidelines_template": f"annotation/annotate/guidelines/{spec.key}.html",
        "flag_reasons": [c for c in Flag.Reason.choices if c[0] != Flag.Reason.NONE_GIVEN],
        "author_may_reopen": not (preview or is_frozen)
        and review.author_may_reopen(page.assignment),
        **spec.context(payload, page),
    }
    return render(request, spec.template, context, status=status)


def _unstored(spec, page, payload, draft):
    """What the submitted answers lack because they were stored without it (the demo, an
    import: ``TaskSpec.unstored``): those shown read-only, or, when reopened, those of the
    version reopened (one query), with what the answers now still need. None for work
    never submitted."""
    a = page.assignment
    if type(spec).unstored is TaskSpec.unstored:  # stores its whole answer: nothing to read
        return None
    if draft.submitted_version is not None or a.status == Assignment.Status.SUBMITTED:
        return spec.unstored(payload, payload, page)
    if getattr(a, "revision_reason", None) is None:
        return None
    reopened = (
        DraftVersion.objects.filter(
            assignment=a,
            version=Subquery(
                Reopening.objects.filter(assignment=a)
                .order_by("-created_at", "-pk")
                .values("version")[:1]
            ),
        )
        .values_list("payload", flat=True)
        .first()
    )
    return spec.unstored(reopened, payload, page) if reopened is not None else None


@login_required
@require_GET
def queue(request):
    annotator = annotator_of(request.user)
    assignments = list(
        with_review_state(visible_assignments(annotator))
        .select_related("study", "question")
        .order_by("study__name", "position", "pk")
    )
    studies: dict[int, dict] = {}
    # a study requiring qualification they have not passed: listed even when nothing of it
    # is shown yet, with where their round stands (failed / to do / waiting for the admin)
    for pk, notice in qualification_notices(annotator).items():
        studies[pk] = {"study": notice["study"], "rows": [], "submitted": 0, "notice": notice}
    for a in assignments:
        group = studies.setdefault(a.study_id, {"study": a.study, "rows": [], "submitted": 0})
        a.available = a.task in SPECS and a.task in (a.study.tasks or [])
        a.task_label = Study.Task(a.task).label if a.task in Study.Task.values else a.task
        group["rows"].append(a)
        group["submitted"] += a.status == Assignment.Status.SUBMITTED
    ordered = sorted(studies.values(), key=lambda g: (g["study"].name, g["study"].pk))
    context = {"studies": ordered, "adjudications": waiting_adjudications(annotator)}
    return render(request, "annotation/annotate/queue.html", context)


@login_required
@require_GET
def task_page(request, pk: int):
    page = load_page(request.user, pk, SPECS, reuse_renderings=True)
    spec = SPECS[page.assignment.task]
    draft = drafts.touch(page, spec)
    payload = drafts.answers_of(spec, page, draft)
    return _page_response(request, page, payload, draft=draft)


@admin_required
@require_GET
def preview(request, pk: int):
    """Any assignment's task page as its annotator sees it (blinded: reports by letter),
    read-only, for an admin checking a task before or after it is done (issue 26). Writes
    nothing: no draft is made, the opening time and the report order are not recorded (an
    order not drawn yet is shown in id order, as no annotator will see it)."""
    try:
        assignment = (
            with_review_state(Assignment.objects.select_related("study", "question", "annotator"))
            .annotate(has_guidelines=Exists(Guidelines.objects.filter(study=OuterRef("study"))))
            .get(pk=pk)
        )
    except Assignment.DoesNotExist:
        raise Http404(f"No assignment {pk}") from None
    if assignment.task not in SPECS:
        raise Http404(f"assignment {pk}: task {assignment.task!r} has no page")
    if not assignment.report_order and assignment.question_id is not None:
        assignment.report_order = sorted(
            Report.objects.filter(question_id=assignment.question_id).values_list("pk", flat=True)
        )
    page = TaskPage(assignment=assignment, annotator=assignment.annotator)
    draft = Draft.objects.filter(assignment=assignment).first() or Draft(assignment=assignment)
    spec = SPECS[assignment.task]
    payload = drafts.answers_of(spec, page, draft)
    return _page_response(request, page, payload, draft=draft, preview=True)


@signed_in_to_save
@require_POST
def autosave(request, pk: int):
    page = load_page(request.user, pk, SPECS, display=False)
    spec = SPECS[page.assignment.task]
    refused = _refused(request)
    if refused is not None:
        return _status(request, refused)
    payload = spec.parse(request.POST, page)
    result = drafts.save_draft(spec, page, payload, _base_version(request), _client(request))
    return _status(request, result)


@signed_in_to_save(submitting=True)
@require_POST
def submit(request, pk: int):
    # what only the page shows is read again on the rare refusal without htmx (below)
    page = load_page(request.user, pk, SPECS, display=False, recent=False)
    spec = SPECS[page.assignment.task]
    refused = _refused(request)
    if refused is not None:
        return _status(request, refused, submitted=True)
    payload = spec.parse(request.POST, page)
    result = drafts.submit(spec, page, payload, _base_version(request), _client(request))
    if result.ok:
        target = _next_url(page.assignment)
        messages.success(request, "Submitted. Thank you!")
        if request.htmx:
            response = HttpResponse(status=204)
            response["HX-Redirect"] = target
            return response
        return redirect(target)
    if request.htmx:
        return _status(request, result, submitted=True)
    page = load_page(request.user, pk, SPECS)
    draft = page.assignment.draft
    return _page_response(request, page, payload, draft=draft, result=result, status=result.status)


@login_required
@require_GET
def guidelines(request, task: str):
    if task not in GUIDELINE_TASKS:
        raise Http404("No guidelines for this task")
    return render(
        request,
        "annotation/annotate/guidelines_page.html",
        {
            "task_label": Study.Task(task).label,
            "guidelines_template": f"annotation/annotate/guidelines/{task}.html",
        },
    )


def _next_url(assignment) -> str:
    """The next open task, or the queue. After a qualification item, only another
    qualification item or the queue: where a submit leads must not tell whether the round
    was passed (a passed annotator's next task would be held-back work; issue 24)."""
    following = next_assignment(assignment, SPECS)
    if following and is_qualification_item(assignment) and not is_qualification_item(following):
        following = None
    return reverse("annotate:task", args=[following.pk]) if following else reverse("annotate:queue")


@login_required
@require_POST
def flag(request, pk: int):
    """Flag the question or a report of this task with a reason; "skip" also moves on."""
    page = load_page(request.user, pk, SPECS)
    skip = request.POST.get("action") == "skip"
    try:
        review.flag(
            page,
            reason=request.POST.get("reason", ""),
            about=request.POST.get("about", ""),
            note=request.POST.get("note", ""),
            skip=skip,
        )
    except review.Refused as refused:
        return refused_page(request, f"Not flagged: {refused}", reverse("annotate:task", args=[pk]))
    if skip:
        said = request.POST.get("reason")
        messages.success(
            request,
            "Skipped and flagged: the study's admins will see why."
            if said
            else "Skipped. You can come back to it from your queue.",
        )
        return redirect(_next_url(page.assignment))
    messages.success(request, "Flag sent: the study's admins will see it.")
    return redirect("annotate:task", pk=pk)


@login_required
@require_POST
def reopen(request, pk: int):
    """The author reopens their submitted judgment, within the study's window."""
    page = load_page(request.user, pk, SPECS)
    try:
        review.reopen(page.assignment, by=request.user, by_author=True)
    except review.Refused as refused:
        back = reverse("annotate:task", args=[pk])
        return refused_page(request, f"Not reopened: {refused}", back)
    messages.success(request, "Reopened: your answers can be changed until you submit again.")
    return redirect("annotate:task", pk=pk)
