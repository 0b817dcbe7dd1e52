"""OpenAPI shape of the judge card (``report["judge_card"]``, docs/ANALYSES.md §13): every
figure typed as :class:`~metaeval.analysis_schema.AnalysisFigureSerializer` (value, CI, n,
and the note saying why it is null)."""

from rest_framework import serializers as s

from .analysis_schema import (
    AnalysisFigureSerializer,
    HumanSignalSerializer,
    JudgeDifferenceSerializer,
)


def _fig(**kw):
    return AnalysisFigureSerializer(**kw)


class PositionSerializer(s.Serializer):
    order_consistency = _fig(help_text="same verdict after swapping the two reports")
    first_shown = _fig(help_text="share of decisive verdicts for the report shown first")


class LengthSerializer(s.Serializer):
    judge = _fig(help_text="P(the judge prefers the longer report), ties left out")
    experts = _fig(help_text="the same for the experts on the same pairs")
    difference = _fig(help_text="judge − experts, CI of the difference")
    judge_rho = _fig(help_text="score judges: Spearman ρ of the score with length")
    experts_rho = _fig(help_text="Spearman ρ of the experts' mean medal value with length")


class TiesSerializer(s.Serializer):
    judge = _fig()
    experts = _fig()
    difference = _fig(help_text="judge − experts")


#: The card's protocol kinds (a string in the schema: a second enum of a field named
#: ``kind`` would rename the citations' ``KindEnum`` every client already reads).
KINDS = ("pairwise", "score", "labels")


class ProtocolCardSerializer(s.Serializer):
    protocol = s.CharField(
        help_text="direct / ensemble (pairwise), the metric (score), coverage / covered (labels)"
    )
    kind = s.CharField(help_text=" / ".join(KINDS))
    verdicts = s.IntegerField()
    comparisons = s.IntegerField()
    agreement = _fig()
    agreement_reference = s.CharField()
    experts_agreement = _fig()
    threshold = s.FloatField(allow_null=True, help_text="score judges: the tie threshold")
    position = PositionSerializer()
    length = LengthSerializer()
    ties = TiesSerializer()
    runs = s.ListField(child=s.CharField(), help_text="the judges that are runs of this one")
    self_agreement = _fig()
    line = s.CharField(help_text="the verdict line, written from the figures above")


class OperationsSerializer(s.Serializer):
    runs = s.IntegerField()
    requested = s.IntegerField(allow_null=True)
    parsed = s.IntegerField(allow_null=True)
    parsed_share = s.FloatField(allow_null=True)
    refused = s.IntegerField(allow_null=True)
    failed = s.IntegerField(allow_null=True)
    tokens = s.IntegerField(allow_null=True)
    cost = s.FloatField(allow_null=True)
    seconds = s.FloatField(allow_null=True)
    tokens_per_1000 = s.FloatField(allow_null=True)
    cost_per_1000 = s.FloatField(allow_null=True)
    seconds_per_1000 = s.FloatField(allow_null=True)
    note = s.CharField(allow_null=True)


class CardTestSerializer(JudgeDifferenceSerializer):
    protocol = s.CharField()


class JudgeCardSerializer(s.Serializer):
    judge = s.CharField()
    provider = s.CharField()
    model = s.CharField()
    prompt_version = s.CharField()
    parameters = s.DictField()
    protocols = ProtocolCardSerializer(many=True)
    operations = OperationsSerializer()
    tests = CardTestSerializer(many=True)


class JudgeCardAnalysisSerializer(s.Serializer):
    judges = JudgeCardSerializer(many=True)
    tests = CardTestSerializer(many=True)
    human_signal = HumanSignalSerializer(required=False)
