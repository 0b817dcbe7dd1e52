"""Study pages for admins (setup, import, assignment, invitations, exports) and progress
pages that researchers may read too. Thin: parse a form, call ``studio.studyadmin``,
render. Every POST is validated server-side; an error names the field and changes nothing.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import Count
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from annotation import readiness, roles
from annotation.exporters import JUDGMENT_FORMATS, export_judgments, judgment_records
from annotation.importers import ImportFailed, run
from annotation.models import Annotator, Question, Report, Rubric, Study, System
from annotation.permissions import exportable_study_or_404, readable_studies
from annotation.views.access import admin_required, researcher_required
from concord.download_methods import CHECKED_BY_VIEW, download_methods
from concord.token_auth import accepts_token, refusal, wants_json
from metaeval.adjudication import adjudication_results
from studio.studyadmin import (
    StudyAdminError,
    adjudication,
    authoring,
    expertise,
    planning,
    progress,
    question_fields,
)
from studio.studyadmin.downloads import download_panel
from studio.studyadmin.exports import has_pairwise_bundle, pairwise_bundle, pairwise_bundle_zip
from studio.studyadmin.forms import (
    AdjudicationForm,
    AuthoringForm,
    ExpertiseForm,
    InviteForm,
    PlanForm,
    QuestionFieldsForm,
    QuestionFieldsUploadForm,
    ReassignForm,
    ReviewForm,
    StudyForm,
    StudySettingsForm,
    UploadForm,
)
from studio.studyadmin.invitations import invite

CONTENT_TYPES = {
    "json": "application/json",
    "jsonl": "application/x-ndjson",
    "csv": "text/csv; charset=utf-8",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "parquet": "application/vnd.apache.parquet",
}


def _download(data, filename: str, content_type: str) -> HttpResponse:
    response = HttpResponse(data, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def _slug(study: Study) -> str:
    return "".join(c if c.isalnum() else "_" for c in study.name).strip("_") or f"study{study.pk}"


# --- list and setup -----------------------------------------------------------------------


@researcher_required
@require_http_methods(["GET", "POST"])
def study_list(request):
    form = StudyForm(request.POST or None)
    if request.method == "POST":
        if not roles.is_admin(request.user):
            raise PermissionDenied("Only an admin may create a study.")
        if form.is_valid():
            study = form.save()
            messages.success(request, f"Study “{study.name}” created.")
            return redirect("studies:detail", study_id=study.pk)
    studies = (
        readable_studies(request.user)
        .annotate(
            n_questions=Count("questions", distinct=True),
            n_assignments=Count("assignments", distinct=True),
        )
        .order_by("name")
    )
    return render(
        request,
        "annotation/studies/list.html",
        {"studies": studies, "form": form, "is_admin": roles.is_admin(request.user)},
    )


def _export_links(study: Study, downloads) -> dict:
    """What the "Export results" links offer: the judgment formats and whether the study
    holds a judgment (``has_judgments``, as the Download panel's judgments entry says:
    ``downloads``) and a pairwise record (``has_pairwise``), so a study with none says
    "nothing to write yet" instead of linking a certain 404."""
    return {
        "downloads": downloads,
        "judgment_formats": JUDGMENT_FORMATS,
        "has_judgments": any(w.kind == "judgments" and not w.empty for w in downloads),
        "has_pairwise": has_pairwise_bundle(study),
    }


def _detail_context(study: Study) -> dict:
    supported = readiness.supported_tasks(study)
    return {
        "study": study,
        "enabled_tasks": [readiness.task_label(t) for t in study.tasks or ()],
        "supported_tasks": [
            readiness.task_label(t) for t in supported if t not in (study.tasks or ())
        ],
        "counts": {
            "questions": Question.objects.filter(study=study).count(),
            "reports": Report.objects.filter(question__study=study).count(),
            "rubrics": Rubric.objects.filter(question__study=study).count(),
            "annotators": Annotator.objects.filter(user__isnull=False).count(),
        },
        "systems": System.objects.filter(study=study).annotate(n=Count("reports")),
        "authored": authoring.authored_questions(study),
        "review_choices": Question.Review,
        "adjudication_results": adjudication_results(study.pk),
        # never enabled by an import (readiness.PERSONAL): said beside its form, not first
        # learnt from a refusal
        "adjudication_enabled": Study.Task.RELEVANCE_ADJUDICATION in (study.tasks or ()),
        **_export_links(study, download_panel(study)),
    }


def _forms(study: Study, **bound) -> dict:
    """The forms of the study page; ``bound`` replaces some with the ones just posted."""
    forms = {
        "settings_form": StudySettingsForm(study),
        "upload_form": UploadForm(),
        "reassign_form": ReassignForm(study),
        "adjudication_form": AdjudicationForm(study),
        "authoring_form": AuthoringForm(study),
    }
    return {**forms, **bound}


def _detail_form_post(request, study, form_key: str, form, act, *, refused: str):
    """A form posted from the study's detail page: ``act(cleaned_data)`` does the work and
    returns (success message, page to go to). A field error, or a ``StudyAdminError`` that
    ``act`` raises before writing anything, shows the detail page again with the field
    marked and ``refused`` said, status 400."""
    if form.is_valid():
        try:
            message, target = act(form.cleaned_data)
        except StudyAdminError as exc:
            form.add_error(exc.field if exc.field in form.fields else None, exc.message)
        else:
            messages.success(request, message)
            return redirect(target, study_id=study.pk)
    messages.error(request, refused)
    context = {**_detail_context(study), **_forms(study, **{form_key: form})}
    return render(request, "annotation/studies/detail.html", context, status=400)


@admin_required
@require_GET
def study_detail(request, study_id: int):
    study = get_object_or_404(Study, pk=study_id)
    return render(
        request,
        "annotation/studies/detail.html",
        {**_detail_context(study), **_forms(study)},
    )


@admin_required
@require_POST
def study_settings(request, study_id: int):
    study = get_object_or_404(Study, pk=study_id)
    form = StudySettingsForm(study, request.POST)

    def act(d):
        with transaction.atomic():
            study.tasks, study.tasks_chosen = d["tasks"], True
            study.config = {**study.config, **form.config()}
            study.save(update_fields=["tasks", "tasks_chosen", "config"])
            study.researchers.set(d["researchers"])
        return "Tasks, researchers and settings saved.", "studies:detail"

    return _detail_form_post(
        request, study, "settings_form", form, act,
        refused="Nothing was saved: fix the fields marked below.",
    )  # fmt: skip


@admin_required
@require_POST
def study_import(request, study_id: int):
    study = get_object_or_404(Study, pk=study_id)
    form = UploadForm(request.POST, request.FILES)
    problems = []
    if form.is_valid():
        d = form.cleaned_data
        try:
            result = run(d["kind"], d["file"], study=study, dry_run=d["dry_run"], **form.options())
            messages.success(request, result.summary())
            return redirect("studies:detail", study_id=study.pk)
        except ImportFailed as exc:
            problems = exc.problems
    messages.error(request, "Nothing was imported: see the problems below.")
    context = {**_detail_context(study), **_forms(study, upload_form=form), "problems": problems}
    return render(request, "annotation/studies/detail.html", context, status=400)


# --- questions' fields (expertise assignment needs them) ------------------------------------


def _questions_page(request, study, *, form=None, upload_form=None, problems=(), status=200):
    questions = Question.objects.filter(study=study).annotate(n_reports=Count("reports"))
    known = sorted(
        {
            f
            for fields in Annotator.objects.values_list("expertise_fields", flat=True)
            for f in fields or ()
        }
    )
    return render(
        request,
        "annotation/studies/questions.html",
        {
            "study": study,
            "questions": questions.order_by("pk"),
            "form": form or QuestionFieldsForm(study),
            "upload_form": upload_form or QuestionFieldsUploadForm(),
            "problems": problems,
            "known_fields": known,
        },
        status=status,
    )


@admin_required
@require_http_methods(["GET", "POST"])
def study_questions(request, study_id: int):
    """The study's questions with their ids; POST sets a field/subdomain on those ticked."""
    study = get_object_or_404(Study, pk=study_id)
    if request.method == "GET":
        return _questions_page(request, study)
    form = QuestionFieldsForm(study, request.POST)
    if form.is_valid():
        try:
            done = question_fields.bulk_set(
                study,
                form.question_ids(),
                {k: form.cleaned_data[k] for k in question_fields.EDITABLE},
            )
        except StudyAdminError as exc:
            form.add_error(exc.field if exc.field in form.fields else None, exc.message)
        else:
            messages.success(
                request, f"{done.changed} questions updated ({done.unchanged} already had it)."
            )
            return redirect("studies:questions", study_id=study.pk)
    messages.error(request, "No question was changed: fix the fields marked below.")
    return _questions_page(request, study, form=form, status=400)


