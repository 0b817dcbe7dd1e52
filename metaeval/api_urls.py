from django.urls import path

from . import api

urlpatterns = [
    path("studies/<int:study_id>/agreement/", api.AgreementView.as_view(), name="api-agreement"),
    path("report-runs/", api.ReportRunListView.as_view(), name="api-report-runs"),
    path("report-runs/<int:run_id>/", api.ReportRunDetailView.as_view(), name="api-report-run"),
]
