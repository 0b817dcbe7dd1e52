"""Webhooks: a URL an admin registers for a study, and each event delivered to it (issue 28).

A team's own tooling (a Slack bot, a pipeline that starts the analysis when annotation is
done) learns of a submitted assignment, a study's progress crossing a step, or the end of a
judge run without polling. Each delivery is kept with its attempts and the last answer's
status, so an admin sees what was sent and what failed; nothing of the response body is
stored (it is the receiver's, not ours).
"""

import secrets

from django.db import models

from .content import Study


def new_secret() -> str:
    return secrets.token_hex(32)


class Webhook(models.Model):
    class Event(models.TextChoices):
        ASSIGNMENT_SUBMITTED = "assignment.submitted", "An assignment was submitted"
        STUDY_PROGRESS = "study.progress", "The study's progress crossed a step"
        JUDGE_RUN_FINISHED = "judge_run.finished", "A judge run ended (done, failed, cancelled)"

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="webhooks")
    url = models.URLField(max_length=500)
    #: HMAC-SHA256 key of the signature header (``annotation.webhooks.signature``).
    secret = models.CharField(max_length=64, default=new_secret)
    events = models.JSONField(default=list, help_text="event names (Webhook.Event)")
    #: Fractions of the study's assignments submitted at which ``study.progress`` fires.
    progress_steps = models.JSONField(default=list, blank=True)
    #: The highest step already sent (a step fires once).
    progress_sent = models.FloatField(default=0.0)
    active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["pk"]

    def __str__(self) -> str:
        return f"{self.url} ({', '.join(self.events)})"


class WebhookDelivery(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending"
        DELIVERED = "delivered"
        FAILED = "failed"

    webhook = models.ForeignKey(Webhook, on_delete=models.CASCADE, related_name="deliveries")
    event = models.CharField(max_length=40)
    payload = models.JSONField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    #: The receiver's last HTTP status (None: no answer), and why it failed, briefly.
    response_status = models.PositiveIntegerField(null=True, blank=True)
    error = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["pk"]
        verbose_name_plural = "webhook deliveries"

    def __str__(self) -> str:
        return f"{self.event} to webhook {self.webhook_id}: {self.status}"