@admin_required
@require_POST
def study_question_fields(request, study_id: int):
    """Upload fields onto existing questions (matched by id or exact text)."""
    study = get_object_or_404(Study, pk=study_id)
    form = QuestionFieldsUploadForm(request.POST, request.FILES)
    problems = []
    if form.is_valid():
        try:
            done = question_fields.upload(study, form.cleaned_data["file"])
        except ImportFailed as exc:
            problems = exc.problems
        else:
            messages.success(
                request,
                f"{done.changed} questions updated, {done.unchanged} unchanged; none created.",
            )
            return redirect("studies:questions", study_id=study.pk)
    messages.error(request, "No question was changed: see the problems below.")
    return _questions_page(request, study, upload_form=form, problems=problems, status=400)


@accepts_token
@admin_required
@download_methods
def study_questions_csv(request, study_id: int):
    study = get_object_or_404(Study, pk=study_id)
    text = question_fields.questions_csv(study)
    return _download(text, f"{_slug(study)}-questions.csv", CONTENT_TYPES["csv"])


# --- annotators' expertise (the expertise strategy matches it to questions' fields) -------


def _expertise_page(request, study, *, form=None, status=200):
    seen = expertise.overview(study)
    return render(
        request,
        "annotation/studies/expertise.html",
        {"study": study, "rows": seen.rows, "study_fields": seen.fields, "form": form},
        status=status,
    )


