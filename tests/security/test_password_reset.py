"""The password-reset form exists only with a mail server, and is throttled (issue 12)."""

import time

import pytest
from django.core import mail
from django.core.cache import cache
from django.test import Client
from django.urls import reverse

from concord.throttles import forget_counts
from tests.builders.users import make_user
from tests.concurrency import at_once, database_file


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


def test_simultaneous_requests_send_exactly_the_limit(transactional_db, settings):
    """8 requests at once from one address with a limit of 3: 3 mails, 5 refusals. The
    count was ``cache.add`` then ``cache.incr``, a read then a write on the database cache,
    so simultaneous requests read the same count and passed together."""
    settings.PASSWORD_RESET_ENABLED = True
    settings.PASSWORD_RESET_LIMIT = 3
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    user = make_user("reset_at_once", "annotator")
    user.email = "at-once@example.org"
    user.save()
    forget_counts()
    left = 3600 - time.time() % 3600  # the limit is per clock hour: not across its end
    if left < 15:
        time.sleep(left + 0.1)

    def ask(index: int) -> int:
        return Client().post(reverse("password_reset"), {"email": user.email}).status_code

    with database_file():
        statuses = at_once(8, ask)
    assert sorted(statuses) == [302] * 3 + [429] * 5, statuses
    assert len(mail.outbox) == 3
