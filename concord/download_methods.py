"""The HTTP methods every file download answers, one rule for all of them (report files,
study exports, CSVs, format examples), as the API's routes answer them (DRF).

* ``GET``: the file.
* ``HEAD``: the same answer as ``GET`` (status, headers, ``Content-Length``) without its
  body. The view runs as for ``GET``, so it computes nothing more than ``GET`` would (and a
  report it computes counts against the same throttle); a cached report is not computed.
* ``OPTIONS``: 200 with ``Allow`` and no body, without running the view.
* anything else: 405 with ``Allow``.

Before, some downloads answered ``HEAD`` and ``OPTIONS`` with 405 (``require_GET``) and the
report files ran the whole download for either (and for ``POST``), found by testers with a
researcher's token. The decorator goes where the view's method rule was, below the
sign-in and role decorators: an ``OPTIONS`` or ``HEAD`` without a user is sent to sign in,
or refused (a bad token), as a ``GET`` is. As DRF's ``OPTIONS``, it does not look up the
study: what it says (the methods) is the same for every download.
"""

from __future__ import annotations

from functools import wraps

from django.http import HttpResponse, HttpResponseNotAllowed

ALLOWED = ("GET", "HEAD", "OPTIONS")


def download_methods(view):
    """Answer ``view`` (a download) for ``GET`` and ``HEAD``, ``OPTIONS`` with ``Allow``,
    and 405 with ``Allow`` for any other method (module doc)."""

    @wraps(view)
    def wrapped(request, *args, **kwargs):
        if request.method == "OPTIONS":
            response = HttpResponse(status=200)
            response["Allow"] = ", ".join(ALLOWED)
            response["Content-Length"] = "0"
            return response
        if request.method not in ("GET", "HEAD"):
            return HttpResponseNotAllowed(ALLOWED)
        response = view(request, *args, **kwargs)
        # a file streamed (FileResponse) has its Content-Length already; the server sends
        # no body for a HEAD (gunicorn, runserver), and nothing was computed for it
        if request.method == "HEAD" and not response.streaming:
            response["Content-Length"] = str(len(response.content))
            response.content = b""
        return response

    return wrapped
