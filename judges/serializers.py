"""API shapes for judges and their scores (researchers read, admins write)."""

from rest_framework import serializers

from annotation.serializers import ReportRef
from judges.llm import LLMConfig, private_address
from judges.models import Judge, JudgeScore
from judges.scoring.metrics import metric_problem, value_problem
from judges.secrets import MaskError, masked_parameters, unmasked_parameters


class JudgeSerializer(serializers.ModelSerializer):
    """A judge. Credentials in ``parameters`` are shown as ``MASK``; writing ``MASK`` back
    keeps the stored value, so a client can round-trip what it read without erasing it
    (the rule: :mod:`judges.secrets`, which the judge card of every report follows too)."""

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
        base_url = value.get("base_url")
        if isinstance(base_url, str) and base_url:
            refused = private_address(base_url)
            if refused:
                raise serializers.ValidationError(
                    f"base_url: {refused}; allowed only with CONCORD_JUDGE_ALLOW_PRIVATE=1"
                )
        stored = self.instance.parameters if self.instance is not None else {}
        try:
            return unmasked_parameters(value, stored)
        except MaskError as exc:
            raise serializers.ValidationError(str(exc)) from exc

    def validate(self, attrs):
        """Parameters a run would refuse are refused now, naming the parameter (issue 28):
        when the judge is created or what the check reads (name, model, parameters) is
        written. A PATCH of anything else (its prompt version) leaves the stored parameters
        as they are: an imported or simulated judge's own (``simulated``, ``source``) made
        every field of it unwritable (found by a researcher with a token)."""
        current = self.instance
        if current is not None and not {"name", "model", "parameters"} & set(attrs):
            return attrs
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
        if "parameters" in data:
            data["parameters"] = masked_parameters(data["parameters"])
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
        #: A judge's rationale is stored as given (DRF trims a text field's ends by default).
        extra_kwargs = {"rationale": {"trim_whitespace": False}}

    def validate(self, attrs):
        """The metric must be a judge metric and the value within its scale, as in the
        importers (:mod:`judges.scoring.metrics`); a PATCH is checked with the stored
        metric or value for the half it leaves out."""
        metric = attrs.get("metric", getattr(self.instance, "metric", None))
        value = attrs.get("value", getattr(self.instance, "value", None))
        problem = metric_problem(metric)
        if problem:
            raise serializers.ValidationError({"metric": problem})
        problem = value_problem(metric, value) if value is not None else None
        if problem:
            raise serializers.ValidationError({"value": problem})
        return attrs


class ResultsRemovalSerializer(serializers.Serializer):
    """What ``DELETE /api/judges/{id}/results/?study=`` deleted (or, with ``dry_run``,
    would delete): rows per kind (judge output model, and ``JudgeRun``)."""

    judge = serializers.IntegerField(source="judge.pk")
    judge_name = serializers.CharField(source="judge.name")
    study = serializers.IntegerField(source="study.pk")
    study_name = serializers.CharField(source="study.name")
    dry_run = serializers.BooleanField()
    deleted = serializers.DictField(child=serializers.IntegerField())
