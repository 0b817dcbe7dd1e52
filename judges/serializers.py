"""API shapes for judges and their scores (researchers read, admins write)."""

from rest_framework import serializers

from annotation.serializers import ReportRef
from judges.models import Judge, JudgeScore


class JudgeSerializer(serializers.ModelSerializer):
    class Meta:
        model = Judge
        fields = [
            "id",
            "name",
            "provider",
            "model",
            "prompt_template",
            "prompt_version",
            "parameters",
        ]

    def validate_parameters(self, value):
        if not isinstance(value, dict):
            raise serializers.ValidationError("Must be a JSON object.")
        return value


class JudgeScoreSerializer(serializers.ModelSerializer):
    """A judge's score of one report (by public id); the report's question and system are
    given read-only so an analysis needs no second request."""

    report = ReportRef()
    question = serializers.IntegerField(source="report.question_id", read_only=True)
    system = serializers.IntegerField(source="report.system_id", read_only=True)

    class Meta:
        model = JudgeScore
        fields = ["id", "judge", "report", "question", "system", "metric", "value", "rationale"]
