"""What annotators tell the study about their work, and judgments sent back for revision.

A :class:`Flag` reports a problem with a question or one report of an assignment (a broken
report, a question outside the annotator's expertise, offensive content); it may also skip
the task, which then leaves the annotator's way (it stays in the queue, marked skipped, and
can still be done). A :class:`Reopening` records who returned a submitted judgment for
revision, when and why; the versions themselves stay in :class:`DraftVersion`.
"""

from django.conf import settings
from django.db import models


class Flag(models.Model):
    class Reason(models.TextChoices):
        BROKEN_REPORT = "broken_report", "Broken report (empty, cut off, unreadable)"
        OUTSIDE_EXPERTISE = "outside_expertise", "Outside my expertise"
        OFFENSIVE = "offensive", "Offensive content"
        OTHER = "other", "Something else"
        #: A skip at once, without a reason (issue 26: Prodigy and Label Studio let one skip
        #: without saying why; the skip is still recorded and the admins see it).
        NONE_GIVEN = "none_given", "Skipped without a reason"

    assignment = models.ForeignKey(
        "annotation.Assignment", on_delete=models.CASCADE, related_name="flags"
    )
    annotator = models.ForeignKey(
        "annotation.Annotator", on_delete=models.CASCADE, related_name="flags"
    )
    #: The report flagged; NULL = the question (or the task as a whole).
    report = models.ForeignKey(
        "annotation.Report", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    reason = models.CharField(max_length=30, choices=Reason.choices)
    note = models.TextField(blank=True)
    skipped = models.BooleanField(default=False, help_text="The annotator skipped the task")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.get_reason_display()} on assignment {self.assignment_id}"


class Reopening(models.Model):
    """A submitted judgment returned for revision (by an admin) or reopened by its author."""

    assignment = models.ForeignKey(
        "annotation.Assignment", on_delete=models.CASCADE, related_name="reopenings"
    )
    #: The submitted version that was reopened (it stays in the history).
    version = models.PositiveIntegerField()
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    by_author = models.BooleanField(default=False)
    reason = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"v{self.version} of assignment {self.assignment_id} reopened"


class Guidelines(models.Model):
    """The annotation guidelines a study uses (e.g. the PDF its experts followed), uploaded
    by an admin and linked from every task page of the study. Kept in the database (base64
    text), so a study backup carries it like any other row."""

    study = models.OneToOneField(
        "annotation.Study", on_delete=models.CASCADE, related_name="guidelines"
    )
    filename = models.CharField(max_length=200)
    content_type = models.CharField(max_length=100)
    data = models.TextField(help_text="the file, base64")
    size = models.PositiveIntegerField(default=0)
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    uploaded_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "guidelines"

    def __str__(self) -> str:
        return f"{self.filename} ({self.study_id})"
