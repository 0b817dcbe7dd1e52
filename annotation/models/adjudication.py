"""Relevance adjudication (003 A.6, METHODS §2 item 7).

After an annotator's metric-wise work, every paragraph where their R/U/O label disagrees
with a judge's relevance verdict becomes a :class:`RelevanceDisagreement` of an adjudication
assignment (``annotation.adjudication.plan`` picks them). The disagreement is frozen when the
assignment is made — the labels and the judge's rationale as they were — so the annotator
adjudicates exactly what was found, even if the judge is run again later. Their decision is a
:class:`RelevanceAdjudication`: keep their label, switch to the judge's, or call the
difference subjective, with an optional reason.
"""

from django.db import models

from .content import public_token
from .judgments import JudgmentBase


class RelevanceDisagreement(models.Model):
    """One paragraph on which the annotator and a judge disagree (what is adjudicated)."""

    assignment = models.ForeignKey(
        "annotation.Assignment", on_delete=models.CASCADE, related_name="disagreements"
    )
    judge = models.ForeignKey("judges.Judge", on_delete=models.CASCADE, related_name="+")
    #: PROTECT: what was adjudicated stays readable (see annotation.units).
    paragraph = models.ForeignKey(
        "annotation.Paragraph", on_delete=models.PROTECT, related_name="+"
    )
    position = models.PositiveIntegerField(default=0)
    #: The annotator's metric-wise label (R / U / O) when the disagreement was found.
    annotator_label = models.CharField(max_length=1)
    judge_relevant = models.BooleanField()
    #: The judge's rationale with the study's system names blanked out (blinding).
    judge_rationale = models.TextField(blank=True)
    public_id = models.CharField(max_length=20, default=public_token, unique=True)

    class Meta:
        ordering = ["assignment", "position", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["assignment", "paragraph"], name="one_disagreement_per_paragraph"
            )
        ]

    def __str__(self) -> str:
        return (
            f"{self.annotator_label} vs judge relevant={self.judge_relevant} on {self.paragraph_id}"
        )


class RelevanceAdjudication(JudgmentBase):
    """The annotator's decision on one disagreement, and the label that results from it."""

    class Decision(models.TextChoices):
        KEEP = "keep", "Keep my label"
        SWITCH = "switch", "Switch to the judge's label"
        SUBJECTIVE = "subjective", "Subjective: both are viable"

    disagreement = models.OneToOneField(
        RelevanceDisagreement, on_delete=models.PROTECT, related_name="adjudication"
    )
    decision = models.CharField(max_length=10, choices=Decision.choices)
    reason = models.TextField(blank=True)
    #: The annotator's relevance label after adjudication (R / U / O).
    final_label = models.CharField(max_length=1)

    def __str__(self) -> str:
        return f"{self.decision} on disagreement {self.disagreement_id}"
