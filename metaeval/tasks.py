"""Celery tasks of the meta-evaluation: large reports (with bootstrap) off the request path."""

from celery import shared_task
from django.utils import timezone

from .models import ReportRun
from .reports import ReportOptions, agreement_report


@shared_task(bind=True, acks_late=True)
def run_report(self, run_id: int) -> int:
    """Compute a ReportRun's report and store it; progress is written as it goes.

    Idempotent: a run already done is left as it is (a redelivered message after a worker
    died recomputes an unfinished run from scratch, which is safe: reports are pure).
    """
    run = ReportRun.objects.get(pk=run_id)
    if run.status == ReportRun.Status.DONE:
        return run_id
    ReportRun.objects.filter(pk=run_id).update(status=ReportRun.Status.RUNNING, progress=0.01)

    def progress(fraction: float) -> None:
        ReportRun.objects.filter(pk=run_id).update(progress=max(0.01, min(fraction, 0.99)))

    try:
        result = agreement_report(run.study_id, ReportOptions.from_dict(run.options), progress)
    except Exception as exc:  # noqa: BLE001 - stored for the user, then re-raised
        ReportRun.objects.filter(pk=run_id).update(
            status=ReportRun.Status.FAILED, error=str(exc), finished_at=timezone.now()
        )
        raise
    ReportRun.objects.filter(pk=run_id).update(
        status=ReportRun.Status.DONE, result=result, progress=1.0, finished_at=timezone.now()
    )
    return run_id


def start_report(study, options: ReportOptions, user=None) -> ReportRun:
    """Create a run and queue it (eagerly computed when no broker is configured)."""
    run = ReportRun.objects.create(study=study, options=options.to_dict(), requested_by=user)
    run_report.delay(run.pk)
    run.refresh_from_db()
    return run
