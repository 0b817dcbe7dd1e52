"""Error pages. Under ``/api/`` a URL that matches no route (e.g. a negative id, which the
``<int:…>`` converters do not match) answers JSON like every API refusal, so clients and the
schema's documented content type hold for every answer; elsewhere Django's HTML page."""

from django.conf import settings
from django.core.exceptions import BadRequest
from django.http import Http404, HttpResponseBadRequest, JsonResponse
from django.views import defaults


def not_found(request, exception):
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": "Not found."}, status=404)
    return defaults.page_not_found(request, exception)


def bad_request(request, exception):
    """A request a view refused (``BadRequest``: an option or field it names) says why, as
    plain text (JSON under ``/api/``): a researcher's script reading a download gets the
    reason, not Django's empty "Bad Request (400)" page. Other 400s (a suspicious host or
    file name) keep Django's page, which says nothing of them."""
    if not isinstance(exception, BadRequest) or not str(exception):
        return defaults.bad_request(request, exception)
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": str(exception)}, status=400)
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
        return None
