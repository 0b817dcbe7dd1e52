"""The Celery app. Without CELERY_BROKER_URL tasks run eagerly (settings.CELERY_TASK_ALWAYS_EAGER)."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "concord.settings")

app = Celery("concord")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
