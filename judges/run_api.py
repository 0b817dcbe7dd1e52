"""API of judge runs (researchers read; admins start and resume).

``GET  /api/judge-runs/?study=&judge=``      runs with their progress
``POST /api/judge-runs/``                    {"judge", "study", "tasks", "options"} (admin)
``GET  /api/judge-runs/{id}/``               one run
``POST /api/judge-runs/{id}/resume/``        resume an unfinished run (admin; "force": true)
``POST /api/judge-runs/{id}/cancel/``        cancel (admin)
"""

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers, status
from rest_framework.exceptions import PermissionDenied, ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation import roles
from annotation.api import id_filter
from annotation.models import Study
from annotation.permissions import (
    listed_study_or_404,
    readable_studies,
    require_staff,
    staff_run_or_404,
)
from concord.api_parameters import RefusesUnknownParameters
from concord.pagination import LimitOffsetPagination
from concord.query import id_value, one_value

from . import run_options, runs
from .models import Judge, JudgeRun

RESEARCHERS_ONLY = "Judge runs and alignment are for researchers and admins."


def _admin(request) -> None:
    if not roles.is_admin(request.user):
        raise PermissionDenied("Only an admin may start, resume or cancel a judge run.")


class JudgeRunSerializer(serializers.ModelSerializer):
    judge_name = serializers.CharField(source="judge.name", read_only=True)
    progress = serializers.FloatField(read_only=True)

    class Meta:
        model = JudgeRun
        fields = ["id", "judge", "judge_name", "study", "tasks", "options", "status",
                  "progress", "total_units", "done_units", "failed_units", "requests",
                  "cache_hits", "prompt_tokens", "completion_tokens", "cost", "errors",
                  "created_at", "started_at", "finished_at", "heartbeat_at"]  # fmt: skip
        read_only_fields = fields


class StartRunSerializer(serializers.Serializer):
    judge = serializers.PrimaryKeyRelatedField(queryset=Judge.objects.all())
    study = serializers.PrimaryKeyRelatedField(queryset=Study.objects.all())
    tasks = serializers.ListField(
        child=serializers.ChoiceField(choices=JudgeRun.Task.values), allow_empty=False
    )
    options = serializers.DictField(
        required=False, default=dict, help_text="run options: " + run_options.describe()
    )


class JudgeRunListView(RefusesUnknownParameters, generics.GenericAPIView):
    serializer_class = JudgeRunSerializer
    pagination_class = LimitOffsetPagination
    queryset = JudgeRun.objects.none()  # get() scopes to the user's studies
    #: what the list reads (any other parameter is a 400: concord.pagination)
    query_parameters = ("study", "judge")

    @extend_schema(
        parameters=[
            id_filter("study"),  # the 404 of every list's study filter, documented
            id_filter("judge"),
        ],
        responses={200: JudgeRunSerializer(many=True)},
    )
    def get(self, request):
        """Paginated like every list of the API (``limit``/``offset``; it was cut at 200
        runs without saying so and ignored ``limit``, issue 28), newest first."""
        require_staff(request.user, RESEARCHERS_ONLY)
        qs = JudgeRun.objects.select_related("judge").filter(
            study__in=readable_studies(request.user)
        )
        for key in self.query_parameters:
            value = one_value(request.query_params, key)  # given twice: a 400 naming it
            if value:
                pk = id_value(value, key)
                if key == "study":  # not theirs, or none: the 404 of every list's filter
                    listed_study_or_404(request.user, pk)
                qs = qs.filter(**{f"{key}_id": pk})
        page = self.paginate_queryset(qs.order_by("-pk"))
        return self.get_paginated_response(JudgeRunSerializer(page, many=True).data)

    @extend_schema(request=StartRunSerializer, responses={202: JudgeRunSerializer})
    def post(self, request):
        _admin(request)
        data = StartRunSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        try:
            run = runs.start_run(v["judge"], v["study"], v["tasks"], v["options"], request.user)
        except runs.RunOptionError as exc:
            raise ValidationError({"options": {exc.option: exc.detail}}) from exc
        except runs.RunError as exc:
            raise ValidationError({"run": str(exc)}) from exc
        return Response(JudgeRunSerializer(run).data, status=status.HTTP_202_ACCEPTED)


class JudgeRunDetailView(RefusesUnknownParameters, APIView):
    @extend_schema(responses={200: JudgeRunSerializer})
    def get(self, request, run_id: int):
        run = staff_run_or_404(request.user, JudgeRun.objects, run_id, RESEARCHERS_ONLY)
        return Response(JudgeRunSerializer(run).data)


class JudgeRunActionView(RefusesUnknownParameters, APIView):
    action = "resume"

    @extend_schema(request=None, responses={202: JudgeRunSerializer})
    def post(self, request, run_id: int):
        _admin(request)
        run = get_object_or_404(JudgeRun, pk=run_id)
        try:
            if self.action == "resume":
                force = str(request.data.get("force", "")).lower() in {"1", "true", "yes"}
                run = runs.resume_run(run, force=force)
            else:
                runs.cancel_run(run)
                run.refresh_from_db()
        except runs.RunError as exc:
            raise ValidationError({"run": str(exc)}) from exc
        return Response(JudgeRunSerializer(run).data, status=status.HTTP_202_ACCEPTED)
