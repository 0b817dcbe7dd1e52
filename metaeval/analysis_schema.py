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


# ----------------------------------------------------------------------------- coverage


class HumanVsHumanSerializer(s.Serializer):
    exact = _float()
    binarised = _float()
    weighted_kappa = _float()
    krippendorff_alpha = _float()
    units = s.IntegerField()
    pairs = s.IntegerField()
    note = s.CharField(allow_null=True)


class CoverageBlockSerializer(s.Serializer):
    confusion = s.ListField(child=s.ListField(child=s.IntegerField()),
                            help_text="5×5 human (rows) × judge (columns), Fig. 11")  # fmt: skip
    n = s.IntegerField()
    exact = _fig()
    binarised = _fig(help_text="{0,1} vs {2,3,4} (PA 0.73 in 001)")
    weighted_kappa = _fig()
    pearson = _fig()
    mean_difference = _fig()


class CoverageJudgeSerializer(s.Serializer):
    judge = s.CharField()
    all = CoverageBlockSerializer()
    not_labelled_by_judge = s.IntegerField()
    fields = s.DictField(child=CoverageBlockSerializer(), required=False,
                         help_text="per question field")  # fmt: skip


class CoverageSerializer(s.Serializer):
    units = s.IntegerField()
    human_vs_human = HumanVsHumanSerializer()
    judges = CoverageJudgeSerializer(many=True)
    judge_differences = JudgeDifferenceSerializer(many=True)


class BinaryFiguresSerializer(s.Serializer):
    accuracy = _fig()
    precision = _fig()
    recall = _fig()
    f1 = _fig()


class BinaryJudgeSerializer(s.Serializer):
    judge = s.CharField()
    n = s.IntegerField()
    kappa = _fig()
    unweighted = BinaryFiguresSerializer()
    weighted = BinaryFiguresSerializer(help_text="weighted by rubric-item weight (004 §4.3)")
    judge_coverage_by_system = s.ListField(child=_float(), help_text="in `systems` order")


class ResearcherBenchSerializer(s.Serializer):
    reports_scored = s.IntegerField()
    systems = s.ListField(child=s.CharField())
    human_coverage_by_system = s.DictField(child=FigureSerializer())
    judges = BinaryJudgeSerializer(many=True)
    judge_differences = JudgeDifferenceSerializer(many=True)
