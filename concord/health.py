"""``/healthz``: may a load balancer send this web process traffic?

200 when the database answers a query and, if a broker is configured, the broker accepts a
connection; 503 otherwise. The JSON body says which check failed and in how many
milliseconds; why (the exception) goes to the server log only, never to the anonymous
caller: its text can name hosts, ports, database names and paths (issue 24). No authentication,
no session, no template: the check must work when everything else does not. Without a broker
(``CELERY_BROKER_URL`` unset) tasks run in-process and the broker check reports "eager".
"""

from __future__ import annotations

import logging
import time

from django.conf import settings
from django.db import connection
from django.http import JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

logger = logging.getLogger("concord.health")

#: Seconds a health check may wait for the broker before calling it down.
BROKER_TIMEOUT = 2.0


#: What the caller reads of a failed check (the reason is logged).
DOWN = "unavailable; the reason is in the server log"


def _timed(name: str, check) -> dict:
    start = time.perf_counter()
    try:
        detail = check()
    except Exception:  # noqa: BLE001 - any failure is "down", its reason logged
        logger.exception("health check %s failed", name)
        result = {"ok": False, "error": DOWN}
    else:
        result = {"ok": True, **(detail or {})}
    result["ms"] = round(1000 * (time.perf_counter() - start), 1)
    return result


def check_database() -> dict:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()
    return {"vendor": connection.vendor}


def check_broker() -> dict:
    if not settings.CELERY_BROKER_URL:
        return {"mode": "eager"}
    from concord.celery import app

    with app.connection_for_write(settings.CELERY_BROKER_URL) as conn:
        conn.ensure_connection(max_retries=1, timeout=BROKER_TIMEOUT)
    return {"mode": "broker"}


@never_cache
@require_GET
def healthz(request):
    checks = {"database": _timed("database", check_database), "broker": _timed("broker", check_broker)}  # fmt: skip
    healthy = all(c["ok"] for c in checks.values())
    if not healthy:
        logger.warning("health check failed: %s", checks)
    return JsonResponse(
        {"status": "ok" if healthy else "unavailable", "checks": checks},
        status=200 if healthy else 503,
    )
