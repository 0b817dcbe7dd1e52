"""The judges' side of every comparison: who judged, and the scores they gave (METHODS §4)."""

from django.db import models


class Judge(models.Model):
    name = models.CharField(max_length=200, unique=True)
    provider = models.CharField(max_length=100, blank=True)
    model = models.CharField(max_length=200, blank=True)
    prompt_template = models.TextField(blank=True)
    prompt_version = models.CharField(max_length=50, blank=True)
    parameters = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class JudgeScore(models.Model):
    """A judge's score of one report on one metric, with its rationale when given."""

    judge = models.ForeignKey(Judge, on_delete=models.CASCADE, related_name="scores")
    report = models.ForeignKey("annotation.Report", on_delete=models.CASCADE, related_name="+")
    metric = models.CharField(max_length=40)
    value = models.FloatField()
    rationale = models.TextField(blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["judge", "report", "metric"], name="one_judge_score"
            )
        ]
