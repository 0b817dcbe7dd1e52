"""Pages of judge runs: the list of a study's runs and one run's progress (htmx polling).

Thin views: the numbers come from the JudgeRun row, which the task updates as units settle.
"""

from django.contrib.auth.decorators import login_required
from django.shortcuts import render

from annotation.permissions import staff_run_or_404, staff_study_or_404

from .models import JudgeRun, JudgeUnit

RESEARCHERS_ONLY = "Judge runs are for researchers and admins."


@login_required
def run_list(request, study_id: int):
    study = staff_study_or_404(request.user, study_id, RESEARCHERS_ONLY)
    run_rows = JudgeRun.objects.filter(study=study).select_related("judge")[:100]
    return render(request, "judges/run_list.html", {"study": study, "runs": run_rows})


@login_required
def run_detail(request, run_id: int):
    """The progress page; with htmx it answers the polling fragment only."""
    runs = JudgeRun.objects.select_related("judge", "study")
    run = staff_run_or_404(request.user, runs, run_id, RESEARCHERS_ONLY)
    context = {
        "run": run,
        "percent": round(100 * run.progress, 1),
        "polling": run.status in (JudgeRun.Status.QUEUED, JudgeRun.Status.RUNNING),
        "failed": JudgeUnit.objects.filter(run=run, status=JudgeUnit.Status.FAILED)[:20],
    }
    if getattr(request, "htmx", False):
        return render(request, "judges/partials/run_progress.html", context)
    return render(request, "judges/run_detail.html", context)
