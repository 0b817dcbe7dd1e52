"""API of per-judge alignment with the experts (researchers and admins read).

``GET  /api/studies/{id}/judge-alignment/``  the dict of :func:`metaeval.alignment.judge_alignment`

In metaeval, not judges: it computes statistics over the judges' verdicts, and judges may
not import metaeval (README "Architecture").
"""

from drf_spectacular.utils import extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.permissions import staff_study_or_404
from concord.api_parameters import RefusesUnknownParameters, checks_own_parameters
from concord.report_schema import ALIGNMENT_EXAMPLE, JudgeAlignmentSerializer
from concord.throttles import ScopedRateThrottle
from judges.run_api import RESEARCHERS_ONLY

from . import options as report_options
from .alignment import judge_alignment
from .api import OPTION_PARAMS, options_from


class JudgeAlignmentView(RefusesUnknownParameters, APIView):
    """GET: every judge of the study against the experts (Table 5, Fig. 10, coverage)."""

    throttle_classes = [ScopedRateThrottle]  # an expensive computation (settings)
    throttle_scope = "reports"

    @checks_own_parameters  # the report options refuse unknown names (options_from)
    @extend_schema(
        parameters=OPTION_PARAMS,
        responses={200: JudgeAlignmentSerializer},
        examples=[ALIGNMENT_EXAMPLE],
    )
    def get(self, request, study_id: int):
        study = staff_study_or_404(request.user, study_id, RESEARCHERS_ONLY)
        try:
            return Response(
                judge_alignment(study.pk, options_from(request.query_params, also=("format",)))
            )
        except ValueError as exc:
            raise report_options.refused(exc) from exc
