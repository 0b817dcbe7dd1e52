"""Error pages. Under ``/api/`` a URL that matches no route (e.g. a negative id, which the
``<int:…>`` converters do not match) answers JSON like every API refusal, so clients and the
schema's documented content type hold for every answer; elsewhere Django's HTML page."""

from django.conf import settings
from django.http import Http404, JsonResponse
from django.views import defaults


def not_found(request, exception):
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": "Not found."}, status=404)
    return defaults.page_not_found(request, exception)


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
