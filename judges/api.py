"""REST API of the judges app, registered on the one router of ``studio.api_urls``.

Judges and their scores are researcher data: annotators see none of it (a judge's rationale
may name what it compared), researchers read, admins write.
"""

from django.db.models import Q

from annotation.api import RoleViewSet, filtered
from judges import serializers as s
from judges.models import Judge, JudgeScore, judged_in


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
