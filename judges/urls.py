from django.urls import path

from . import views

urlpatterns = [
    path("studies/<int:study_id>/runs/", views.run_list, name="judge-run-list"),
    path("runs/<int:run_id>/", views.run_detail, name="judge-run"),
]
