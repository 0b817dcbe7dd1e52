"""The password-reset form exists only with a mail server, and is throttled (issue 12)."""

import pytest
from django.core import mail
from django.core.cache import cache
from django.test import Client
from django.urls import reverse

from tests.builders.users import make_user


@pytest.fixture(autouse=True)
def _clean_cache():
    cache.clear()
    yield
    cache.clear()


def test_without_mail_the_reset_form_is_404(db, settings):
    settings.PASSWORD_RESET_ENABLED = False
    make_user("reset_user", "annotator")
    client = Client()
    assert client.get(reverse("password_reset")).status_code == 404
    assert client.post(reverse("password_reset"), {"email": "x@example.org"}).status_code == 404
    assert client.get(reverse("password_reset_done")).status_code == 404
    assert not mail.outbox


def test_with_mail_the_form_works_and_is_throttled(db, settings):
    settings.PASSWORD_RESET_ENABLED = True
    settings.PASSWORD_RESET_LIMIT = 2
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    user = make_user("reset_user", "annotator")
    user.email = "reset@example.org"
    user.save()
    client = Client()
    assert client.get(reverse("password_reset")).status_code == 200
    for _ in range(2):
        response = client.post(reverse("password_reset"), {"email": user.email})
        assert response.status_code == 302
    assert len(mail.outbox) == 2
    response = client.post(reverse("password_reset"), {"email": user.email})
    assert response.status_code == 429
    assert int(response["Retry-After"]) >= 1  # every 429 says when to come back
    assert len(mail.outbox) == 2


def test_links_to_set_a_password_still_work_without_mail(db, settings):
    """Invitations use the same links (studio.studyadmin.invitations)."""
    settings.PASSWORD_RESET_ENABLED = False
    response = Client().get(
        reverse("password_reset_confirm", kwargs={"uidb64": "MQ", "token": "set-password"})
    )
    assert response.status_code == 200
