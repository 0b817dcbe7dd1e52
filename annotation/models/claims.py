"""Claims of reports checked by experts one at a time (003 A.5, METHODS §2.6).

A ReportClaim is a span of a report ending in shared citations (METHODS §1), typically as an
LLM judge extracted it, so that experts judge the same span the judge did. ``source`` says
where it came from and is never shown to annotators.
"""

from django.db import models

from .content import public_token
from .judgments import JudgmentBase


class ReportClaim(models.Model):
    report = models.ForeignKey("annotation.Report", on_delete=models.CASCADE, related_name="claims")
    paragraph = models.ForeignKey(
        "annotation.Paragraph", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    position = models.PositiveIntegerField(default=0)
    text = models.TextField()
    #: Citation keys of the report (Citation.key), in the order they close the claim.
    citation_keys = models.JSONField(default=list, blank=True)
    source = models.CharField(max_length=200, blank=True)
    public_id = models.CharField(max_length=20, default=public_token, unique=True)

    class Meta:
        ordering = ["report", "position", "id"]

    def __str__(self) -> str:
        return self.text[:80]


class ClaimCheck(JudgmentBase):
    """Is the claim fully supported by its citations, and does each citation support it?"""

    claim = models.ForeignKey(ReportClaim, on_delete=models.PROTECT, related_name="checks")
    skipped = models.BooleanField(default=False)
    fully_supported = models.BooleanField(null=True, blank=True)
    #: {citation key: true/false}
    citation_supports = models.JSONField(default=dict, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["annotator", "claim", "setting"], name="one_claim_check"
            )
        ]
