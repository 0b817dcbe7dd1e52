"""Accounts: a user with a role, and an annotator profile where the role needs one; a test
client logged in as one."""

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
