"""Error pages. Under ``/api/`` a URL that matches no route (e.g. a negative id, which the
``<int:…>`` converters do not match) answers JSON like every API refusal, so clients and the
schema's documented content type hold for every answer. Elsewhere a 403, a 404 and a failed
CSRF check are pages of the site's layout (top bar, navigation) saying plainly why, with a
way back (:func:`error_page`); before, a browser got Django's bare pages ("403 Forbidden"
alone, a 404 with no header, the technical CSRF page), found by a tester."""

from django.conf import settings
from django.core.exceptions import BadRequest
from django.db import DatabaseError
from django.http import Http404, HttpResponse, HttpResponseBadRequest
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views import defaults

from concord.error_body import error_response

#: What a 404 page says, whatever the reason a view gave: the same for an object that does
#: not exist and for one the reader may not see (another annotator's task), so the page
#: never tells which (the view's own words, "No such assignment", stay unsaid).
NOT_FOUND = (
    "There is no page at this address, or it is not open to you. The link may be old, or "
    "the address mistyped."
)
#: A 403 whose refusal gave no words of its own (Django's admin, for one).
FORBIDDEN = "Your role does not allow this page."
#: A failed CSRF check (``settings.CSRF_FAILURE_VIEW``): what happened and what to do.
CSRF = (
    "This form could not be accepted: the page was open too long (or you signed in again "
    "meanwhile), or the form was sent from elsewhere. Nothing was changed. Reload the page "
    "and try again."
)
#: … on a task page, which autosaves: nothing typed is lost.
CSRF_DRAFT_KEPT = (
    "Your answers are kept: the task page saves your draft as you type and keeps what was "
    "not yet saved in this browser. Open the task again and they are there; then save or "
    "submit again."
)
#: … on any other page: what was typed is in the form only.
CSRF_COPY_FIRST = (
    "If you typed something long, go back and copy it before reloading: the page is not "
    "saved as you type."
)
#: The task pages that autosave (annotation.annotate_urls): their CSRF page says the
#: draft is kept and links back to the task.
AUTOSAVED = {"annotate:task", "annotate:autosave", "annotate:submit", "annotate:flag",
             "annotate:reopen"}  # fmt: skip


def back_link(request) -> str:
    """Where an error page's "Back" goes: the page the reader came from (``Referer``) when
    it is of this site and not the refused page itself (a form posted to its own page goes
    back there), else the home page."""
    referer = request.META.get("HTTP_REFERER", "")
    try:
        host = request.get_host()
    except Exception:  # a host the site does not serve: never echo its Referer
        return reverse("home")
    ours = url_has_allowed_host_and_scheme(
        referer, allowed_hosts={host}, require_https=request.is_secure()
    )
    itself = request.method in ("GET", "HEAD") and referer == request.build_absolute_uri()
    if ours and not itself:
        return referer
    return reverse("home")


def error_page(request, status: int, title: str, message: str, back: str = "", **extra):
    """An HTML page's error in the site's layout (``error.html``): ``title``, the reason,
    anything in ``extra`` (``note``, ``detail``) and a link back. Should reading the user
    for the navigation fail (the database away), the same words without the layout."""
    context = {"title": title, "message": message, "back": back or back_link(request), **extra}
    try:
        return render(request, "error.html", context, status=status)
    except DatabaseError:
        text = render_to_string("error_plain.html", context)
        return HttpResponse(text, status=status)


def not_found(request, exception):
    if request.path.startswith("/api/"):
        return error_response("Not found.", 404)
    return error_page(request, 404, "Page not found", NOT_FOUND)


def permission_denied(request, exception):
    """``handler403``: the refusal's own words (every ``PermissionDenied`` of the site names
    the role a page needs, raised before any object is looked up, so it tells nothing of
    what exists), under ``/api/`` the API's error body."""
    said = str(exception or "") or FORBIDDEN
    if request.path.startswith("/api/"):
        return error_response(said, 403)
    return error_page(request, 403, "Not allowed", said)


def csrf_failure(request, reason: str = ""):
    """``settings.CSRF_FAILURE_VIEW``: a form refused by the CSRF check. The page says what
    happened in plain words (Django's reason, which names CSRF, in small print); on a task
    page, that the answers are kept, with the way back to the task. Under ``/api/`` the
    API's error body, worded as DRF words its own CSRF refusal."""
    if request.path.startswith("/api/"):
        return error_response(f"CSRF Failed: {reason}", 403)
    match = getattr(request, "resolver_match", None)
    back, note = "", CSRF_COPY_FIRST
    if match is not None and match.view_name in AUTOSAVED and "pk" in match.kwargs:
        back = reverse("annotate:task", args=[match.kwargs["pk"]])
        note = CSRF_DRAFT_KEPT
    return error_page(
        request, 403, "Form not accepted", CSRF, back, note=note,
        detail=f"Security check (CSRF) failed: {reason}",
    )  # fmt: skip


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
