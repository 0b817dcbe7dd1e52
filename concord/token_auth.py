"""API tokens on the file downloads (exports, report files), not only on ``/api/``.

Researchers fetch data from scripts and notebooks, where there is no browser session: every
download view accepts ``Authorization: Token <key>`` (the key ``/api/auth/token/`` gives)
as well as the session cookie. The token only says *who* is asking; the view's own rules
(``annotation.permissions``, the role decorators) then decide exactly as for a session, so a
token never reaches more than its user would in the browser.

The token is checked by the API's own class (``concord.tokens.TokenAuthentication``, the
first of DRF's ``DEFAULT_AUTHENTICATION_CLASSES``): one rule, expiry included, for the API
and every download (issue 24: the downloads used DRF's plain class and ignored the expiry).

``Bearer <key>`` is read as ``Token <key>`` (``TokenAuthentication.keywords``, one list for
the API and the downloads). A request without the header is unchanged (anonymous users are
still sent to the login page); a wrong or inactive token answers 401 with a JSON reason,
never the login page. An ``Authorization`` header of another scheme (``Basic``: a proxy in
front of the site, which the browser repeats on every request) is no token and is left
alone: the session decides, as if the header were not there (a 401 for it would refuse
every browser download behind such a proxy).
Downloads answer GET and HEAD only (``concord.download_methods``; OPTIONS says so), so the
missing CSRF token of a token request does not matter.

An API client (a token, or ``Accept: application/json``) gets its errors as JSON, as from
``/api/``, in its one shape (:mod:`concord.error_body`): 401 without credentials, 403 and
404 with a ``detail``, a refused export with ``detail`` and ``errors`` naming the field; a
browser still gets the pages.
"""

from __future__ import annotations

from functools import wraps

from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from rest_framework.exceptions import AuthenticationFailed

from concord.error_body import error_response
from concord.tokens import TokenAuthentication


def _token_user(request):
    """The user of the request's token (``Token`` or ``Bearer``), or None without one.

    Raises ``AuthenticationFailed`` for a malformed, unknown or inactive token. A header of
    another scheme is not a token (module doc): None."""
    if not TokenAuthentication.names_a_token(request):
        return None
    result = TokenAuthentication().authenticate(request)
    return result[0] if result else None


def wants_json(request) -> bool:
    """An API client: it sent a token, or asked for JSON."""
    sent = TokenAuthentication.names_a_token(request)
    return sent or "application/json" in request.headers.get("Accept", "")


def refusal(request, problems, status: int):
    """``problems`` ((field, message) pairs) as the API answers them to an API client, as
    plain text to a browser, one ``field: message`` line each (ended, as the text answers of
    ``concord.errors``, so a script's terminal shows it whole). Every download's refusal."""
    if wants_json(request):
        return error_response(None, status, errors=problems)  # detail: the first problems
    text = "".join(f"{field}: {message}\n" if field else f"{message}\n"
                   for field, message in problems)  # fmt: skip
    return HttpResponse(text, status=status, content_type="text/plain; charset=utf-8")


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
            response = error_response(str(exc.detail), 401)
            response["WWW-Authenticate"] = TokenAuthentication.keyword
            return response
        if user is not None:
            request.user = user
        if not wants_json(request):
            return view(request, *args, **kwargs)
        if not request.user.is_authenticated:
            response = error_response("Authentication credentials were not provided.", 401)
            response["WWW-Authenticate"] = TokenAuthentication.keyword
            return response
        try:
            return view(request, *args, **kwargs)
        except PermissionDenied as exc:
            return error_response(str(exc) or "You may not read this.", 403)
        except Http404 as exc:
            return error_response(str(exc) or "Not found.", 404)

    wrapped.accepts_token = True
    return wrapped
