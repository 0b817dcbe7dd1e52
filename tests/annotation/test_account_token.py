"""Every user sees and rotates their API token on their account page (issue 28)."""

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.authtoken.models import Token

from tests.builders.users import make_user

pytestmark = pytest.mark.django_db


def authenticated(client, key: str) -> bool:
    """Whether the API takes ``key`` (401 when it does not; an annotator may get 403)."""
    return client.get("/api/studies/", HTTP_AUTHORIZATION=f"Token {key}").status_code != 401


@pytest.mark.parametrize("role", ["researcher", "admin", "annotator"])
def test_the_page_shows_the_users_own_token_and_rotating_revokes_it(client, role):
    user = make_user(f"tok_{role}", role, annotator=role == "annotator")
    someone = make_user("tok_other", "researcher")
    theirs = Token.objects.create(user=someone).key
    client.force_login(user)
    page = client.get("/account/token/")
    assert page.status_code == 200 and "no-store" in page["Cache-Control"]
    key = Token.objects.get(user=user).key
    body = page.content.decode()
    assert f'value="{key}"' in body and theirs not in body
    assert 'href="/account/token/"' in body  # linked from the header's user name
    assert authenticated(client.__class__(), key)

    rotated = client.post("/account/token/")
    assert rotated.status_code == 302
    new = Token.objects.get(user=user).key
    assert new != key
    assert not authenticated(client.__class__(), key)
    assert authenticated(client.__class__(), new)
    assert Token.objects.get(user=someone).key == theirs


def test_an_expired_token_is_replaced_when_the_page_opens(client, settings):
    settings.CONCORD_TOKEN_TTL_DAYS = 30
    user = make_user("tok_old", "researcher")
    old = Token.objects.create(user=user)
    Token.objects.filter(pk=old.pk).update(created=timezone.now() - timedelta(days=31))
    client.force_login(user)
    body = client.get("/account/token/").content.decode()
    new = Token.objects.get(user=user).key
    assert new != old.key and f'value="{new}"' in body and "expires" in body


def test_anonymous_users_are_sent_to_log_in_and_rotation_needs_csrf(client):
    got = client.get("/account/token/")
    assert got.status_code == 302 and "/accounts/login/" in got["Location"]
    from django.test import Client

    strict = Client(enforce_csrf_checks=True)
    user = make_user("tok_csrf", "researcher")
    strict.force_login(user)
    strict.get("/account/token/")
    key = Token.objects.get(user=user).key
    assert strict.post("/account/token/").status_code == 403  # no CSRF token
    assert Token.objects.get(user=user).key == key
