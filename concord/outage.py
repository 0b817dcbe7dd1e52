"""A database outage is a 503 the annotator can act on, never a 500 and never half a save.

When PostgreSQL restarts, fails over or runs out of connections, the driver raises
``OperationalError`` (or ``InterfaceError`` on a connection that died under us). Every
write of an autosave or submit runs in one transaction, so such an error leaves nothing
half-written; what remains is to tell the client that nothing happened and that trying
again later is right. The answer depends on who asked:

* htmx (a task page's autosave or submit): the ``#save-status`` fragment saying the save
  did not happen and is being retried; ``static/js/annotate.js`` keeps the unsaved answers
  in the browser and retries with backoff;
* the API (``/api/…`` or a JSON ``Accept``): ``{"detail": …, "code": "database_unavailable"}``;
* any other page: a plain page that needs no database to render (no user, no session).

Each carries ``Retry-After``. Nothing here touches the database.
"""

from __future__ import annotations

import logging

from django.db import InterfaceError, OperationalError
from django.http import HttpResponse
from django.template.loader import render_to_string

from concord.error_body import error_response

logger = logging.getLogger("concord.outage")

OUTAGE_ERRORS = (OperationalError, InterfaceError)
#: Seconds a client should wait before trying again (the page's own backoff starts at 1 s).
RETRY_AFTER = 5
SAVE_MESSAGE = "Not saved — the server is unavailable, retrying…"
API_MESSAGE = (
    "The server cannot reach its database right now. Nothing was changed; "
    "try again in a few seconds."
)


def is_outage(exception: BaseException) -> bool:
    return isinstance(exception, OUTAGE_ERRORS)


def wants_json(request) -> bool:
    accept = request.headers.get("Accept", "")
    return request.path.startswith("/api/") or (
        "application/json" in accept and "text/html" not in accept
    )


def outage_response(request) -> HttpResponse:
    """The 503 for ``request``, rendered without the database (no context processors)."""
    if wants_json(request):
        response = error_response(API_MESSAGE, 503, code="database_unavailable")
    elif request.headers.get("HX-Request") == "true":
        html = render_to_string("outage/save_status.html", {"message": SAVE_MESSAGE})
        response = HttpResponse(html, status=503)
    else:
        response = HttpResponse(render_to_string("outage/page.html"), status=503)
    response["Retry-After"] = str(RETRY_AFTER)
    response["Cache-Control"] = "no-store"
    return response


class DatabaseOutageMiddleware:
    """Turns a database error raised by a view (decorators included) into :func:`outage_response`."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if not is_outage(exception):
            return None
        logger.warning(
            "database unavailable during %s %s: %s", request.method, request.path, exception
        )
        return outage_response(request)
