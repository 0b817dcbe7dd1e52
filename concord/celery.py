"""The Celery app. Without CELERY_BROKER_URL tasks run eagerly (settings.CELERY_TASK_ALWAYS_EAGER).

Database connections in a worker follow Django's rule for requests (``CONN_MAX_AGE``,
``CONN_HEALTH_CHECKS``): before and after each task, a connection that is too old, broken
or left in a transaction is closed; a healthy one is reused. Celery's Django fixup would
otherwise close every connection around every task (``CELERY_DB_REUSE_MAX`` unset), and a
judge run's chunk of ~100 units would open two new ones (≈ 9 ms each, and a new PostgreSQL
backend with cold caches) — see ``bench/README.md``, ``judge_throughput.py``.
"""

import os

from celery import Celery
from celery.signals import task_postrun, task_prerun

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "concord.settings")

app = Celery("concord")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@task_prerun.connect
@task_postrun.connect
def _close_old_connections(task=None, **kwargs) -> None:
    """Django's ``close_old_connections`` around a task run by a worker (not an eager one:
    it runs inside its caller's request or transaction)."""
    if task is None or getattr(task.request, "is_eager", False):
        return
    from django.db import close_old_connections

    close_old_connections()
