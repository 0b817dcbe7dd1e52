"""The HTTP methods every file download answers, one rule for all of them (report files,
study exports, CSVs, format examples), as the API's routes answer them (DRF).

* ``GET``: the file.
* ``HEAD``: the same answer as ``GET`` (status, headers, ``Content-Length``) without its
  body. The view runs as for ``GET``, so it computes nothing more than ``GET`` would (and a
  report it computes counts against the same throttle); a cached report is not computed.
* ``OPTIONS``: 200 with ``Allow`` and no body, without running the view.
* anything else: 405 with ``Allow``, saying so (the one error body to an API client).

Before, some downloads answered ``HEAD`` and ``OPTIONS`` with 405 (``require_GET``) and the
report files ran the whole download for either (and for ``POST``), found by testers with a
researcher's token. The decorator goes where the view's method rule was, below the
sign-in and role decorators: an ``OPTIONS`` or ``HEAD`` without a user is sent to sign in,
or refused (a bad token), as a ``GET`` is. As DRF's ``OPTIONS``, it does not look up the
study: what it says (the methods) is the same for every download.

A query parameter the download does not read is refused before the view runs, a 400
naming it and the ones it reads (:func:`concord.query.unknown_parameters`), as the API's
lists refuse theirs: ``progress.csv?x=1`` was the whole file as if ``x`` had chosen it.
A download reads none unless it says which (``parameters``); one whose options are a
declaration of their own that already refuses unknown names (the report options, an
export writer's) says :data:`CHECKED_BY_VIEW`.

Every download is exempt from Django's CSRF check, so that a ``POST`` or ``DELETE`` (a
script's, with ``Authorization: Token``) gets this 405 in the one error body instead of
Django's HTML CSRF 403 page (found by a tester). Safe: CSRF guards requests that change
something, and a download changes nothing; the only methods that reach its view are
``GET`` and ``HEAD``, which the CSRF middleware never checks anyway, and every other method
is refused here before the view runs. The mark is set on the wrapper and carried to the
sign-in and token decorators above it by ``functools.wraps`` (which copies ``__dict__``) and
to a lazily imported view by :mod:`concord.lazy_views`.
"""

from __future__ import annotations

from functools import wraps

from django.http import HttpResponse

from concord.query import unknown_parameters
from concord.token_auth import refusal

ALLOWED = ("GET", "HEAD", "OPTIONS")

#: ``parameters`` of a download whose view refuses unknown parameters itself (module doc).
CHECKED_BY_VIEW = None


def download_methods(view=None, *, parameters: tuple[str, ...] | None = ()):
    """Answer ``view`` (a download) for ``GET`` and ``HEAD``, ``OPTIONS`` with ``Allow``,
    and 405 with ``Allow`` for any other method; a query parameter outside ``parameters``
    is a 400 naming it (module doc). ``@download_methods`` or
    ``@download_methods(parameters=...)``."""
    if view is None:
        return lambda view: download_methods(view, parameters=parameters)

    @wraps(view)
    def wrapped(request, *args, **kwargs):
        if request.method == "OPTIONS":
            response = HttpResponse(status=200)
            response["Allow"] = ", ".join(ALLOWED)
            response["Content-Length"] = "0"
            return response
        if request.method not in ("GET", "HEAD"):
            # said, as every refusal of a download (an API client: the one error body);
            # it was an empty body
            response = refusal(request, [(None, f"method {request.method} is not allowed "
                                                f"here; use {', '.join(ALLOWED)}")], 405)  # fmt: skip
            response["Allow"] = ", ".join(ALLOWED)
            return response
        if parameters is not CHECKED_BY_VIEW:
            problems = unknown_parameters(request.GET, parameters)
            if problems:
                return refusal(request, problems, 400)
        response = view(request, *args, **kwargs)
        # a file streamed (FileResponse) has its Content-Length already; the server sends
        # no body for a HEAD (gunicorn, runserver), and nothing was computed for it
        if request.method == "HEAD" and not response.streaming:
            response["Content-Length"] = str(len(response.content))
            response.content = b""
        return response

    # safe (module doc): no method that could change anything reaches the view
    wrapped.csrf_exempt = True
    return wrapped
