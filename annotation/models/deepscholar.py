"""DeepScholar-Bench's human agreement study (seed 002 §8.11, Table 3; METHODS §2.10).

Content the judge's units are made of and Concord did not hold: a question's *nuggets*
(the facts a related-work section should contain), its human-written *exemplar* (the
paper's own related-work section) and the exemplar's *references*. A report's retrieved
sources are its citations (:class:`~annotation.models.Citation`) and a claim–source pair is a
cited paragraph with one of its citations, so neither needs a model of its own.

One judgment model serves every DeepScholar task: every label kind is "one unit, one label
from a small set", and the Table 3 analysis treats them all alike (agreement with the judge
per kind). ``unit`` is the unit's natural key — the same key a judge's label file uses —
so a human label and the judge's label of the same unit join without ids:

=====================  ==========  =============================================
kind                   report      unit
=====================  ==========  =============================================
organization           the report  "" (the report against the exemplar)
nugget_importance      —           nugget key
nugget_support         the report  nugget key
retrieval_relevance    the report  citation key
reference_importance   —           reference key
entailment             the report  "<paragraph number>:<citation key>"
=====================  ==========  =============================================
"""

from django.db import models

from .content import public_token
from .judgments import JudgmentBase

#: Each kind's labels (METHODS §2.10), in the order the pages offer them; the task pages, the
#: judge-label import and the Table 3 analysis (``metaeval.stats.deepscholar_agreement``)
#: use these values.
LABELS: dict[str, tuple[str, ...]] = {
    "organization": ("lose", "tie", "win"),
    "nugget_importance": ("vital", "non_vital"),
    "nugget_support": ("supported", "partially_supported", "not_supported"),
    "retrieval_relevance": ("0", "1", "2"),
    "reference_importance": ("important", "not_important"),
    "entailment": ("entailed", "not_entailed"),
}
#: Kinds whose unit lies in one report (the others are units of the question).
REPORT_KINDS = ("organization", "nugget_support", "retrieval_relevance", "entailment")


class Nugget(models.Model):
    """One nugget of a question: a fact a good answer contains (002 §4.2)."""

    question = models.ForeignKey(
        "annotation.Question", on_delete=models.CASCADE, related_name="nuggets"
    )
    key = models.CharField(max_length=200, help_text="The nugget's id in the imported file")
    position = models.PositiveIntegerField()
    text = models.TextField()
    public_id = models.CharField(max_length=20, default=public_token, unique=True)

    class Meta:
        ordering = ["position", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["question", "key"], name="one_nugget_key"),
        ]

    def __str__(self) -> str:
        return f"nugget {self.key} of question {self.question_id}"


class Exemplar(models.Model):
    """The human-written exemplar of a question (the paper's own related-work section),
    against which organization is judged pairwise."""

    question = models.OneToOneField(
        "annotation.Question", on_delete=models.CASCADE, related_name="exemplar"
    )
    text = models.TextField(blank=True)

    def __str__(self) -> str:
        return f"exemplar of question {self.question_id}"


class ExemplarReference(models.Model):
    """One reference of the exemplar (a paper the human authors cited)."""

    question = models.ForeignKey(
        "annotation.Question", on_delete=models.CASCADE, related_name="exemplar_references"
    )
    key = models.CharField(max_length=300, help_text="The reference's id in the imported file")
    position = models.PositiveIntegerField()
    title = models.TextField(blank=True)
    url = models.URLField(max_length=2000, blank=True)
    public_id = models.CharField(max_length=20, default=public_token, unique=True)

    class Meta:
        ordering = ["position", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["question", "key"], name="one_exemplar_reference_key"),
        ]

    def __str__(self) -> str:
        return f"reference {self.key} of question {self.question_id}"


class DeepScholarLabel(JudgmentBase):
    """One expert label of one DeepScholar unit (see the module docstring for the keys)."""

    class Kind(models.TextChoices):
        ORGANIZATION = "organization", "Organization"
        NUGGET_IMPORTANCE = "nugget_importance", "Nugget importance"
        NUGGET_SUPPORT = "nugget_support", "Nugget support"
        RETRIEVAL_RELEVANCE = "retrieval_relevance", "Retrieval relevance"
        REFERENCE_IMPORTANCE = "reference_importance", "Reference importance"
        ENTAILMENT = "entailment", "Claim–source entailment"

    kind = models.CharField(max_length=24, choices=Kind.choices)
    report = models.ForeignKey(
        "annotation.Report", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    unit = models.CharField(max_length=400, blank=True)
    label = models.CharField(max_length=24)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["annotator", "question", "setting", "kind", "report", "unit"],
                name="one_deepscholar_label",
            )
        ]
        indexes = [models.Index(fields=["study", "kind"])]
