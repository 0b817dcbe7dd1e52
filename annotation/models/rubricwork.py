"""Judgments of questions and rubrics (METHODS §2.1–2.3): query quality, rubric-item
quality, and rubric coverage of reports (0–4, or the binary weighted variant)."""

from django.db import models

from .judgments import JudgmentBase


class QueryQuality(JudgmentBase):
    """ResearchQA 3.1: clarity, naturalness, relevance to a researcher's need (1–5) and
    variability of valid answers."""

    class Variability(models.TextChoices):
        OPEN_ENDED = "open_ended", "Open-ended"
        SEMI_OPEN = "semi_open", "Semi-open"
        CLOSED = "closed", "Closed"

    clarity = models.PositiveSmallIntegerField()
    naturalness = models.PositiveSmallIntegerField()
    relevance = models.PositiveSmallIntegerField()
    variability = models.CharField(max_length=12, choices=Variability.choices)
    comment = models.TextField(blank=True)

    class Meta:
        verbose_name_plural = "query quality labels"
        constraints = [
            models.UniqueConstraint(
                fields=["annotator", "question", "setting"], name="one_query_quality"
            )
        ]


class RubricItemQuality(JudgmentBase):
    """ResearchQA 3.2: emphasis, necessity, confidence and error flags of one rubric item."""

    item = models.ForeignKey("annotation.RubricItem", on_delete=models.PROTECT, related_name="+")
    emphasis = models.CharField(max_length=20)
    necessity = models.CharField(max_length=24)
    confidence = models.PositiveSmallIntegerField()
    flags = models.JSONField(default=list, blank=True)

    class Meta:
        verbose_name_plural = "rubric item quality labels"
        constraints = [
            models.UniqueConstraint(
                fields=["annotator", "item", "setting"], name="one_rubric_item_quality"
            )
        ]


class RubricCoverage(JudgmentBase):
    """How well one report covers one rubric item: ``label`` 0–4, or ``covered`` (binary)."""

    report = models.ForeignKey("annotation.Report", on_delete=models.PROTECT, related_name="+")
    item = models.ForeignKey("annotation.RubricItem", on_delete=models.PROTECT, related_name="+")
    label = models.PositiveSmallIntegerField(null=True, blank=True)
    covered = models.BooleanField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["annotator", "report", "item", "setting"], name="one_rubric_coverage"
            )
        ]


class RubricComparison(JudgmentBase):
    """Rubric comparison (003 A.4): medals over the question's 2–3 rubrics, with reasoning."""

    reasoning = models.TextField(blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["annotator", "question", "setting"], name="one_rubric_comparison"
            )
        ]


class RubricAssessment(models.Model):
    """One rubric's medal and its strengths, missing criteria and weaknesses."""

    comparison = models.ForeignKey(
        RubricComparison, on_delete=models.CASCADE, related_name="assessments"
    )
    rubric = models.ForeignKey("annotation.Rubric", on_delete=models.PROTECT, related_name="+")
    medal = models.CharField(max_length=10)
    strengths = models.TextField(blank=True)
    missing = models.TextField(blank=True)
    weaknesses = models.TextField(blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["comparison", "rubric"], name="one_assessment_per_rubric"
            )
        ]

    def __str__(self) -> str:
        return f"{self.medal} for rubric {self.rubric_id}"
