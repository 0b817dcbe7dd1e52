"""API tokens that expire and do not outlive a password (issue 12).

- A token older than ``CONCORD_TOKEN_TTL_DAYS`` (0: never) is refused with 401, "Token has
  expired", on every use (API and downloads alike) until it is replaced: ``POST
  /api/auth/token/`` (or the account page) then hands out a fresh one; that endpoint goes
  by the credentials in the body and reads no ``Authorization`` header, so the expired
  token sent along cannot block its own renewal. The refused token is
  kept, not deleted: deleting it on the first refusal made every later request with it say
  "Invalid token.", sending a script's author after a typo instead of a new token.
- Changing a password (the password-change page, ``changepassword``, a reset, the admin)
  deletes the user's token: whoever held it must sign in again.
"""

from datetime import timedelta

from django.conf import settings
from django.utils import timezone
from rest_framework import authentication
from rest_framework.exceptions import AuthenticationFailed


def expired(token) -> bool:
    days = settings.CONCORD_TOKEN_TTL_DAYS
    return bool(days) and token.created < timezone.now() - timedelta(days=days)


class TokenAuthentication(authentication.TokenAuthentication):
    """The one token rule of the API and of every download (``concord.token_auth``).

    ``Authorization: Token <key>`` or ``Authorization: Bearer <key>`` (what most HTTP
    tools send for a token): :attr:`keywords` is the one list of accepted schemes; the
    first, :attr:`keyword`, is the one a 401's ``WWW-Authenticate`` names."""

    keywords = ("Token", "Bearer")
    keyword = keywords[0]

    @classmethod
    def names_a_token(cls, request) -> bool:
        """Whether the request's ``Authorization`` header uses one of :attr:`keywords`."""
        words = authentication.get_authorization_header(request).split()
        return bool(words) and words[0].lower() in {k.lower().encode() for k in cls.keywords}

    def authenticate(self, request):
        """DRF's ``authenticate`` (its checks and messages), for whichever of
        :attr:`keywords` the request uses: DRF compares the header with ``self.keyword``,
        so this instance (DRF makes one per request) takes the request's."""
        if not self.names_a_token(request):
            return None
        self.keyword = authentication.get_authorization_header(request).split()[0].decode()
        return super().authenticate(request)

    def authenticate_credentials(self, key):
        user, token = super().authenticate_credentials(key)
        if expired(token):  # kept: the same answer every time until replaced (module doc)
            raise AuthenticationFailed("Token has expired; obtain a new one.")
        return user, token


def fresh_token(user):
    """The user's token, replaced when it has expired (for ``POST /api/auth/token/``)."""
    from rest_framework.authtoken.models import Token

    token, _ = Token.objects.get_or_create(user=user)
    if expired(token):
        token.delete()
        token = Token.objects.create(user=user)
    return token


def revoke_on_password_change(sender, instance, **kwargs):
    """``pre_save`` of the user: a new password hash deletes the user's API token."""
    if instance.pk is None:
        return
    from rest_framework.authtoken.models import Token

    old = sender.objects.filter(pk=instance.pk).values_list("password", flat=True).first()
    if old is not None and old != instance.password:
        Token.objects.filter(user_id=instance.pk).delete()
