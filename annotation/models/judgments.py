"""What annotators decide. These tables are what the meta-evaluation reads (METHODS §2, §5).

A medal ranking is stored as such (one Medal row per report) and decomposed into pairwise
decisions only when analysed; metric-wise scores are stored per report on the judge's scale.
"""

from django.db import models

from .assignment import Setting


class JudgmentBase(models.Model):
    study = models.ForeignKey("annotation.Study", on_delete=models.PROTECT, related_name="+")
    annotator = models.ForeignKey(
        "annotation.Annotator", on_delete=models.PROTECT, related_name="+"
    )
    question = models.ForeignKey("annotation.Question", on_delete=models.PROTECT, related_name="+")
    setting = models.CharField(max_length=20, choices=Setting.choices, default=Setting.ASSIGNED)
    assignment = models.ForeignKey(
        "annotation.Assignment", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        abstract = True


class MedalRanking(JudgmentBase):
    """Gold / silver / bronze over 2–3 reports, two-way ties allowed (003 §4.1).

    ``study`` has no index of its own (``db_index=False``, the base's field otherwise): the
    unique (study, annotator, question, setting) leads with it (issue 29: fewer indexes
    written per row of a large import)."""

    study = models.ForeignKey(
        "annotation.Study", on_delete=models.PROTECT, related_name="+", db_index=False
    )
    reasoning = models.TextField(blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["study", "annotator", "question", "setting"], name="one_ranking"
            )
        ]

    def __str__(self) -> str:
        return f"ranking by {self.annotator_id} on question {self.question_id}"


class Medal(models.Model):
    class Value(models.TextChoices):
        GOLD = "gold", "Gold"
        SILVER = "silver", "Silver"
        BRONZE = "bronze", "Bronze"

    #: The released ScholarQA-CS2 encoding (`preference_ranking_norm`).
    SCORE = {"gold": 1.0, "silver": 0.5, "bronze": 0.0}
    FROM_SCORE = {1.0: "gold", 0.5: "silver", 0.0: "bronze"}

    #: No index of its own: the unique (ranking, report) leads with it (issue 29).
    ranking = models.ForeignKey(
        MedalRanking, on_delete=models.CASCADE, related_name="medals", db_index=False
    )
    report = models.ForeignKey("annotation.Report", on_delete=models.PROTECT, related_name="+")
    medal = models.CharField(max_length=10, choices=Value.choices)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["ranking", "report"], name="one_medal_per_report")
        ]

    def __str__(self) -> str:
        return f"{self.medal} for report {self.report_id}"

    @property
    def score(self) -> float:
        return self.SCORE[self.medal]


class PairwisePreference(JudgmentBase):
    """Left / right / tie / both bad with a required reason (ResearchQA)."""

    class Choice(models.TextChoices):
        LEFT = "left", "Left better"
        RIGHT = "right", "Right better"
        TIE = "tie", "Tie"
        BOTH_BAD = "both_bad", "Both bad"

    left = models.ForeignKey("annotation.Report", on_delete=models.PROTECT, related_name="+")
    right = models.ForeignKey("annotation.Report", on_delete=models.PROTECT, related_name="+")
    choice = models.CharField(max_length=10, choices=Choice.choices)
    reason = models.TextField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["study", "annotator", "left", "right", "setting"], name="one_preference"
            )
        ]

    def __str__(self) -> str:
        return f"{self.choice} ({self.left_id} vs {self.right_id})"


class HumanMetricScore(JudgmentBase):
    """A metric-wise human score of one report, on the judge's scale (METHODS §3)."""

    report = models.ForeignKey("annotation.Report", on_delete=models.PROTECT, related_name="+")
    metric = models.CharField(max_length=40)
    value = models.FloatField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["study", "annotator", "report", "setting", "metric"],
                name="one_human_metric_score",
            )
        ]

    def __str__(self) -> str:
        return f"{self.metric}={self.value:g} for report {self.report_id}"


class ExpertAgreedRecord(models.Model):
    """One released expert-agreed comparison, as its authors published it.

    Why a table of its own: ScholarQA-CS2's ``pairwise_*_assigned_agreement_only.json``
    (seed 003 Table 2/3 "Expert-Agreed") are not one annotator's judgments but the
    comparisons on which both annotators agree, with the mean of their medal scores and
    the judge scores the authors shipped beside them, which differ from the ann1/ann2
    files on a few reports (null citation scores where those have 0.0). The released
    script reads these records for ``--human_agreed``; compatibility mode reads them too
    (METHODS §6), while the default mode derives the subset from the annotations.
    """

    study = models.ForeignKey(
        "annotation.Study", on_delete=models.CASCADE, related_name="expert_agreed_records"
    )
    setting = models.CharField(max_length=20, choices=Setting.choices, default=Setting.ASSIGNED)
    question = models.ForeignKey("annotation.Question", on_delete=models.CASCADE, related_name="+")
    report_a = models.ForeignKey("annotation.Report", on_delete=models.CASCADE, related_name="+")
    report_b = models.ForeignKey("annotation.Report", on_delete=models.CASCADE, related_name="+")
    #: the judge whose scores ``judge_scores`` holds (a name: these scores are the file's,
    #: not the judge's stored JudgeScore rows)
    judge_name = models.CharField(max_length=200)
    #: order read: file order, files in the order imported (the script concatenates them)
    position = models.PositiveIntegerField()
    #: [a, b] mean medal score of the agreeing annotators (gold 1, silver 0.5, bronze 0)
    preference = models.JSONField()
    #: {metric: [a, b]} human fields of the record (rank-like ones under rank_<metric>)
    human = models.JSONField(default=dict)
    #: {metric: [a, b]} the record's judge scores; null where the file has null
    judge_scores = models.JSONField(default=dict)

    class Meta:
        ordering = ["position", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["study", "setting", "judge_name", "report_a", "report_b"],
                name="one_expert_agreed_record",
            )
        ]

    def __str__(self) -> str:
        return f"expert-agreed {self.report_a_id} vs {self.report_b_id} ({self.judge_name})"