@admin_required
@require_http_methods(["GET", "POST"])
def study_expertise(request, study_id: int):
    """Every annotator with an account, their expertise fields and how many of the study's
    questions those match; POST sets one annotator's fields (recorded in the audit list)."""
    study = get_object_or_404(Study, pk=study_id)
    if request.method == "GET":
        return _expertise_page(request, study)
    form = ExpertiseForm(study, request.POST)
    if not form.is_valid():
        said = "; ".join(
            f"{name}: {' '.join(e.rstrip('.') for e in errs)}" for name, errs in form.errors.items()
        )
        messages.error(request, f"Nothing was saved: {said}.")
        return _expertise_page(request, study, form=form, status=400)
    annotator, fields = form.cleaned_data["annotator"], form.expertise()
    if expertise.set_fields(study, annotator, fields, user=request.user):
        given = ", ".join(fields) if fields else "none"
        messages.success(request, f"{annotator.pseudonym}'s expertise saved: {given}.")
    else:
        messages.info(request, f"{annotator.pseudonym} already had these fields: nothing changed.")
    return redirect(f"{reverse('studies:expertise', args=[study.pk])}#annotator-{annotator.pk}")


# --- assignment ---------------------------------------------------------------------------


@admin_required
@require_http_methods(["GET", "POST"])
def study_plan(request, study_id: int):
    """GET: the form. POST action=preview: counts of the plan. POST action=commit: write it."""
    study = get_object_or_404(Study, pk=study_id)
    form = PlanForm(study, request.POST or None, initial={"strategy": "random"})
    result, cost, status = None, None, 200
    if request.method == "POST":
        if form.is_valid():
            spec = form.spec()
            try:
                if request.POST.get("action") == "commit":
                    done = planning.commit(
                        study, spec, fingerprint=form.cleaned_data["fingerprint"] or None
                    )
                    withdrawn = f"; {done.withdrawn_said()}" if done.withdrawn else ""
                    messages.success(
                        request,
                        f"{done.summary.assignments} assignments created "
                        f"({done.spec.task}, {done.setting}){withdrawn}.",
                    )
                    return redirect("studies:progress", study_id=study.pk)
                result = planning.preview(study, spec)
                # here, not at the top: the estimate's statistics load numpy, which the
                # other study pages (and the workers serving them) do not need
                from studio.studyadmin import budget

                cost = budget.estimate(
                    study, spec.task, result.plan.assignments, spec.overlap,
                    form.cleaned_data.get("hourly_rate"), spec.strategy,
                )  # fmt: skip
            except StudyAdminError as exc:
                form.add_error(exc.field if exc.field in form.fields else None, exc.message)
                status = 400
        else:
            status = 400
    return render(
        request,
        "annotation/studies/plan.html",
        {
            "study": study,
            "form": form,
            "preview": result,
            "estimate": cost,
            "expertise": expertise.overview(study),
        },
        status=status,
    )


@admin_required
@require_POST
def study_reassign(request, study_id: int):
    study = get_object_or_404(Study, pk=study_id)

    def act(d):
        done = planning.reassign(study, d["annotator"], seed=d["seed"])
        given = ", ".join(f"{n} to {name}" for name, n in done.to.items())
        return (
            f"{done.moved} unfinished assignments moved ({given}); {done.kept} finished ones kept.",
            "studies:progress",
        )

    return _detail_form_post(
        request, study, "reassign_form", ReassignForm(study, request.POST), act,
        refused="Nothing was reassigned: fix the fields marked below.",
    )  # fmt: skip


