"""API views that compose several apps. The study viewset here is annotation's plus the one
way to delete a study, which writes the full backup first (the backup holds judges'
verdicts too, so deleting sits above annotation, judges and metaeval)."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.response import Response

from annotation import api as annotation_api
from annotation import serializers as s
from studio.studyadmin import StudyAdminError
from studio.studyadmin.deletion import delete_study


class StudyViewSet(annotation_api.StudyViewSet):
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
            return Response({exc.field: [exc.message]}, status=status.HTTP_400_BAD_REQUEST)
        return Response(
            {"study": done.study, "backup": done.backup.name, "judgments": done.judgments,
             "versions": done.versions}
        )  # fmt: skip
