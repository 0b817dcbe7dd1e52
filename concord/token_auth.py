"""API tokens on the file downloads (exports, report files), not only on ``/api/``.

Researchers fetch data from scripts and notebooks, where there is no browser session: every
download view accepts ``Authorization: Token <key>`` (the key ``/api/auth/token/`` gives)
as well as the session cookie. The token only says *who* is asking; the view's own rules
(``annotation.permissions``, the role decorators) then decide exactly as for a session, so a
token never reaches more than its user would in the browser.

The token is checked by the API's own class (``concord.tokens.TokenAuthentication``, the
first of DRF's ``DEFAULT_AUTHENTICATION_CLASSES``): one rule, expiry included, for the API
and every download (issue 24: the downloads used DRF's plain class and ignored the expiry).

A request without the header is unchanged (anonymous users are still sent to the login
page); a wrong or inactive token answers 401 with a JSON reason, never the login page.
Downloads are GET only, so the missing CSRF token of a token request does not matter.
"""

from __future__ import annotations

from functools import wraps

from django.http import JsonResponse
from rest_framework.authentication import get_authorization_header
from rest_framework.exceptions import AuthenticationFailed

from concord.tokens import TokenAuthentication


def _token_user(request):
    """The user of the request's ``Authorization: Token`` header, or None without one.

    Raises ``AuthenticationFailed`` for a malformed, unknown or inactive token.
    """
    words = get_authorization_header(request).split()
    if not words or words[0].lower() != TokenAuthentication.keyword.lower().encode():
        return None
    result = TokenAuthentication().authenticate(request)
    return result[0] if result else None


def accepts_token(view):
    """Let ``view`` (a download) be called with an API token instead of a session.

    Put it outermost, above ``login_required`` and the role decorators, so they see the
    token's user.
    """

    @wraps(view)
    def wrapped(request, *args, **kwargs):
        try:
            user = _token_user(request)
        except AuthenticationFailed as exc:
            response = JsonResponse({"detail": str(exc.detail)}, status=401)
            response["WWW-Authenticate"] = TokenAuthentication.keyword
            return response
        if user is not None:
            request.user = user
        return view(request, *args, **kwargs)

    wrapped.accepts_token = True
    return wrapped
