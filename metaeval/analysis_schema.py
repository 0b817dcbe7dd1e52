"""OpenAPI shapes of the issue-16 analysis sections (``metaeval/sections/<kind>.py``): each
section's result typed field by field, so the report schema lists every figure rather
than a free-form object. A figure is always :class:`FigureSerializer` (value with its
cluster-bootstrap CI, n, and the note saying why it is null)."""

from rest_framework import serializers as s


def _float(**kw):
    return s.FloatField(allow_null=True, **kw)


class FigureSerializer(s.Serializer):
    value = _float(help_text="the figure (null: not defined, see note)")
    n = s.IntegerField(allow_null=True)
    low = _float(help_text="cluster-bootstrap CI low (null without bootstrap)")
    high = _float()
    note = s.CharField(allow_null=True)


def _fig(**kw):
    return FigureSerializer(allow_null=True, **kw)


class JudgeDifferenceSerializer(s.Serializer):
    a = s.CharField()
    b = s.CharField()
    agreement_a = _float()
    agreement_b = _float()
    difference = _float()
    pvalue = _float(help_text="paired permutation test over questions")
    n = s.IntegerField()
    questions = s.IntegerField()
    note = s.CharField(allow_null=True)


# ----------------------------------------------------------------------------- ResearchQA


class MajoritySerializer(s.Serializer):
    items = s.IntegerField()
    no_majority = s.IntegerField()
    direction = s.IntegerField()


class PairwiseJudgeSerializer(s.Serializer):
    judge = s.CharField()
    protocol = s.CharField()
    accuracy = _fig()


class PairwiseSerializer(s.Serializer):
    comparisons = s.IntegerField()
    majority = MajoritySerializer()
    human_vs_majority = _fig()
    human_vs_majority_skipped = s.IntegerField()
    binarised_pa = _fig()
    judges = PairwiseJudgeSerializer(many=True)
    judge_differences = JudgeDifferenceSerializer(many=True)


class LeaderboardRowSerializer(s.Serializer):
    system = s.CharField()
    rating = _float()
    median = _float()
    sd = _float()
    low = _float()
    high = _float()
    battles = s.IntegerField()
    points = s.FloatField()


class BoardSerializer(s.Serializer):
    source = s.CharField(help_text="human, or a judge's name")
    rows = LeaderboardRowSerializer(many=True)
    notes = s.ListField(child=s.CharField())
    resampled = s.CharField(allow_null=True)


class WinProbabilitySerializer(s.Serializer):
    source = s.CharField()
    a = s.CharField()
    b = s.CharField()
    probability = _float(help_text="P(a beats b) = 1 / (1 + 10^((R_b - R_a)/400)), 001 §4.1")


class LeaderboardSerializer(s.Serializer):
    boards = BoardSerializer(many=True)
    win_probability = WinProbabilitySerializer(many=True, help_text="each system against the next")
