"""Error pages. Under ``/api/`` a URL that matches no route (e.g. a negative id, which the
``<int:…>`` converters do not match) answers JSON like every API refusal, so clients and the
schema's documented content type hold for every answer; elsewhere Django's HTML page."""

from django.conf import settings
from django.core.exceptions import BadRequest
from django.http import Http404, HttpResponse, HttpResponseBadRequest
from django.shortcuts import render
from django.views import defaults

from concord.error_body import error_response


def not_found(request, exception):
    if request.path.startswith("/api/"):
        return error_response("Not found.", 404)
    return defaults.page_not_found(request, exception)


def refused_page(request, message: str, back: str, status: int = 400):
    """An HTML page's refusal of a form it was sent: the site's error page (``400.html``,
    in the layout: top bar, navigation) with the reason and a link ``back`` to the page
    the form was on. Why: a plain-text body left a browser on a bare line of text with
    no way back; the API keeps its JSON error body (:mod:`concord.error_body`)."""
    return render(request, "400.html", {"message": message, "back": back}, status=status)


def bad_request(request, exception):
    """A request a view refused (``BadRequest``: an option or field it names) says why, as
    plain text (JSON under ``/api/``): a researcher's script reading a download gets the
    reason, not Django's empty "Bad Request (400)" page. Other 400s (a suspicious host or
    file name) keep Django's page, which says nothing of them; under ``/api/`` the API's
    error body (:mod:`concord.error_body`), which says no more."""
    said = str(exception) if isinstance(exception, BadRequest) else ""
    if request.path.startswith("/api/"):
        return error_response(said or "Bad request.", 400)
    if not said:
        return defaults.bad_request(request, exception)
    return HttpResponseBadRequest(f"{exception}\n", content_type="text/plain; charset=utf-8")


class PlainNotFoundMiddleware:
    """The ordinary 404 even with ``DEBUG`` on, unless ``DEBUG_404`` asks for Django's
    debug page (issue 24).

    ``DEBUG`` is on by default so that ``make run`` serves the demo with no setup; the demo is
    what a new team exposes first, and Django's debug 404 lists every URL pattern (and the
    reason a view gave) to whoever asks, annotators included. An unmatched URL (no
    ``resolver_match``) and an ``Http404`` raised by a view both get :func:`not_found`.
    Responses a view returns itself (a 404 that says what is missing) are left alone.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    @staticmethod
    def active() -> bool:
        return settings.DEBUG and not settings.DEBUG_404

    def __call__(self, request):
        response = self.get_response(request)
        unresolved = getattr(request, "resolver_match", None) is None
        if response.status_code == 404 and unresolved and self.active():
            return not_found(request, None)
        return response

    def process_exception(self, request, exception):
        if isinstance(exception, Http404) and self.active():
            return not_found(request, exception)
        if isinstance(exception, BadRequest):
            # with DEBUG on, Django answers a view's BadRequest with its technical page
            # (traceback, settings): the refusal's own words instead, always
            return bad_request(request, exception)
        return None


class BodyTooLargeMiddleware:
    """A request body Django would read whole (JSON, a form) that is larger than
    ``DATA_UPLOAD_MAX_MEMORY_SIZE`` (``UPLOAD_MAX_BYTES``) is refused up front: 413, naming
    the limit, as JSON under ``/api/`` (``detail``, and the limit in bytes as ``limit``). Before, reading it raised ``RequestDataTooBig``,
    which with ``DEBUG`` on (the default install) answered Django's technical page (the
    traceback and the settings) to whoever sent it, and without it an empty "Bad Request"
    (found by a researcher posting 70 MB to the API). A multipart upload is left to the
    importers, which refuse a file over the limit naming it."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        if limit is None or length <= limit or request.content_type.startswith("multipart/"):
            return self.get_response(request)
        message = (
            f"The request body ({length} bytes) is larger than the server accepts "
            f"(UPLOAD_MAX_BYTES, {limit} bytes)."
        )
        if request.path.startswith("/api/"):
            return error_response(message, 413, limit=limit)
        return HttpResponse(f"{message}\n", status=413, content_type="text/plain; charset=utf-8")


class ChunkedBodyMiddleware:
    """A request body sent chunked (``Transfer-Encoding: chunked``, no ``Content-Length``:
    ``curl -T -`` or ``-F file=@-`` from a pipe) is refused up front: 411 saying chunked
    bodies are not accepted and to send ``Content-Length``, as JSON under ``/api/`` (the one
    error body).

    Why: Django reads exactly ``Content-Length`` bytes of a WSGI body and takes a missing
    one as 0 (gunicorn decodes the chunks, but Django never asks for them), so a chunked
    import reached the view with an empty form and was refused "kind: This field is
    required" though ``kind`` was sent (found by a researcher)."""

    MESSAGE = ("Chunked request bodies (Transfer-Encoding: chunked) are not accepted: send "
               "the body with a Content-Length (e.g. curl -F file=@path, not from a pipe).")  # fmt: skip

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if "chunked" not in request.META.get("HTTP_TRANSFER_ENCODING", "").lower():
            return self.get_response(request)
        if request.path.startswith("/api/"):
            return error_response(self.MESSAGE, 411)
        return HttpResponse(f"{self.MESSAGE}\n", status=411,
                            content_type="text/plain; charset=utf-8")  # fmt: skip