@admin_required
@require_POST
def study_adjudication(request, study_id: int):
    """Relevance adjudication assignments from finished metric-wise work (003 A.6)."""
    study = get_object_or_404(Study, pk=study_id)

    def act(d):
        done = adjudication.commit(study, d["judge"], limit=d["limit"])
        return (
            f"{len(done.chosen)} relevance adjudication assignments created with "
            f"{done.disagreements} disagreements with {done.judge.name}"
            f" ({done.already} finished evaluations already had one).",
            "studies:progress",
        )

    return _detail_form_post(
        request, study, "adjudication_form", AdjudicationForm(study, request.POST), act,
        refused="No adjudication was created: fix the fields marked below.",
    )  # fmt: skip


@admin_required
@require_POST
def study_authoring(request, study_id: int):
    """Open question-authoring slots for annotators (003 Setting 3)."""
    study = get_object_or_404(Study, pk=study_id)

    def act(d):
        done = authoring.open_slots(study, list(d["annotators"]), setting=d["setting"])
        had = f"; {', '.join(done.existing)} already had one" if done.existing else ""
        return (
            f"Question authoring opened for {len(done.created)} annotators{had}.",
            "studies:detail",
        )

    return _detail_form_post(
        request, study, "authoring_form", AuthoringForm(study, request.POST), act,
        refused="No authoring slot was opened: fix the fields marked below.",
    )  # fmt: skip


@admin_required
@require_POST
def question_review(request, study_id: int, question_id: int):
    """Accept or reject one question an annotator authored."""
    study = get_object_or_404(Study, pk=study_id)
    form = ReviewForm(request.POST)
    try:
        if not form.is_valid():
            raise StudyAdminError("decision", "choose accept or reject")
        question = authoring.review(study, question_id, form.cleaned_data["decision"])
    except StudyAdminError as exc:
        messages.error(request, f"Question {question_id} unchanged: {exc.message}.")
        context = {**_detail_context(study), **_forms(study)}
        return render(request, "annotation/studies/detail.html", context, status=400)
    messages.success(
        request, f"Question {question.external_id}: {question.get_review_display().lower()}."
    )
    return redirect("studies:detail", study_id=study.pk)


@admin_required
@require_http_methods(["GET", "POST"])
def invite_annotators(request):
    form = InviteForm(request.POST or None)
    invitations, status = None, 200
    if request.method == "POST":
        if form.is_valid():
            try:
                invitations = invite(
                    form.cleaned_data["expertise"],
                    degree=form.cleaned_data["degree"],
                    base_url=request.build_absolute_uri("/")[:-1],
                )
                messages.success(request, f"{len(invitations)} annotators invited.")
                form = InviteForm()
            except StudyAdminError as exc:
                form.add_error(None, exc.message)
                status = 400
        else:
            status = 400
    return render(
        request,
        "annotation/studies/invite.html",
        {"form": form, "invitations": invitations},
        status=status,
    )


# --- progress (researchers too) -----------------------------------------------------------


@researcher_required
@require_GET
def study_progress(request, study_id: int):
    study = get_object_or_404(readable_studies(request.user), pk=study_id)
    return render(
        request,
        "annotation/studies/progress.html",
        {
            "study": study,
            "progress": progress.study_progress(study),
            "is_admin": roles.is_admin(request.user),
            **_export_links(study, download_panel(study)),
        },
    )


@accepts_token
@researcher_required
@download_methods
def study_progress_csv(request, study_id: int):
    study = get_object_or_404(readable_studies(request.user), pk=study_id)
    text = progress.progress_csv(progress.study_progress(study))
    return _download(text, f"{_slug(study)}-progress.csv", CONTENT_TYPES["csv"])


@researcher_required
@require_GET
def annotator_progress(request, study_id: int, annotator_id: int):
    study = get_object_or_404(readable_studies(request.user), pk=study_id)
    annotator = get_object_or_404(
        Annotator.objects.filter(assignments__study=study).distinct(), pk=annotator_id
    )
    rows = progress.annotator_assignments(study, annotator)
    return render(
        request,
        "annotation/studies/annotator.html",
        {
            "study": study,
            "annotator": annotator,
            "assignments": rows,
            "is_admin": roles.is_admin(request.user),
        },
    )


# --- exports ------------------------------------------------------------------------------
# Every download answers GET, HEAD (GET without the body) and OPTIONS (200 with Allow), and
# 405 with Allow to any other method: concord.download_methods, as the API's export route.


