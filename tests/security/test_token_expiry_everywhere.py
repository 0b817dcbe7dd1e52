"""One token rule for the API and every download (issue 24): a token older than
``CONCORD_TOKEN_TTL_DAYS`` is refused with 401 on every ``/api/`` route and on every view that
accepts a token (the downloads), never answered with data.

The routes are read from the URL configuration, so a new download or API route is covered
without touching this test. Before the fix the downloads used DRF's plain token class and
answered an expired token with the file.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import NoReverseMatch, URLPattern, URLResolver, get_resolver, reverse
from django.utils import timezone
from rest_framework.authtoken.models import Token

from tests.builders.content import make_question, make_study
from tests.builders.users import make_user, token_client

#: Downloads the walk must find (it may find more).
KNOWN_DOWNLOADS = {
    "studies:export_judgments",
    "studies:export_format",
    "studies:progress_csv",
    "metaeval:json",
    "metaeval:table",
}
#: Routes that take no token: the token endpoint goes by the user name and password in the
#: body, whatever header comes along, so an expired token can be renewed by a script that
#: keeps sending it (tests/security/test_api_tokens.py).
NO_TOKEN = {"api-token"}
#: Candidate values for a route's parameters, tried in order until ``reverse`` accepts one.
CANDIDATES = (1, "csv", "json", "jsonl", "x")


def routes(patterns, namespace=None, prefix=""):
    """(view name, route text, callback) of every named URL pattern."""
    for p in patterns:
        if isinstance(p, URLResolver):
            ns = ":".join(x for x in (namespace, p.namespace) if x) or None
            yield from routes(p.url_patterns, ns, prefix + str(p.pattern))
        elif isinstance(p, URLPattern) and p.name:
            name = f"{namespace}:{p.name}" if namespace else p.name
            yield name, prefix + str(p.pattern), p


def url_for(name: str, pattern: URLPattern) -> str | None:
    params = list(pattern.pattern.regex.groupindex)
    for value in CANDIDATES:
        try:
            kwargs = {k: "json" if k == "format" else value for k in params}
            return reverse(name, kwargs=kwargs)
        except (NoReverseMatch, TypeError):
            continue
    return None


def token_routes() -> dict[str, str]:
    """name -> a URL, for every API route and every view that accepts an API token."""
    found = {}
    for name, route, pattern in routes(get_resolver().url_patterns):
        if name.startswith("admin:") or name in NO_TOKEN:
            continue
        if route.startswith("api/") or getattr(pattern.callback, "accepts_token", False):
            url = url_for(name, pattern)
            assert url is not None, f"no URL for {name} ({route})"
            found[name] = url
    return found


def expired_client(user) -> Client:
    """A client holding a token of ``user`` 31 days old (a new one for each request)."""
    Token.objects.filter(user=user).delete()
    client = token_client(user, api=False)
    Token.objects.filter(user=user).update(created=timezone.now() - timedelta(days=31))
    return client


@pytest.mark.parametrize("role", ["researcher", "admin"])
def test_an_expired_token_is_a_401_on_every_api_route_and_download(db, settings, role):
    settings.CONCORD_TOKEN_TTL_DAYS = 30
    user = make_user(f"expired_{role}", role)
    study = make_study("Token study")
    study.researchers.add(user)
    make_question(study, n_reports=2)
    found = token_routes()
    assert found.keys() >= KNOWN_DOWNLOADS, KNOWN_DOWNLOADS - found.keys()
    assert sum(u.startswith("/api/") for u in found.values()) > 20
    answered = []
    for name, url in sorted(found.items()):
        for method in ("get", "post"):
            response = getattr(expired_client(user), method)(url)
            if response.status_code != 401:
                answered.append(f"{method.upper()} {name} {url}: {response.status_code}")
    assert not answered, "\n".join(answered)


def test_a_fresh_token_still_downloads(db, settings):
    settings.CONCORD_TOKEN_TTL_DAYS = 30
    user = make_user("fresh_researcher", "researcher")
    study = make_study("Fresh token study")
    study.researchers.add(user)
    make_question(study, n_reports=2)
    client = token_client(user, api=False)
    url = reverse("studies:progress_csv", kwargs={"study_id": study.pk})
    assert client.get(url).status_code in (200, 403)
    assert client.get(reverse("metaeval:json", kwargs={"study_id": study.pk})).status_code == 200
