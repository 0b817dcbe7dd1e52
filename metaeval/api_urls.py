from django.urls import path

from . import alignment_api, api

urlpatterns = [
    path("studies/<int:study_id>/agreement/", api.AgreementView.as_view(), name="api-agreement"),
    path(
        "studies/<int:study_id>/judge-alignment/",
        alignment_api.JudgeAlignmentView.as_view(),
        name="api-judge-alignment",
    ),
    path("report-runs/", api.ReportRunListView.as_view(), name="api-report-runs"),
    path("report-runs/<int:run_id>/", api.ReportRunDetailView.as_view(), name="api-report-run"),
]
