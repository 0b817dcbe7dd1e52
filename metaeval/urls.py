"""Report pages, mounted at ``reports/`` (concord/urls.py)."""

from django.urls import path

from . import judge_pages, views

app_name = "metaeval"

urlpatterns = [
    path("<int:study_id>/", views.report_page, name="report"),
    path("<str:study_name>/", views.report_by_name, name="report-by-name"),
    path("<int:study_id>/runs/<int:run_id>/", views.run_progress, name="run"),
    path("<int:study_id>/report.json", views.report_json, name="json"),
    path("<int:study_id>/report.html", views.offline_file, name="offline"),
    path("<int:study_id>/figures/<str:name>.<str:fmt>", views.figure_file, name="figure"),
    path("<int:study_id>/judges/<str:judge>/", judge_pages.judge_page, name="judge"),
    path("<int:study_id>/tables/<str:name>.<str:fmt>", views.table_file, name="table"),
]
