"""Pages of judge runs: the list of a study's runs (with the forms that start a run and
import judge scores), and one run's progress (htmx polling).

Thin views: the numbers come from the JudgeRun row, which the task updates as units settle.
Starting a run and importing scores follow the API's rule: admins only; researchers read.
"""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from annotation import roles
from annotation.importers import ImportFailed
from annotation.permissions import staff_run_or_404, staff_study_or_404

from . import runs
from .forms import NOT_RUNNABLE, AddJudgeForm, ImportScoresForm, StartRunForm
from .importers import import_judge_scores
from .models import JudgeRun, JudgeUnit
from .results import study_results
from .serializers import JudgeSerializer

RESEARCHERS_ONLY = "Judge runs are for researchers and admins."
ADMINS_ONLY = "Only an admin may start a judge run or import judge scores."


def _list_page(
    request, study, *, run_form=None, import_form=None, judge_form=None, problems=(), status=200
):
    is_admin = roles.is_admin(request.user)
    context = {
        "study": study,
        "runs": JudgeRun.objects.filter(study=study).select_related("judge")[:100],
        "results": study_results(study.pk),
        "is_admin": is_admin,
        "problems": problems,
    }
    if is_admin:
        context["run_form"] = run_form or StartRunForm(study)
        context["import_form"] = import_form or ImportScoresForm()
        context["judge_form"] = judge_form or AddJudgeForm()
        context["not_runnable"] = NOT_RUNNABLE
    return render(request, "judges/run_list.html", context, status=status)


def _admin_study(request, study_id: int):
    study = staff_study_or_404(request.user, study_id, RESEARCHERS_ONLY)
    if not roles.is_admin(request.user):
        raise PermissionDenied(ADMINS_ONLY)
    return study


@login_required
@require_GET
def run_list(request, study_id: int):
    study = staff_study_or_404(request.user, study_id, RESEARCHERS_ONLY)
    return _list_page(request, study)


@login_required
@require_POST
def run_start(request, study_id: int):
    study = _admin_study(request, study_id)
    form = StartRunForm(study, request.POST)
    if form.is_valid():
        d = form.cleaned_data
        try:
            run = runs.start_run(d["judge"], study, d["tasks"], form.options(), request.user)
        except runs.RunError as exc:
            message = str(exc)
            field = getattr(exc, "option", None) or message.split(":", 1)[0]
            form.add_error(field if field in form.fields else "judge", message)
        else:
            messages.success(request, f"Judge run #{run.pk} started ({run.total_units} units).")
            return redirect("judge-run", run_id=run.pk)
    messages.error(request, "No run was started: fix the fields marked below.")
    return _list_page(request, study, run_form=form, status=400)


#: Where the API serializer's message about a parameter belongs on the page's form.
_PARAMETER_FIELDS = ("base_url", "api_key")


@login_required
@require_POST
def judge_add(request, study_id: int):
    """Add a judge that calls an OpenAI-compatible endpoint, checked by the judges API's
    serializer (the same rules as ``POST /api/judges/``); the key is never echoed."""
    study = _admin_study(request, study_id)
    form = AddJudgeForm(request.POST)
    if form.is_valid():
        serializer = JudgeSerializer(data=form.api_data())
        if serializer.is_valid():
            judge = serializer.save()
            messages.success(request, f"Judge {judge.name!r} added: start a run with it below.")
            return redirect("judge-run-list", study_id=study.pk)
        for key, errors in serializer.errors.items():
            for error in errors if isinstance(errors, list) else [errors]:
                text = str(error)
                field = key if key in form.fields else None
                if key == "parameters":
                    field = next((f for f in _PARAMETER_FIELDS if text.startswith(f)), None)
                    field = field or next((f for f in _PARAMETER_FIELDS if f in text), None)
                form.add_error(field, text)
    messages.error(request, "No judge was added: fix the fields marked below.")
    return _list_page(request, study, judge_form=form, status=400)


@login_required
@require_POST
def scores_import(request, study_id: int):
    study = _admin_study(request, study_id)
    form = ImportScoresForm(request.POST, request.FILES)
    problems = []
    if form.is_valid():
        d = form.cleaned_data
        try:
            report = import_judge_scores(
                d["file"],
                study=study,
                judge=d["judge"],
                format=d["format"],
                system=d["system"].strip() or None,
                rubric_kind=d["rubric_kind"].strip() or None,
                dry_run=d["dry_run"],
            )
        except ImportFailed as exc:
            problems = exc.problems
        else:
            messages.success(request, report.summary())
            return redirect("judge-run-list", study_id=study.pk)
    messages.error(request, "No judge score was imported: see the problems below.")
    return _list_page(request, study, import_form=form, problems=problems, status=400)


@login_required
def run_detail(request, run_id: int):
    """The progress page; with htmx it answers the polling fragment only."""
    runs_qs = JudgeRun.objects.select_related("judge", "study")
    run = staff_run_or_404(request.user, runs_qs, run_id, RESEARCHERS_ONLY)
    context = {
        "run": run,
        "percent": round(100 * run.progress, 1),
        "polling": run.status in (JudgeRun.Status.QUEUED, JudgeRun.Status.RUNNING),
        "failed": JudgeUnit.objects.filter(run=run, status=JudgeUnit.Status.FAILED)[:20],
    }
    if getattr(request, "htmx", False):
        return render(request, "judges/partials/run_progress.html", context)
    return render(request, "judges/run_detail.html", context)
