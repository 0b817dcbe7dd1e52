"""Browser pages of the annotation app."""

from django.urls import path

from annotation.views.account import api_token
from annotation.views.formats import format_example
from annotation.views.history import my_history
from annotation.views.tasks import task_page

urlpatterns = [
    path("tasks/<int:assignment_id>/", task_page, name="task"),
    path("history/", my_history, name="my_history"),
    path("account/token/", api_token, name="account_token"),
    path("formats/<str:kind>/<str:name>/<str:file>", format_example, name="format_example"),
]
