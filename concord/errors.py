"""Error pages. Under ``/api/`` a URL that matches no route (e.g. a negative id, which the
``<int:…>`` converters do not match) answers JSON like every API refusal, so clients and the
schema's documented content type hold for every answer; elsewhere Django's HTML page."""

from django.http import JsonResponse
from django.views import defaults


def not_found(request, exception):
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": "Not found."}, status=404)
    return defaults.page_not_found(request, exception)
