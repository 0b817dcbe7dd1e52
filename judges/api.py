"""REST API of the judges app, registered on the one router of ``studio.api_urls``.

Judges and their scores are researcher data: annotators see none of it (a judge's rationale
may name what it compared), researchers read, admins write. A judge's results are deleted
one study at a time (``DELETE /api/judges/{id}/results/?study=``, :mod:`judges.removal`).
"""

from django.db.models import Q
from django.http import Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response

from annotation.api import RoleViewSet, filtered
from annotation.models import Study
from annotation.permissions import NO_SUCH_STUDY, IsAdmin
from concord.error_body import api_error
from concord.query import flag, id_value, one_value, refuse_unknown_parameters
from judges import removal
from judges import serializers as s
from judges.models import Judge, JudgeScore, judged_in

#: What ``DELETE /api/judges/{id}/results/`` reads; any other parameter is a 400 before
#: anything is deleted (a mistyped ``dryrun=true`` must not delete).
RESULTS_PARAMETERS = (
    OpenApiParameter("study", OpenApiTypes.INT, required=True,
                     description="The study whose results of this judge are deleted"),
    OpenApiParameter("dry_run", OpenApiTypes.BOOL,
                     description="Count what would be deleted, delete nothing"),
)  # fmt: skip


def refused(exc: removal.RemovalRefused):
    """A refused deletion: 409 naming the studies concerned (``studies``: id and name)."""
    studies = [{"id": study.pk, "name": study.name} for study in exc.studies]
    return api_error(str(exc), status.HTTP_409_CONFLICT, studies=studies)


def study_named(params) -> Study:
    """The required ``study`` of a deletion: missing or not an id is a 400 naming it, a
    study that does not exist the 404 of every ``?study=``."""
    raw = one_value(params, "study")
    if raw in (None, ""):
        raise ValidationError({"study": "Required: the study whose results are deleted."})
    study = Study.objects.filter(pk=id_value(raw, "study")).first()
    if study is None:
        raise Http404(NO_SUCH_STUDY)
    return study


class JudgeViewSet(RoleViewSet):
    """A judge's prompts, parameters and base URL are read only by the researchers of a study
    that uses it (a run on the study, or scores of its reports), and by admins (issue 12)."""

    queryset = Judge.objects.all()
    serializer_class = s.JudgeSerializer
    study_lookup = "runs__study"  # or output of any kind there: readable_filter
    ordering = ("name",)

    def readable_filter(self, readable) -> Q:
        """A run on a readable study, or output of any kind there (:func:`judged_in`): a
        DeepScholar judge has labels and no score, and was left out of the list."""
        return Q(runs__study__in=readable) | judged_in(readable)

    @extend_schema(
        responses={204: None, 409: OpenApiResponse(description="Results in several studies")},
        description=(
            "Delete a judge (admin only) with its results, when they lie in one study at "
            "most (recorded in that study's audit trail). A judge with results in several "
            "studies, or whose relevance verdicts annotators adjudicate, is refused (409, "
            "`studies` naming them): delete its results study by study "
            "(`DELETE /api/judges/{id}/results/?study=`) instead."
        ),
    )
    def destroy(self, request, *args, **kwargs):
        try:
            removal.delete_judge(self.get_object(), user=request.user)
        except removal.RemovalRefused as exc:
            return refused(exc)
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(
        summary="Delete a judge's results in one study",
        parameters=list(RESULTS_PARAMETERS),
        request=None,
        responses={
            200: s.ResultsRemovalSerializer,
            404: OpenApiResponse(description="No such study, or no result of the judge in it"),
            409: OpenApiResponse(description="A run of the judge still writes on the study"),
        },
        description=(
            "Delete this judge's results in one study only (admin only): its scores, "
            "coverage, pairwise, relevance, claim verdicts and DeepScholar labels of the "
            "study's reports and its runs on the study. The judge and its results in other "
            "studies stay, and so do disagreements annotators adjudicate. Recorded in the "
            "study's audit trail. `dry_run=true` answers the same counts and deletes nothing. "
            "Refused (409) while a run of the judge on the study is queued or running."
        ),
    )
    @action(detail=True, methods=["delete"], url_path="results", url_name="results",
            permission_classes=[IsAuthenticated, IsAdmin])  # fmt: skip
    def results(self, request, pk=None):
        params = request.query_params
        refuse_unknown_parameters(params, [p.name for p in RESULTS_PARAMETERS])
        judge, study = self.get_object(), study_named(params)
        dry_run = flag(one_value(params, "dry_run"), "dry_run")
        try:
            done = removal.delete_study_results(judge, study, user=request.user, dry_run=dry_run)
        except removal.NothingToDelete as exc:
            return api_error(str(exc), status.HTTP_404_NOT_FOUND)
        except removal.RemovalRefused as exc:
            return refused(exc)
        return Response(s.ResultsRemovalSerializer(done).data)


@filtered("judge", "report", "study")
class JudgeScoreViewSet(RoleViewSet):
    queryset = JudgeScore.objects.select_related("report")
    study_lookup = "report__question__study"
    serializer_class = s.JudgeScoreSerializer
    filters = {"judge": "judge_id", "report": "report_id", "study": "report__question__study_id"}

    def named_scope(self, name: str, studies):
        """``judge`` names a judge with a run or output of any kind in ``studies`` (as the
        judges list shows them); ``report`` as every list's (RoleViewSet)."""
        if name == "judge":
            return Judge.objects.filter(Q(runs__study__in=studies) | judged_in(studies))
        return super().named_scope(name, studies)


def register(router) -> None:
    router.register("judges", JudgeViewSet, basename="judge")
    router.register("judge-scores", JudgeScoreViewSet, basename="judge-score")
