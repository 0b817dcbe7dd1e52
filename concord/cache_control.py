"""``Cache-Control: private, no-store`` on everything personal (issue 12).

Pages of a signed-in user, every API answer and every download hold study data (judgments,
reports, progress): no shared cache or browser history may keep them. Public pages (the
login form) and static files (WhiteNoise answers before this runs) keep their own headers.
"""

from django.conf import settings
from django.utils.cache import patch_cache_control


class PrivateNoStoreMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        # Judged from the request, not request.user: loading the user would query the
        # database here, outside the views (and during an outage, fail).
        if (
            settings.SESSION_COOKIE_NAME in request.COOKIES
            or "HTTP_AUTHORIZATION" in request.META
            or request.path.startswith("/api/")
            or response.has_header("Content-Disposition")
        ):
            patch_cache_control(response, private=True, no_store=True)
        return response