def _export_refused(request, study, kind: str, file_format: str, refused):
    """A refused page export: the problems as JSON (a token client) or as a page that says
    why, with the refusal's status (400 for a bad option, 404 for nothing to export)."""
    if wants_json(request):
        return refusal(request, refused.problems, refused.status)
    context = {"study": study, "kind": kind, "file_format": file_format,
               "problems": refused.problems, "is_admin": roles.is_admin(request.user)}  # fmt: skip
    return render(request, "annotation/studies/export_refused.html", context, status=refused.status)


@accepts_token
@login_required
@download_methods(parameters=CHECKED_BY_VIEW)  # the writer's options
def export_study_judgments(request, study_id: int, fmt: str):
    """Every human judgment of the study in ``fmt``, as the "Export results" links offer
    them. The options (``setting``, ``annotator``) are those of the judgments writer of the
    Download panel and the API (``annotation.importers.judgments.DUMP_OPTIONS``), read the
    same way: an unknown one, a repeated one, a value outside its choices or naming nothing
    in the study is a 400 naming it, where they were ignored and every row written."""
    from annotation.importers.downloads import ExportRefused, page_options, writer_of

    study = exportable_study_or_404(request.user, study_id)
    if fmt not in JUDGMENT_FORMATS:  # said with the formats there are (it named none)
        return refusal(request, [("fmt", f"unknown format {fmt!r}; use one of "
                                         f"{', '.join(JUDGMENT_FORMATS)}")], 404)  # fmt: skip
    try:
        options = page_options(study, writer_of("judgments", "jsonl"), request.GET)
    except ExportRefused as refused:
        return _export_refused(request, study, "judgments", fmt, refused)
    records = judgment_records(study, **options)
    if not records:  # an empty export is a 404 saying so, never an empty file (README)
        said = ", ".join(f"{k}={v}" for k, v in options.items())
        which = f" ({said}: valid options, but they select nothing)" if said else ""
        # JSON to an API client, as every other refusal of a download (concord.token_auth)
        return refusal(
            request, [(None, f"nothing to export: study “{study.name}” has no human judgment "
                           f"yet{which}")], 404,
        )  # fmt: skip
    try:
        data = export_judgments(study, fmt, records=records)
    except ValueError as exc:  # a format this server cannot write (parquet without pyarrow)
        return refusal(request, [("fmt", str(exc))], 400)
    return _download(data, f"{_slug(study)}-judgments.{fmt}", CONTENT_TYPES[fmt])


@accepts_token
@login_required
@download_methods(parameters=CHECKED_BY_VIEW)  # it refuses any, on its export page
def export_study_pairwise(request, study_id: int):
    """The study's pairwise records bundle (one file per annotator, setting and split): it
    takes no option, so any query parameter is a 400 naming it (it was ignored)."""
    from annotation.importers.downloads import ExportRefused, refuse_unknown_names

    study = exportable_study_or_404(request.user, study_id)
    try:
        refuse_unknown_names(request.GET, (), what="the pairwise records bundle")
    except ExportRefused as refused:
        return _export_refused(request, study, "pairwise", "zip", refused)
    files = pairwise_bundle(study)
    if not files:  # a zip holding only its manifest was no export (README: empty is a 404)
        return refusal(
            request, [(None, f"nothing to export: study “{study.name}” has no pairwise records "
                           "(no medal ranking, metric score or expert-agreed record)")], 404,
        )  # fmt: skip
    data = pairwise_bundle_zip(study, files=files)
    return _download(data, f"{_slug(study)}-pairwise.zip", "application/zip")


@accepts_token
@login_required
@download_methods(parameters=CHECKED_BY_VIEW)  # the writer's options
def export_study_format(request, study_id: int, kind: str, file_format: str):
    """The study's data in one registered outside format, as the Download panel links it:
    the bytes of ``GET /api/studies/{id}/export/`` (same function), for researchers of the
    study and admins (annotators: 403; a study the researcher was not added to: 404).
    Options come as query parameters, only those of the writer (another is a 400 naming it,
    as the API answers); a refusal (a missing option, nothing to export) is a
    page that says why, never an empty file. HEAD is GET without the body, OPTIONS 200 with
    Allow (:mod:`concord.download_methods`)."""
    from annotation.importers.downloads import ExportRefused, attachment, export_download
    from annotation.importers.registry import FORMATS

    study = exportable_study_or_404(request.user, study_id)
    if (kind, file_format) not in FORMATS:  # a read-only format: a 400 naming its writers
        raise Http404(f"no format {kind} {file_format}")
    try:
        download = export_download(study, kind, file_format, request.GET, from_path=True)
    except ExportRefused as refused:
        return _export_refused(request, study, kind, file_format, refused)
    return attachment(download)
