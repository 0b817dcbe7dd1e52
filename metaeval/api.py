"""Agreement reports over the API: the same dict as the command and the pages."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.views import APIView

from annotation.permissions import require_staff, staff_run_or_404, staff_study_or_404
from concord.report_schema import AGREEMENT_EXAMPLE, AgreementReportSerializer

from .models import ReportRun
from .reports import ReportOptions, agreement_report
from .tasks import start_report

OPTION_PARAMS = [
    OpenApiParameter(name, OpenApiTypes.STR, description=desc)
    for name, desc in [
        ("settings", "comma-separated settings (assigned, near_expert, deep_expert)"),
        ("systems", "comma-separated: keep pairs of these systems only"),
        ("exclude_systems", "comma-separated: drop pairs with these systems"),
        ("expert_agreed", "true: only comparisons whose judgments all agree"),
        ("judge", "judge name (default: the judge with most scores)"),
        ("ties", "threshold | partial | exclude"),
        ("calibration", "match-rate | max-accuracy"),
        ("calibrate_on", "setting to calibrate thresholds on"),
        ("bootstrap", "number of bootstrap rounds (0: none)"),
        ("seed", "bootstrap seed"),
        ("compat", "scholarqa-cs2"),
        (
            "threshold",
            "a fixed judge tie threshold for every metric instead of calibrating "
            "(0: compare exactly; with compat, the script's --dont_use_thresholds)",
        ),
    ]
]


RESEARCHERS_ONLY = "Agreement reports are for researchers and admins."


def options_from(data) -> ReportOptions:
    """Parse query/JSON options; a bad value is a 400 naming the option."""
    values = {}
    for key, raw in data.items():
        if key in {"expert_agreed"}:
            values[key] = str(raw).lower() in {"1", "true", "yes", "on"}
        elif key in {"bootstrap", "seed"}:
            try:
                values[key] = int(raw)
            except (TypeError, ValueError):
                raise ValidationError({key: f"{raw!r} is not a whole number"}) from None
        elif key in {"format"}:
            continue
        else:
            values[key] = raw if raw != "" else None
    try:
        return ReportOptions.from_dict(values)
    except (ValueError, TypeError) as exc:
        raise ValidationError({"options": str(exc)}) from exc


class AgreementView(APIView):
    """GET: the agreement report of a study, computed now."""

    throttle_classes = [ScopedRateThrottle]  # an expensive computation (settings)
    throttle_scope = "reports"

    @extend_schema(
        parameters=OPTION_PARAMS,
        responses={200: AgreementReportSerializer},
        examples=[AGREEMENT_EXAMPLE],
    )
    def get(self, request, study_id: int):
        study = staff_study_or_404(request.user, study_id, RESEARCHERS_ONLY)
        try:
            return Response(agreement_report(study.pk, options_from(request.query_params)))
        except ValueError as exc:
            raise ValidationError({"options": str(exc)}) from exc


class ReportRunSerializer(serializers.ModelSerializer):
    class Meta:
        model = ReportRun
        fields = ["id", "study", "options", "status", "progress", "result", "error",
                  "created_at", "finished_at"]  # fmt: skip
        read_only_fields = fields


class ReportRunStartSerializer(serializers.Serializer):
    study = serializers.IntegerField()
    options = serializers.DictField(required=False)


class ReportRunListView(APIView):
    """POST: start a report as a Celery task (for bootstrap runs); poll the run's URL."""

    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "reports"

    @extend_schema(request=ReportRunStartSerializer, responses={202: ReportRunSerializer})
    def post(self, request):
        require_staff(request.user, RESEARCHERS_ONLY)  # before the body is looked at
        body = ReportRunStartSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        study = staff_study_or_404(request.user, body.validated_data["study"], RESEARCHERS_ONLY)
        options = options_from(body.validated_data.get("options") or {})
        run = start_report(study, options, request.user)
        return Response(ReportRunSerializer(run).data, status=status.HTTP_202_ACCEPTED)


class ReportRunDetailView(APIView):
    @extend_schema(responses={200: ReportRunSerializer})
    def get(self, request, run_id: int):
        run = staff_run_or_404(request.user, ReportRun.objects, run_id, RESEARCHERS_ONLY)
        return Response(ReportRunSerializer(run).data)
