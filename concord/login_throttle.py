"""Login throttling on top of django-axes (settings: ``AXES_*`` in concord/settings.py).

Failed logins are counted per (user name, client IP). When a pair reaches the limit every
further attempt is refused for the cool-off period, even with the right password, and the
caller is told so. The period runs from the attempt that reached the limit: attempts made while
locked are refused without being recorded, so they do not extend it
(``AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False``). The locked caller is told how
long remains of that window: the login page shows the message with status 429; the API
token endpoint and any JSON caller get ``{"detail": ...}`` with status 429; both carry a
``Retry-After`` header.
"""

from axes.backends import AxesStandaloneBackend
from axes.handlers.proxy import AxesProxyHandler
from axes.helpers import get_cool_off
from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.timezone import now
from rest_framework.authentication import SessionAuthentication
from rest_framework.authtoken import views as authtoken_views
from rest_framework.response import Response

from concord.error_body import error_response


class ThrottledLoginBackend(AxesStandaloneBackend):
    """Refuses a locked-out (user name, IP) pair before the password is even checked.

    ``authenticate()`` without a request comes from code, not the network (the test client's
    ``login()``, a shell): there is no client address to throttle, so it is let through to
    the next backend instead of failing as django-axes' own backend does.
    """

    def authenticate(self, request, username=None, password=None, **kwargs):
        if request is None:
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)


def client_ip(request: HttpRequest) -> str:
    """The client's address: REMOTE_ADDR, or behind ``TRUSTED_PROXY_COUNT`` proxies the entry
    of X-Forwarded-For that the outermost trusted proxy appended (the ones to its left are
    written by the client and cannot be trusted)."""
    remote = request.META.get("REMOTE_ADDR", "")
    proxies = getattr(settings, "TRUSTED_PROXY_COUNT", 0)
    if proxies <= 0:
        return remote
    chain = [a.strip() for a in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
    chain = [a for a in chain if a]
    return chain[-proxies] if len(chain) >= proxies else remote


def lockout_message(minutes: int | None) -> str:
    wait = f"{minutes} minute{'s' if minutes != 1 else ''}" if minutes else "a while"
    return (
        "Too many failed login attempts for this user name from your address. "
        f"Logins are blocked for {wait}; try again later or ask an admin to unlock you."
    )


def seconds_left(request: HttpRequest, credentials=None) -> int | None:
    """Seconds until the lock of the caller's (user name, IP) pair ends, None when no
    cool-off is set. The window is fixed, from the last recorded failure (attempts while
    locked are not recorded), so the caller is told what remains of it, not the whole
    cool-off again; the full period when the handler keeps no attempts to read."""
    cool_off = get_cool_off(request)
    if not cool_off:
        return None
    handler = AxesProxyHandler.get_implementation()
    attempts = getattr(handler, "get_user_attempts", lambda *_: [])(request, credentials)
    times = [t for qs in attempts for t in qs.values_list("attempt_time", flat=True)]
    if not times:
        return int(cool_off.total_seconds())
    left = max(times) + cool_off - (getattr(request, "axes_attempt_time", None) or now())
    return max(int(left.total_seconds()), 1)


def lockout_response(request: HttpRequest, original_response=None, credentials=None):
    """What a locked-out caller sees (``AXES_LOCKOUT_CALLABLE``): how long the lock still
    holds (:func:`seconds_left`), in minutes rounded up and as ``Retry-After``."""
    seconds = seconds_left(request, credentials)
    message = lockout_message(-(-seconds // 60) if seconds else None)
    wants_json = (
        request.path.startswith("/api/")
        or "application/json" in request.headers.get("Accept", "")
        or request.headers.get("X-Requested-With") == "XMLHttpRequest"
    )
    if wants_json:
        response: HttpResponse = error_response(message, 429)
    else:
        form = AuthenticationForm(request, data=None)
        context = {"form": form, "lockout": message, "next": request.POST.get("next", "")}
        response = render(request, "registration/login.html", context, status=429)
    if seconds:
        response["Retry-After"] = str(seconds)
    return response


class ObtainAuthToken(authtoken_views.ObtainAuthToken):
    """``POST /api/auth/token/`` with the plain Django request handed to ``authenticate()``.

    django-axes flags a locked-out attempt on the request it is given; DRF's Request wrapper
    would keep the flag to itself and the middleware would never see it (the caller would get
    a plain 400 instead of the 429 lockout answer).

    The token is the user's whom the credentials in the body name, nothing else: the
    ``Authorization`` header is not read (no token class runs), so a script that keeps
    sending its expired ``Authorization: Token`` header still gets a new token instead of
    "Token has expired" forever. The session class alone stays, for its CSRF check: a
    signed-in browser's POST without the CSRF token is refused as everywhere else
    (tests/security/test_csrf.py); a script sends no session and is not concerned.
    Throttling is django-axes' (on ``authenticate()``), which this leaves as it was.
    """

    authentication_classes = (SessionAuthentication,)

    def get_serializer_context(self):
        context = super().get_serializer_context()
        context["request"] = getattr(self.request, "_request", self.request)
        return context

    def post(self, request, *args, **kwargs):
        """As DRF's, but an expired token is replaced by a fresh one (concord.tokens)."""
        from concord.tokens import fresh_token

        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        token = fresh_token(serializer.validated_data["user"])
        return Response({"token": token.key})


obtain_auth_token = ObtainAuthToken.as_view()
