from django.urls import path

from . import views

urlpatterns = [
    path("studies/<int:study_id>/runs/", views.run_list, name="judge-run-list"),
    path("studies/<int:study_id>/runs/start/", views.run_start, name="judge-run-start"),
    path("studies/<int:study_id>/runs/judges/", views.judge_add, name="judge-add"),
    path("studies/<int:study_id>/runs/import/", views.scores_import, name="judge-scores-import"),
    path("runs/<int:run_id>/", views.run_detail, name="judge-run"),
]
