"""Report pages, mounted at ``reports/`` (concord/urls.py).

The views are imported at their first request (:mod:`concord.lazy_views`): they load the
statistics (numpy, scipy, matplotlib), which no annotator's page needs.

A study is named by id or by name, the page (``<id>/``, ``<name>/``) and its downloads
alike: a download's ``study_id`` is text, an id when it is digits, else a name
(``metaeval.views._study_for``)."""

from django.urls import path

from concord.lazy_views import lazy_view

app_name = "metaeval"

urlpatterns = [
    path("<int:study_id>/", lazy_view("metaeval.views.report_page"), name="report"),
    path("<str:study_name>/", lazy_view("metaeval.views.report_by_name"), name="report-by-name"),
    path("<int:study_id>/runs/<int:run_id>/", lazy_view("metaeval.views.run_progress"), name="run"),
    path("<str:study_id>/report.json", lazy_view("metaeval.views.report_json"), name="json"),
    path("<str:study_id>/report.html", lazy_view("metaeval.views.offline_file"), name="offline"),
    path(
        "<str:study_id>/figures/<str:name>.<str:fmt>",
        lazy_view("metaeval.views.figure_file"),
        name="figure",
    ),
    path(
        "<int:study_id>/judges/<str:judge>/",
        lazy_view("metaeval.judge_pages.judge_page"),
        name="judge",
    ),
    path(
        "<str:study_id>/tables/<str:name>.<str:fmt>",
        lazy_view("metaeval.views.table_file"),
        name="table",
    ),
]
