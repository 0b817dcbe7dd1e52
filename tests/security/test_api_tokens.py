"""API tokens expire and do not survive a password change (issue 12)."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests.builders.users import make_user, token_client


@pytest.fixture
def user(db):
    return make_user("tok_researcher", "researcher")


def obtain(username: str) -> str:
    response = APIClient().post("/api/auth/token/", {"username": username, "password": username})
    assert response.status_code == 200, response.content
    return response.json()["token"]


def test_a_password_change_revokes_the_token(user):
    key = obtain(user.username)
    assert token_client(key=key).get("/api/studies/").status_code == 200
    user.set_password("a-new-long-password-42")
    user.save()
    assert token_client(key=key).get("/api/studies/").status_code == 401
    assert not Token.objects.filter(key=key).exists()


def test_saving_a_user_without_a_new_password_keeps_the_token(user):
    key = obtain(user.username)
    user.first_name = "Ada"
    user.save()
    assert token_client(key=key).get("/api/studies/").status_code == 200


def test_a_token_expires_and_a_new_one_is_handed_out(user, settings):
    settings.CONCORD_TOKEN_TTL_DAYS = 30
    key = obtain(user.username)
    Token.objects.filter(key=key).update(created=timezone.now() - timedelta(days=31))
    response = token_client(key=key).get("/api/studies/")
    assert response.status_code == 401 and "expired" in response.json()["detail"]
    fresh = obtain(user.username)
    assert fresh != key
    assert token_client(key=fresh).get("/api/studies/").status_code == 200


def test_an_expired_token_says_expired_every_time_until_replaced(user, settings):
    """Before the fix the first refusal deleted the token, so every later request (API or
    download) said "Invalid token." instead of sending the user for a new one."""
    settings.CONCORD_TOKEN_TTL_DAYS = 30
    key = obtain(user.username)
    Token.objects.filter(key=key).update(created=timezone.now() - timedelta(days=31))
    client = token_client(key=key)
    download = reverse("metaeval:json", kwargs={"study_id": 1})
    for url in ["/api/studies/", "/api/studies/", download, download, "/api/studies/"]:
        response = client.get(url)
        assert response.status_code == 401, url
        assert response.json()["detail"] == "Token has expired; obtain a new one.", url
    fresh = obtain(user.username)
    assert fresh != key
    response = token_client(key=key).get("/api/studies/")
    assert response.status_code == 401 and response.json()["detail"] == "Invalid token."


def test_an_expired_token_sent_along_does_not_stop_its_renewal(user, settings):
    """A script that kept its expired ``Authorization`` header while posting its user name
    and password got "Token has expired" from the token endpoint too, so it could never
    renew: the endpoint goes by the credentials in the body only."""
    settings.CONCORD_TOKEN_TTL_DAYS = 30
    key = obtain(user.username)
    Token.objects.filter(key=key).update(created=timezone.now() - timedelta(days=31))
    client = token_client(key=key)
    wrong = client.post("/api/auth/token/", {"username": user.username, "password": "nope"})
    assert wrong.status_code == 400 and "token" not in wrong.json(), wrong.content
    assert "expired" not in str(wrong.json())
    response = client.post(
        "/api/auth/token/", {"username": user.username, "password": user.username}
    )
    assert response.status_code == 200, response.content
    fresh = response.json()["token"]
    assert fresh != key
    assert token_client(key=fresh).get("/api/studies/").status_code == 200
    stale = client.get("/api/studies/")
    assert stale.status_code == 401 and stale.json()["detail"] == "Invalid token."


def test_a_valid_token_sent_along_is_not_what_the_endpoint_answers_to(user, settings):
    """Credentials decide, whatever the header: another user's valid token with a wrong
    password gets no token."""
    other = make_user("tok_other", "researcher")
    client = token_client(key=obtain(other.username))
    wrong = client.post("/api/auth/token/", {"username": user.username, "password": "nope"})
    assert wrong.status_code == 400
    right = client.post("/api/auth/token/", {"username": user.username, "password": user.username})
    assert right.status_code == 200
    assert Token.objects.get(key=right.json()["token"]).user == user


def test_the_login_and_password_reset_pages_ignore_an_expired_token_header(user, settings):
    """The other doors that take credentials are Django's own views: no token class runs
    there, so an expired header changes nothing (a guard beside the endpoint's fix)."""
    settings.CONCORD_TOKEN_TTL_DAYS = 30
    key = obtain(user.username)
    Token.objects.filter(key=key).update(created=timezone.now() - timedelta(days=31))
    header = {"HTTP_AUTHORIZATION": f"Token {key}"}
    from django.test import Client

    client = Client()
    login = client.post(
        reverse("login"), {"username": user.username, "password": user.username}, **header
    )
    assert login.status_code == 302, login.status_code
    assert Client().get(reverse("password_reset"), **header).status_code in (200, 404)
