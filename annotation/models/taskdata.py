"""Work in progress on a task page: the current draft and every saved version of it.

A :class:`Draft` is the single live state of one assignment's form (its payload and a
version number). Saves are optimistic: a save names the version it was based on and is
refused when another tab saved first. Every accepted save is also appended to
:class:`DraftVersion`, so nothing an annotator typed is ever lost or silently overwritten.
"""

from django.db import models


class Draft(models.Model):
    assignment = models.OneToOneField(
        "annotation.Assignment", on_delete=models.PROTECT, related_name="draft"
    )
    payload = models.JSONField(default=dict, blank=True)
    version = models.PositiveIntegerField(default=0)
    #: The version that was submitted (None while the assignment is open).
    submitted_version = models.PositiveIntegerField(null=True, blank=True)
    #: Last time the page was opened or saved; time on task grows from here.
    last_activity_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)
    #: The page (one load of the task page, a random id) that saved the latest versions, and
    #: the version its run of saves started from: every version after ``client_since`` was
    #: saved by ``client``. A save based on an older version from that same page is not a
    #: conflict (its earlier save landed but the answer was lost: a reload, a beacon).
    client = models.CharField(max_length=40, blank=True, default="")
    client_since = models.PositiveIntegerField(default=0)

    def __str__(self) -> str:
        return f"draft v{self.version} of assignment {self.assignment_id}"


class DraftVersion(models.Model):
    """One accepted save: who, when, what (the audit history)."""

    class Kind(models.TextChoices):
        DRAFT = "draft", "Draft"
        SUBMIT = "submit", "Submitted"

    assignment = models.ForeignKey(
        "annotation.Assignment", on_delete=models.PROTECT, related_name="draft_versions"
    )
    version = models.PositiveIntegerField()
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.DRAFT)
    author = models.ForeignKey(
        "annotation.Annotator", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    payload = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["assignment", "version"]
        constraints = [
            models.UniqueConstraint(fields=["assignment", "version"], name="one_draft_version")
        ]

    def __str__(self) -> str:
        return f"v{self.version} of assignment {self.assignment_id}"
