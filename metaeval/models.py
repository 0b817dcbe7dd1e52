"""Long-running agreement reports: one row per request, polled by the API and the pages."""

from django.conf import settings
from django.db import models


class ReportRun(models.Model):
    """An agreement report computed by a Celery task (bootstrap can take a while)."""

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    study = models.ForeignKey(
        "annotation.Study", on_delete=models.CASCADE, related_name="report_runs"
    )
    options = models.JSONField(default=dict)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    progress = models.FloatField(default=0.0, help_text="0..1")
    result = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    #: Which execution may write the result: a restart takes a new lease, so a redelivered
    #: message of the dead execution finds its lease gone and does nothing.
    lease = models.CharField(max_length=32, blank=True)
    #: Written every few seconds by the executing worker; a running run whose heartbeat is
    #: old has lost its worker (:func:`metaeval.tasks.restart_stale_runs`).
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveIntegerField(default=0, help_text="executions started")

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"report run {self.pk} ({self.status})"
