"""Accounts: a user with a role, and an annotator profile where the role needs one; a test
client logged in as one, or one that sends an API token (:func:`token_client`)."""

from __future__ import annotations


def make_user(username: str, role: str | None, *, annotator: bool = False):
    """A user whose password is its name (tests log in with it), granted ``role``."""
    from django.contrib.auth.models import User

    from annotation import roles
    from annotation.models import Annotator

    user = User.objects.create_user(username=username, password=username)
    if role:
        roles.grant(user, role)
    if annotator:
        Annotator.objects.create(user=user, pseudonym=f"Pseudo-{username}")
    return user


def signed_in(user, *, api: bool = False):
    """A test client logged in as ``user``: Django's for pages and downloads, DRF's
    ``APIClient`` (``api=True``) for the API."""
    from django.test import Client
    from rest_framework.test import APIClient

    client = APIClient() if api else Client()
    client.force_login(user)
    return client


def token_client(user=None, *, key: str | None = None, api: bool = True):
    """A test client that sends ``Authorization: Token <key>`` with every request, as a
    researcher's script or notebook does (no session): ``user``'s API token, created here
    (as the token endpoint would), or ``key`` as given (one from the endpoint, or an unknown
    one for the 401s). DRF's ``APIClient`` by default; Django's ``Client`` (``api=False``)
    where a test drove pages and downloads with it, so that nothing but the building
    changes. The header is a default of the client (``client.defaults``), sent by both."""
    from django.test import Client
    from rest_framework.authtoken.models import Token
    from rest_framework.test import APIClient

    if key is None:
        if user is None:
            raise TypeError("token_client needs a user or a key")
        key = Token.objects.create(user=user).key
    header = f"Token {key}"
    return APIClient(HTTP_AUTHORIZATION=header) if api else Client(HTTP_AUTHORIZATION=header)
