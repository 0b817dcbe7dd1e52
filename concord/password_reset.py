"""The "forgot your password" form only where it can work, and throttled (issue 12).

It e-mails a link: without a mail server (``EMAIL_HOST`` unset, the default) it could only
fail or, worse, pretend to work, so it answers 404. With mail configured, each client
address may ask ``PASSWORD_RESET_LIMIT`` times in each clock hour (429 after that), so the form cannot
be used to flood someone's inbox. Setting a password from a link (invitations use the same
links) is unaffected.
"""

import time

from django.conf import settings
from django.contrib.auth import views as auth_views
from django.http import Http404, HttpResponse

from concord.login_throttle import client_ip
from concord.throttles import counted

WINDOW_SECONDS = 60 * 60


def enabled() -> bool:
    return bool(settings.PASSWORD_RESET_ENABLED)


def _over_limit(request) -> bool:
    """Counted as the API's throttles, shared by every process and atomic (``cache.incr``
    is a read then a write on the database cache: simultaneous requests passed together)."""
    key = f"concord:password-reset:{client_ip(request)}"
    count, _left = counted(key, WINDOW_SECONDS, time.time())
    return count > settings.PASSWORD_RESET_LIMIT


class PasswordResetView(auth_views.PasswordResetView):
    def dispatch(self, request, *args, **kwargs):
        if not enabled():
            raise Http404("Password reset by e-mail is not available: no mail server is set.")
        if request.method == "POST" and _over_limit(request):
            response = HttpResponse(
                "Too many password reset requests from this address; try again in an hour.",
                status=429,
                content_type="text/plain",
            )
            # the window's length: an upper bound (the count's own expiry is not readable
            # from every cache backend), so a client that honours it is never refused again
            response["Retry-After"] = str(WINDOW_SECONDS)
            return response
        return super().dispatch(request, *args, **kwargs)


class PasswordResetDoneView(auth_views.PasswordResetDoneView):
    def dispatch(self, request, *args, **kwargs):
        if not enabled():
            raise Http404("Password reset by e-mail is not available: no mail server is set.")
        return super().dispatch(request, *args, **kwargs)
