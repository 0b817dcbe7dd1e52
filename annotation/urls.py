"""Browser pages of the annotation app."""

from django.urls import path

from annotation.views.tasks import task_page

urlpatterns = [
    path("tasks/<int:assignment_id>/", task_page, name="task"),
]
