"""The agreement API, mounted at ``api/`` (concord/urls.py).

The views are imported at their first request (:mod:`concord.lazy_views`): they load the
statistics (numpy, scipy), which no annotator's request needs."""

from django.urls import path

from concord.lazy_views import lazy_view

urlpatterns = [
    path(
        "studies/<int:study_id>/agreement/",
        lazy_view("metaeval.api.AgreementView"),
        name="api-agreement",
    ),
    path(
        "studies/<int:study_id>/judge-alignment/",
        lazy_view("metaeval.alignment_api.JudgeAlignmentView"),
        name="api-judge-alignment",
    ),
    path("report-runs/", lazy_view("metaeval.api.ReportRunListView"), name="api-report-runs"),
    path(
        "report-runs/<int:run_id>/",
        lazy_view("metaeval.api.ReportRunDetailView"),
        name="api-report-run",
    ),
]
