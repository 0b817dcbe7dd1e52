"""Who annotates: pseudonymous profiles and per-question expertise (METHODS §1)."""

from django.conf import settings
from django.db import models


class Annotator(models.Model):
    """A pseudonymous expert. No real name is needed anywhere in study data."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="annotator",
    )
    pseudonym = models.CharField(max_length=100, unique=True)
    degree = models.CharField(max_length=50, blank=True)
    expertise_fields = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["pseudonym"]

    def __str__(self) -> str:
        return self.pseudonym


class ExpertiseRating(models.Model):
    """An annotator's own rating of a question against their expertise (003 Setting 2)."""

    class Level(models.TextChoices):
        WITHIN = "within", "Within my expertise"
        NEAR = "near", "Near my expertise"
        OUTSIDE = "outside", "Outside my expertise"

    annotator = models.ForeignKey(Annotator, on_delete=models.CASCADE, related_name="ratings")
    question = models.ForeignKey(
        "annotation.Question", on_delete=models.CASCADE, related_name="expertise_ratings"
    )
    level = models.CharField(max_length=10, choices=Level.choices)
    rated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["annotator", "question"], name="one_rating_per_question"
            )
        ]

    def __str__(self) -> str:
        return f"{self.annotator_id}: {self.level} on {self.question_id}"


class StudyResearcher(models.Model):
    """A researcher who may read a study (its content, judgments, judges and reports).

    Why per study: a Concord installation holds several labs' unpublished expert work; a
    researcher reads the studies they were added to and no other. Admins read and write
    every study. An explicit table (not an automatic many-to-many) so that a study's backup
    carries its researchers like any other row that reaches the study.
    """

    study = models.ForeignKey("annotation.Study", on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="research_studies"
    )
    added_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["study", "user"], name="one_membership_per_study")
        ]

    def __str__(self) -> str:
        return f"{self.user} reads {self.study}"
