from django.urls import path

from . import run_api

urlpatterns = [
    path("judge-runs/", run_api.JudgeRunListView.as_view(), name="api-judge-runs"),
    path("judge-runs/<int:run_id>/", run_api.JudgeRunDetailView.as_view(), name="api-judge-run"),
    path(
        "judge-runs/<int:run_id>/resume/",
        run_api.JudgeRunActionView.as_view(action="resume"),
        name="api-judge-run-resume",
    ),
    path(
        "judge-runs/<int:run_id>/cancel/",
        run_api.JudgeRunActionView.as_view(action="cancel"),
        name="api-judge-run-cancel",
    ),
]
