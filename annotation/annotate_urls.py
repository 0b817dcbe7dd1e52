"""Annotator task pages, mounted at /annotate/."""

from django.urls import path

from annotation.views import annotate

app_name = "annotate"

urlpatterns = [
    path("", annotate.queue, name="queue"),
    path("<int:pk>/", annotate.task_page, name="task"),
    path("<int:pk>/save/", annotate.autosave, name="autosave"),
    path("<int:pk>/submit/", annotate.submit, name="submit"),
    path("<int:pk>/flag/", annotate.flag, name="flag"),
    path("<int:pk>/preview/", annotate.preview, name="preview"),
    path("<int:pk>/reopen/", annotate.reopen, name="reopen"),
    path("guidelines/<slug:task>/", annotate.guidelines, name="guidelines"),
]
