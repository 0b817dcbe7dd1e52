"""The detail behind a metric-wise evaluation (ScholarQA-CS2 guidelines, Part 1 and 2).

HumanMetricScore holds the per-report scores the meta-evaluation reads; these tables keep
what those scores were computed from, so a score can always be traced back and recomputed.
"""

from django.db import models

from .judgments import JudgmentBase


class ParagraphRelevance(JudgmentBase):
    class Label(models.TextChoices):
        RELEVANT = "R", "Relevant"
        UNNECESSARY = "U", "Unnecessary but acceptable"
        OFF_THE_MARK = "O", "Off the mark or misleading"

    #: PROTECT: a report re-import updates paragraphs in place and refuses to drop a judged
    #: one (annotation.units), so this judgment never goes with its paragraph.
    paragraph = models.ForeignKey(
        "annotation.Paragraph", on_delete=models.PROTECT, related_name="+"
    )
    label = models.CharField(max_length=1, choices=Label.choices, default=Label.RELEVANT)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["annotator", "paragraph", "setting"], name="one_paragraph_relevance"
            )
        ]


class ClaimAssessment(JudgmentBase):
    """A claim the annotator selected in a report, with its citation validity."""

    class Coverage(models.TextChoices):
        FULLY = "fully", "Fully cover"
        PARTIALLY = "partially", "Partially cover"
        NONE = "none", "Does not cover"

    report = models.ForeignKey("annotation.Report", on_delete=models.PROTECT, related_name="+")
    paragraph = models.ForeignKey(
        "annotation.Paragraph", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    position = models.PositiveIntegerField()
    text = models.TextField()
    citation_count = models.PositiveIntegerField()
    #: Per citation: {"key": ..., "support": "snippet_supports" | "title_likely_supports" | "none"}
    citations = models.JSONField(default=list, blank=True)
    supporting_credit = models.FloatField()
    coverage = models.CharField(max_length=10, choices=Coverage.choices)
    notes = models.TextField(blank=True)

    class Meta:
        ordering = ["assignment", "report", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["assignment", "report", "position"], name="one_claim_position"
            )
        ]


class ReportRating(JudgmentBase):
    """A 1–5 rating of one report on one dimension (answer recall, the generalized ratings)."""

    report = models.ForeignKey("annotation.Report", on_delete=models.PROTECT, related_name="+")
    dimension = models.CharField(max_length=40)
    value = models.PositiveSmallIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["annotator", "report", "setting", "dimension"], name="one_report_rating"
            )
        ]
