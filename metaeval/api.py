"""Agreement reports over the API: the same dict as the command and the pages (the
agreement report and every registered section's result, :func:`metaeval.sections.report`);
the query parameters are derived from the options' declaration (:mod:`metaeval.options`)."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.permissions import require_staff, staff_run_or_404, staff_study_or_404
from concord.api_parameters import RefusesUnknownParameters, checks_own_parameters
from concord.query import flag, one_value
from concord.report_schema import AGREEMENT_EXAMPLE, agreement_report_serializer
from concord.throttles import ScopedRateThrottle

from . import options as report_options
from . import sections
from .models import ReportRun
from .reports import check_names
from .tasks import start_report

#: The report options as OpenAPI query parameters, derived from ReportOptions' declaration.
OPTION_PARAMS = report_options.openapi_parameters()

RESEARCHERS_ONLY = "Agreement reports are for researchers and admins."

#: Query string / JSON -> ReportOptions; a bad value is a 400 naming the option.
options_from = report_options.from_query


TABLES_PARAM = OpenApiParameter(
    "tables", OpenApiTypes.BOOL,
    description="Add `tables`: every table of the report page (the ones its CSV/XLSX/JSON "
    "downloads serve), name -> {columns, rows}, with the interval columns (`ci_*_low`, "
    "`ci_*_high`) when `bootstrap` > 0 (issue 28)",
)  # fmt: skip


#: What the agreement API reads besides the report options (named when one is unknown).
AGREEMENT_PARAMS = ("tables", "format")


class AgreementView(RefusesUnknownParameters, APIView):
    """GET: the agreement report of a study, computed now."""

    throttle_classes = [ScopedRateThrottle]  # an expensive computation (settings)
    throttle_scope = "reports"

    @checks_own_parameters  # the report options refuse unknown names (options_from)
    @extend_schema(
        parameters=[*OPTION_PARAMS, TABLES_PARAM],
        responses={200: agreement_report_serializer(sections.registered())},
        examples=[AGREEMENT_EXAMPLE],
    )
    def get(self, request, study_id: int):
        study = staff_study_or_404(request.user, study_id, RESEARCHERS_ONLY)
        params = request.query_params.copy()
        with_tables = flag(one_value(params, "tables"), "tables")
        params.pop("tables", None)
        try:
            options = options_from(params, also=AGREEMENT_PARAMS)
            if not with_tables:
                return Response(sections.report(study.pk, options))
            from .views import cached_entry

            entry = cached_entry(study.pk, options)
        except ValueError as exc:
            raise report_options.refused(exc) from exc
        tables = {
            name: {"columns": columns, "rows": [{c: row.get(c) for c in columns} for row in rows]}
            for name, (rows, columns) in sections.all_tables(entry).items()
        }
        return Response({**entry["report"], "tables": tables})


class ReportRunSerializer(serializers.ModelSerializer):
    class Meta:
        model = ReportRun
        fields = ["id", "study", "options", "status", "progress", "result", "error",
                  "created_at", "finished_at"]  # fmt: skip
        read_only_fields = fields


class ReportRunStartSerializer(serializers.Serializer):
    study = serializers.IntegerField()
    options = serializers.DictField(required=False)


class ReportRunListView(RefusesUnknownParameters, APIView):
    """POST: start a report as a Celery task (for bootstrap runs); poll the run's URL."""

    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "reports"

    @extend_schema(request=ReportRunStartSerializer, responses={202: ReportRunSerializer})
    def post(self, request):
        require_staff(request.user, RESEARCHERS_ONLY)  # before the body is looked at
        stray = sorted(set(request.data) - set(ReportRunStartSerializer().fields))
        if stray:  # e.g. {"study": 1, "bootstrap": 1000}: ran with the defaults before
            raise ValidationError({key: "not a field of a report run: report options go in "
                                   "'options'" for key in stray})  # fmt: skip
        body = ReportRunStartSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        study = staff_study_or_404(request.user, body.validated_data["study"], RESEARCHERS_ONLY)
        options = options_from(body.validated_data.get("options") or {})
        try:
            check_names(study.pk, options)
        except ValueError as exc:
            raise report_options.refused(exc) from exc
        run = start_report(study, options, request.user)
        return Response(ReportRunSerializer(run).data, status=status.HTTP_202_ACCEPTED)


class ReportRunDetailView(RefusesUnknownParameters, APIView):
    @extend_schema(responses={200: ReportRunSerializer})
    def get(self, request, run_id: int):
        run = staff_run_or_404(request.user, ReportRun.objects, run_id, RESEARCHERS_ONLY)
        return Response(ReportRunSerializer(run).data)
