"""Inviting annotators: an account under a generated pseudonym and a set-password link.

No real name, no e-mail address is stored: the username *is* the pseudonym, and the admin
hands the link over however the study recruits. The link is Django's password-reset link
(``default_token_generator``): it works once, expires after ``PASSWORD_RESET_TIMEOUT``, and
stops working as soon as a password is set.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.tokens import default_token_generator
from django.db import transaction
from django.urls import reverse
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from annotation import pseudonyms, roles
from annotation.models import Annotator

from . import StudyAdminError

MAX_INVITES = 200


@dataclass(frozen=True)
class Invitation:
    pseudonym: str
    annotator_id: int
    fields: tuple[str, ...]
    link: str

    @property
    def message(self) -> str:
        """What the admin sends: the user name (a case-sensitive pseudonym the annotator has
        no other way to learn) and the link (issue 26, dead end 8)."""
        return (
            f"You are invited to annotate in Concord.\n"
            f"Your user name (case-sensitive): {self.pseudonym}\n"
            f"Set your password here (the link works once and expires): {self.link}\n"
            f"Then log in with your user name and that password."
        )


def parse_fields(text: str) -> list[str]:
    """ "Computer Science; Biology" or comma-separated -> a clean list, order kept, no repeats."""
    parts = [p.strip() for chunk in text.split(";") for p in chunk.split(",")]
    return list(dict.fromkeys(p for p in parts if p))


def set_password_link(user, base_url: str = "") -> str:
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    token = default_token_generator.make_token(user)
    path = reverse("password_reset_confirm", kwargs={"uidb64": uid, "token": token})
    return base_url.rstrip("/") + path


def invite(
    expertise: list[list[str]],
    *,
    degree: str = "",
    base_url: str = "",
    rng: random.Random | None = None,
) -> list[Invitation]:
    """One account per entry of ``expertise`` (that annotator's fields), in one transaction."""
    if not expertise:
        raise StudyAdminError("count", "invite at least one annotator")
    if len(expertise) > MAX_INVITES:
        raise StudyAdminError("count", f"at most {MAX_INVITES} invitations at once")
    User = get_user_model()
    out = []
    with transaction.atomic():
        taken = set(Annotator.objects.values_list("pseudonym", flat=True))
        taken |= set(User.objects.values_list("username", flat=True))
        names = pseudonyms.generate_many(len(expertise), taken, rng)
        for name, fields in zip(names, expertise, strict=True):
            user = User(username=name)
            user.set_unusable_password()
            user.save()
            roles.grant(user, roles.ANNOTATOR)
            ann = Annotator.objects.create(
                user=user, pseudonym=name, degree=degree, expertise_fields=list(fields)
            )
            out.append(Invitation(name, ann.pk, tuple(fields), set_password_link(user, base_url)))
    return out
