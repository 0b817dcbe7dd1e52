"""Admin pages for what annotators flagged, and returning judgments for revision (issue 15).

Thin: the rules are in :mod:`annotation.annotate.review`."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Exists, OuterRef
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from annotation.annotate import guidelines, review
from annotation.models import Assignment, Flag, GoldItem, Guidelines, Reopening, Study
from concord.errors import refused_page
from concord.query import is_digits

from .access import admin_required


@admin_required
@require_GET
def study_review(request, study_id: int):
    study = get_object_or_404(Study, pk=study_id)
    flags = (
        Flag.objects.filter(assignment__study=study)
        .select_related("annotator", "assignment__question", "report__system")
        .order_by("-created_at", "-pk")
    )
    submitted = (
        Assignment.objects.filter(study=study, status=Assignment.Status.SUBMITTED)
        .select_related("annotator", "question")
        .annotate(
            flagged=Exists(Flag.objects.filter(assignment=OuterRef("pk"))),
            qualifying=Exists(  # never returned for revision (review.reopen says why)
                GoldItem.objects.filter(
                    study_id=OuterRef("study_id"),
                    task=OuterRef("task"),
                    question_id=OuterRef("question_id"),
                    purpose=GoldItem.Purpose.QUALIFICATION,
                )
            ),
        )
        .order_by("-submitted_at", "-pk")
    )
    reopenings = (
        Reopening.objects.filter(assignment__study=study)
        .select_related("by", "assignment__annotator", "assignment__question")
        .order_by("-created_at", "-pk")
    )
    labels = dict(Study.Task.choices)
    flags, submitted = list(flags), list(submitted)
    for row in [*submitted, *(f.assignment for f in flags)]:
        row.task_label = labels.get(row.task, row.task)
    return render(
        request,
        "annotation/studies/review.html",
        {
            "study": study,
            "flags": flags,
            "submitted": submitted,
            "reopenings": reopenings,
        },
    )


@admin_required
@require_POST
def return_for_revision(request, study_id: int):
    study = get_object_or_404(Study, pk=study_id)
    raw = request.POST.get("assignment", "")
    assignment = (
        Assignment.objects.filter(study=study, pk=int(raw)).select_related("study").first()
        if is_digits(raw)
        else None
    )
    back = reverse("studies:review", args=[study.pk])
    if assignment is None:
        said = f"Not returned: assignment: {raw!r} is not an assignment of study {study.name!r}."
        return refused_page(request, said, back)
    try:
        review.reopen(
            assignment, by=request.user, by_author=False, reason=request.POST.get("reason", "")
        )
    except review.Refused as refused:
        return refused_page(request, f"Not returned: {refused}", back)
    messages.success(request, f"Assignment {assignment.pk} returned to its annotator for revision.")
    return redirect("studies:review", study_id=study.pk)


@admin_required
@require_http_methods(["GET", "POST"])
def study_guidelines(request, study_id: int):
    """Upload (or replace) the study's guidelines file."""
    study = get_object_or_404(Study, pk=study_id)
    error, status = "", 200
    if request.method == "POST":
        upload = request.FILES.get("file")
        if upload is None:
            error, status = "file: choose a file to upload.", 400
        else:
            try:
                guidelines.store(study, upload, request.user)
            except guidelines.Refused as refused:
                error, status = str(refused), 400
            else:
                messages.success(request, "Guidelines uploaded: every task page links to them.")
                return redirect("studies:guidelines", study_id=study.pk)
    current = (
        Guidelines.objects.filter(study=study)
        .only("filename", "size", "uploaded_at", "content_type")
        .first()
    )
    return render(
        request,
        "annotation/studies/guidelines.html",
        {"study": study, "current": current, "error": error},
        status=status,
    )


@login_required
@require_GET
def guidelines_file(request, study_id: int):
    """The study's guidelines, shown in the browser (PDF viewer) for whoever may read them."""
    study = get_object_or_404(Study, pk=study_id)
    if not guidelines.may_read(request.user, study):
        raise Http404("No guidelines for you here")
    doc = Guidelines.objects.filter(study=study).first()
    if doc is None:
        raise Http404("This study has no guidelines file")
    response = HttpResponse(guidelines.content(doc), content_type=doc.content_type)
    response["Content-Disposition"] = f'inline; filename="{doc.filename.replace(chr(34), "")}"'
    response["X-Content-Type-Options"] = "nosniff"
    return response
