"""API shapes for judges and their scores (researchers read, admins write)."""

from rest_framework import serializers

from annotation.serializers import ReportRef
from judges.llm import LLMConfig
from judges.models import Judge, JudgeScore

#: Judge parameters that are credentials: never sent back (a researcher reads judges).
SECRET_PARAMETERS = ("api_key", "extra_headers")  # headers carry keys too (Azure api-key, proxies)
MASK = "********"


class JudgeSerializer(serializers.ModelSerializer):
    """A judge. Credentials in ``parameters`` are shown as ``MASK``; writing ``MASK`` back
    keeps the stored value, so a client can round-trip what it read without erasing it."""

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
        stored = self.instance.parameters if self.instance is not None else {}
        for key in SECRET_PARAMETERS:
            if value.get(key) == MASK:
                if key in stored:
                    value = {**value, key: stored[key]}
                else:
                    value = {k: v for k, v in value.items() if k != key}
        return value

    def validate(self, attrs):
        """Parameters a run would refuse are refused now, naming the parameter (issue 28)."""
        current = self.instance
        try:
            LLMConfig.check_parameters(
                attrs.get("name", current.name if current else ""),
                attrs.get("model", current.model if current else ""),
                attrs.get("parameters", current.parameters if current else {}),
            )
        except ValueError as exc:
            raise serializers.ValidationError({"parameters": str(exc)}) from exc
        return attrs

    def to_representation(self, instance):
        data = super().to_representation(instance)
        parameters = data.get("parameters")
        if isinstance(parameters, dict):
            data["parameters"] = {
                k: (MASK if k in SECRET_PARAMETERS and v else v) for k, v in parameters.items()
            }
        return data


class JudgeScoreSerializer(serializers.ModelSerializer):
    """A judge's score of one report (by public id); the report's question and system are
    given read-only so an analysis needs no second request."""

    report = ReportRef()
    question = serializers.IntegerField(source="report.question_id", read_only=True)
    system = serializers.IntegerField(source="report.system_id", read_only=True)

    class Meta:
        model = JudgeScore
        fields = ["id", "judge", "report", "question", "system", "metric", "value", "rationale"]
