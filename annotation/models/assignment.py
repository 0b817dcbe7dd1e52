"""Who does what: an assignment is one task on one question for one annotator."""

import secrets

from django.db import models


class Setting(models.TextChoices):
    """How questions reached annotators (003 §4.2), the one declaration of settings.

    ScholarQA-CS2's three: ``assigned`` (Setting 1: questions drawn at random, whatever the
    annotator knows), ``near_expert`` (Setting 2: the annotator rated the question within or
    near their expertise, triage) and ``deep_expert`` (Setting 3: the annotator wrote it).
    ``expertise_matched`` is ResearchQA's field-matched pools (the "By expertise" plan): the
    platform gives a question only to annotators whose declared fields contain its field.
    It is not ``assigned``: who judges a question depends on what they know, which is the
    very thing setting-based analyses compare (agreement and alignment by setting, 003
    Table 4), so pooling it with random assignment would bias the random-assignment
    figures; nor is it ``near_expert``: no annotator judged their own fit for the
    question. Rows written before this setting existed stay ``assigned`` (which plan made
    them was not recorded).
    """

    ASSIGNED = "assigned", "Random assignment"
    EXPERTISE_MATCHED = "expertise_matched", "Expertise-matched (field)"
    NEAR_EXPERT = "near_expert", "Near-expert (triage)"
    DEEP_EXPERT = "deep_expert", "Deep-expert (authored)"


AUTHORING = "question_authoring"


class Assignment(models.Model):
    """One task for one annotator, on one question — except question authoring, whose
    assignment has no question (``question`` is NULL): it is a slot in which the annotator
    writes new questions, which become Questions of the study when submitted. A check
    constraint keeps every other task's question required, and a second unique constraint
    gives each annotator at most one authoring slot per study and setting (the usual
    per-question one cannot: NULLs never collide)."""

    class Status(models.TextChoices):
        NOT_STARTED = "not_started", "Not started"
        IN_PROGRESS = "in_progress", "In progress"
        SUBMITTED = "submitted", "Submitted"
        #: Taken from this annotator (reassigned): kept with its drafts and every version,
        #: out of their queue; the work continues in a new assignment of someone else.
        WITHDRAWN = "withdrawn", "Withdrawn"

    #: No index of its own: the unique (study, annotator, question, task, setting) leads
    #: with it (issue 29: fewer indexes written per row of a large import).
    study = models.ForeignKey(
        "annotation.Study", on_delete=models.CASCADE, related_name="assignments", db_index=False
    )
    annotator = models.ForeignKey(
        "annotation.Annotator", on_delete=models.PROTECT, related_name="assignments"
    )
    question = models.ForeignKey(
        "annotation.Question",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="assignments",
    )
    task = models.CharField(max_length=40)
    setting = models.CharField(max_length=20, choices=Setting.choices, default=Setting.ASSIGNED)
    #: Report ids in the order this annotator sees them: randomized once, stable on reload.
    report_order = models.JSONField(default=list, blank=True)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.NOT_STARTED)
    position = models.PositiveIntegerField(default=0, help_text="Order in the annotator's queue")
    started_at = models.DateTimeField(null=True, blank=True)
    submitted_at = models.DateTimeField(null=True, blank=True)
    seconds_on_task = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["study", "annotator", "question", "task", "setting"],
                name="one_assignment_per_task",
            ),
            models.UniqueConstraint(
                fields=["study", "annotator", "task", "setting"],
                condition=models.Q(question__isnull=True),
                name="one_authoring_slot",
            ),
            models.CheckConstraint(
                condition=models.Q(task=AUTHORING, question__isnull=True)
                | (~models.Q(task=AUTHORING) & models.Q(question__isnull=False)),
                name="question_unless_authoring",
            ),
        ]
        ordering = ["annotator", "position", "id"]

    def __str__(self) -> str:
        return f"{self.task} #{self.pk}"

    @staticmethod
    def shuffled(report_ids: list[int], seed: int | None = None) -> list[int]:
        """A random order of the reports, drawn once when the assignment is made."""
        order = list(report_ids)
        rng = secrets.SystemRandom() if seed is None else __import__("random").Random(seed)
        rng.shuffle(order)
        return order
