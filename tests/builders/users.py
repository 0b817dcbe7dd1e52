"""Accounts: a user with a role, and an annotator profile where the role needs one."""

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
