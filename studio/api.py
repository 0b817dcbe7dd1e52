"""API views that compose several apps. The study viewset here is annotation's plus the one
way to delete a study, which writes the full backup first (the backup holds judges'
verdicts too, so deleting sits above annotation, judges and metaeval)."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.decorators import action
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response

from annotation import api as annotation_api
from annotation import serializers as s
from annotation.permissions import IsAdmin, staff_study_or_404
from concord.error_body import from_drf
from studio.studyadmin import StudyAdminError, planning
from studio.studyadmin.deletion import delete_study
from studio.studyadmin.forms import PlanForm
from studio.studyadmin.progress import study_progress


class PlanRequestSerializer(serializers.Serializer):
    """The plan page's form as JSON (``studio.studyadmin.forms.PlanForm``, the same rules)."""

    action = serializers.ChoiceField(["preview", "commit"], default="preview",
                                     help_text="preview: what the plan would create; commit: "
                                     "create it (pass the preview's fingerprint to make sure "
                                     "it is the plan you saw)")  # fmt: skip
    task = serializers.CharField()
    strategy = serializers.CharField(default="random")
    overlap = serializers.IntegerField(default=2)
    seed = serializers.IntegerField(default=0)
    per_expert = serializers.IntegerField(default=5)
    systems_per_question = serializers.IntegerField(required=False, allow_null=True)
    capacity = serializers.IntegerField(required=False, allow_null=True)
    split = serializers.CharField(required=False, allow_blank=True, default="")
    annotators = serializers.ListField(child=serializers.IntegerField(), required=False,
                                       help_text="annotator ids; empty = every annotator "
                                       "with an account")  # fmt: skip
    fingerprint = serializers.CharField(required=False, allow_blank=True, default="")


def plan_answer(result: planning.Preview, committed: bool) -> dict:
    """A plan as the page shows it: counts, what is short or left out and why (the page's
    reasons, ``Preview.short`` and ``Preview.left_out``), each planned assignment
    (annotator pseudonym, question external id, report ids), and how many unstarted
    assignments it withdraws (``withdrawn``) and why (``withdrawn_reasons``). ``wanted`` is null when the
    plan asked no question for annotators (a budget plan of 0 new assignments)."""
    keys = result.question_keys
    return {
        "committed": committed,
        "fingerprint": result.fingerprint,
        "task": result.spec.task,
        "setting": result.setting,
        "assignments": result.summary.assignments,
        "withdrawn": len(result.withdrawn),
        "withdrawn_reasons": [{"reason": why, "assignments": n}
                              for why, n in result.withdrawn_why],
        "per_annotator": dict(result.annotator_rows()),
        "wanted": result.summary.wanted or None,
        "short": [{"question": u.key, "got": u.got, "wanted": u.wanted, "reason": u.reason}
                  for u in result.short],
        "left_out": [{"question": u.key, "reason": u.reason} for u in result.left_out],
        "reasons": [{"reason": why, "questions": n} for why, n in result.reasons()],
        "plan": [
            {"annotator": result.names.get(a.annotator, a.annotator),
             "question": keys.get(a.question, a.question), "reports": list(a.reports),
             "reason": a.reason}
            for a in result.plan.assignments
        ],
    }  # fmt: skip


class StudyViewSet(annotation_api.StudyViewSet):
    @extend_schema(
        summary="Preview or commit an assignment plan",
        request=PlanRequestSerializer,
        responses={200: OpenApiTypes.OBJECT, 201: OpenApiTypes.OBJECT},
        description=(
            "Preview or commit an assignment plan (admin only), with the rules of the study's "
            "plan page: `action=preview` answers the plan (counts per annotator, questions "
            "short or left out and why, every planned assignment and a fingerprint); "
            "`action=commit` writes it (201), refused with a 400 when the study changed since "
            "the preview whose fingerprint is given. A bad field is a 400 naming it."
        ),
    )
    @action(detail=True, methods=["post"], url_path="plan", url_name="plan",
            permission_classes=[IsAuthenticated, IsAdmin])  # fmt: skip
    def plan(self, request, pk=None):
        study = self.get_object()
        body = PlanRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = {k: v for k, v in body.validated_data.items() if v is not None}
        form = PlanForm(study, data)
        if not form.is_valid():
            return Response(from_drf(form.errors), status=status.HTTP_400_BAD_REQUEST)
        try:
            if data["action"] == "commit":
                done = planning.commit(study, form.spec(),
                                       fingerprint=form.cleaned_data["fingerprint"] or None)  # fmt: skip
                return Response(plan_answer(done, True), status=status.HTTP_201_CREATED)
            return Response(plan_answer(planning.preview(study, form.spec()), False))
        except StudyAdminError as exc:
            return Response(
                from_drf({exc.field: [exc.message]}), status=status.HTTP_400_BAD_REQUEST
            )

    @extend_schema(
        summary="A study's progress",
        responses={
            200: inline_serializer(
                "StudyProgress",
                {
                    "not_started": serializers.IntegerField(),
                    "in_progress": serializers.IntegerField(),
                    "submitted": serializers.IntegerField(),
                    "total": serializers.IntegerField(),
                    "median_seconds": serializers.FloatField(allow_null=True),
                    "pending_double": serializers.IntegerField(),
                    "double_total": serializers.IntegerField(),
                    "by_task": serializers.DictField(),
                    "annotators": serializers.ListField(),
                },
            )
        },  # fmt: skip
        description=(
            "How far the study is (researchers and admins): assignments not started, in "
            "progress and submitted, in total, per task and per annotator (by pseudonym), the "
            "median seconds on task (null when nothing is submitted) and the comparisons "
            "still pending double annotation, as on the study's progress page."
        ),
    )
    @action(detail=True, methods=["get"], url_path="progress", url_name="progress")
    def progress(self, request, pk=None):
        study = staff_study_or_404(request.user, pk, "Progress is for researchers and admins.")
        p = study_progress(study)
        return Response({
            "not_started": p.not_started, "in_progress": p.in_progress,
            "submitted": p.submitted, "total": p.total, "median_seconds": p.median_seconds,
            "pending_double": p.pending_double, "double_total": p.double_total,
            "by_task": p.by_task,
            "annotators": [
                {"pseudonym": a.pseudonym, "state": a.state, "not_started": a.not_started,
                 "in_progress": a.in_progress, "submitted": a.submitted, "total": a.total,
                 "median_seconds": a.median_seconds}
                for a in p.annotators
            ],
        })  # fmt: skip

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "confirm",
                OpenApiTypes.STR,
                required=True,
                description="The study's exact name: deleting is explicit and confirmed",
            )
        ],
        responses={200: s.StudyDeletionSerializer},
        description=(
            "Delete a study (admin only): refused unless `confirm` is the study's exact name; "
            "writes the full backup first (`export_study`), then deletes the study with its "
            "judgments, drafts and version history, and answers where the backup is."
        ),
    )
    def destroy(self, request, *args, **kwargs):
        study = self.get_object()
        try:
            done = delete_study(study, confirm=request.query_params.get("confirm", ""))
        except StudyAdminError as exc:
            return Response(
                from_drf({exc.field: [exc.message]}), status=status.HTTP_400_BAD_REQUEST
            )
        return Response(
            {"study": done.study, "backup": done.backup.name, "judgments": done.judgments,
             "versions": done.versions}
        )  # fmt: skip
