"""Login throttling (django-axes): per user name and IP, a cool-off, a clear message."""

import pytest
from django.test import Client
from django.urls import reverse

from tests.builders.users import make_user

LIMIT = 3


@pytest.fixture(autouse=True)
def _small_limit(settings):
    settings.AXES_FAILURE_LIMIT = LIMIT


def attempt(client: Client, username: str, password: str, ip: str = "10.0.0.1"):
    return client.post(
        reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=ip
    )


def logged_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


@pytest.mark.django_db
def test_failures_up_to_the_limit_lock_out_even_the_right_password():
    make_user("alice", "annotator")
    client = Client()
    for _ in range(LIMIT - 1):
        assert attempt(client, "alice", "wrong").status_code == 200
    locked = attempt(client, "alice", "wrong")
    assert locked.status_code == 429
    assert "Too many failed login attempts" in locked.content.decode()
    assert "Retry-After" in locked

    right = attempt(client, "alice", "alice")
    assert right.status_code == 429
    assert b"Too many failed login attempts" in right.content
    assert not logged_in(client)


@pytest.mark.django_db
def test_success_before_the_limit_resets_the_count():
    make_user("bob", "annotator")
    client = Client()
    for _ in range(LIMIT - 1):
        attempt(client, "bob", "wrong")
    assert attempt(client, "bob", "bob").status_code == 302
    client.logout()
    # LIMIT - 1 fresh failures are again allowed, then the right password still works
    for _ in range(LIMIT - 1):
        assert attempt(client, "bob", "wrong").status_code == 200
    assert attempt(client, "bob", "bob").status_code == 302
    assert logged_in(client)


@pytest.mark.django_db
def test_another_user_or_another_address_is_unaffected():
    make_user("carol", "annotator")
    make_user("dave", "annotator")
    for _ in range(LIMIT):
        attempt(Client(), "carol", "wrong", ip="10.0.0.1")
    assert attempt(Client(), "carol", "carol", ip="10.0.0.1").status_code == 429

    other_user = Client()
    assert attempt(other_user, "dave", "dave", ip="10.0.0.1").status_code == 302
    other_ip = Client()
    assert attempt(other_ip, "carol", "carol", ip="10.0.0.2").status_code == 302
    assert logged_in(other_user) and logged_in(other_ip)


@pytest.mark.django_db
def test_api_token_login_is_throttled_with_a_json_429():
    make_user("erin", "annotator")
    client = Client()
    url = reverse("api-token")
    for _ in range(LIMIT - 1):
        r = client.post(url, {"username": "erin", "password": "wrong"}, REMOTE_ADDR="10.0.0.9")
        assert r.status_code == 400
    r = client.post(url, {"username": "erin", "password": "wrong"}, REMOTE_ADDR="10.0.0.9")
    assert r.status_code == 429
    r = client.post(url, {"username": "erin", "password": "erin"}, REMOTE_ADDR="10.0.0.9")
    assert r.status_code == 429
    assert "Too many failed login attempts" in r.json()["detail"]
    assert "token" not in r.json()


@pytest.mark.django_db
def test_admin_login_shares_the_count():
    make_user("frank", "admin")
    client = Client()
    for _ in range(LIMIT):
        attempt(client, "frank", "wrong")
    r = client.post(
        reverse("admin:login"), {"username": "frank", "password": "frank"}, REMOTE_ADDR="10.0.0.1"
    )
    assert r.status_code == 429
    assert not logged_in(client)


@pytest.mark.django_db
def test_test_client_login_still_works():
    """``Client.login()`` calls authenticate() without a request: not throttled, not broken."""
    make_user("gina", "annotator")
    client = Client()
    assert client.login(username="gina", password="gina")
    assert not Client().login(username="gina", password="wrong")


def test_client_ip_behind_trusted_proxies(settings, rf):
    from concord.login_throttle import client_ip

    request = rf.get("/", REMOTE_ADDR="10.1.1.1", HTTP_X_FORWARDED_FOR="6.6.6.6, 203.0.113.5")
    settings.TRUSTED_PROXY_COUNT = 0
    assert client_ip(request) == "10.1.1.1"  # no proxy: the header is the client's, ignored
    settings.TRUSTED_PROXY_COUNT = 1
    assert client_ip(request) == "203.0.113.5"  # the spoofed left entry is not used


@pytest.mark.django_db
def test_attempts_while_locked_do_not_extend_the_lock(settings):
    """The cool-off is a fixed window from the lock's start: someone who keeps trying while
    locked cannot keep the real user out for ever."""
    from datetime import timedelta

    from axes.models import AccessAttempt

    settings.AXES_COOLOFF_TIME = timedelta(minutes=15)
    make_user("hank", "admin")
    client = Client()
    for _ in range(LIMIT):
        attempt(client, "hank", "wrong")

    def minutes_pass(minutes: int) -> None:
        for row in AccessAttempt.objects.all():
            row.attempt_time -= timedelta(minutes=minutes)
            row.save(update_fields=["attempt_time"])

    minutes_pass(10)
    assert attempt(client, "hank", "wrong").status_code == 429  # still locked, keeps trying
    assert attempt(client, "hank", "hank").status_code == 429
    minutes_pass(6)  # 16 minutes after the lock began
    assert attempt(client, "hank", "hank").status_code == 302
    assert logged_in(client)


@pytest.mark.django_db
def test_the_locked_caller_is_told_the_time_that_remains(settings):
    """The lock is a fixed window, so the page and the API say how long is left of it
    (rounded up to a minute), not the whole cool-off again: ten minutes into a 15-minute lock
    the wait is 5 minutes, and ``Retry-After`` the seconds that remain."""
    from datetime import timedelta

    from axes.models import AccessAttempt

    settings.AXES_COOLOFF_TIME = timedelta(minutes=15)
    make_user("ida", "annotator")
    client = Client()
    for _ in range(LIMIT - 1):
        attempt(client, "ida", "wrong")
    first = attempt(client, "ida", "wrong")
    assert "blocked for 15 minutes" in first.content.decode()
    AccessAttempt.objects.update(attempt_time=AccessAttempt.objects.get().attempt_time
                                 - timedelta(minutes=10, seconds=30))  # fmt: skip

    page = attempt(client, "ida", "ida")
    assert page.status_code == 429
    assert "blocked for 5 minutes" in page.content.decode()
    assert 240 < int(page["Retry-After"]) <= 270

    api = client.post(reverse("api-token"), {"username": "ida", "password": "ida"},
                      REMOTE_ADDR="10.0.0.1")  # fmt: skip
    assert api.status_code == 429
    assert "blocked for 5 minutes" in api.json()["detail"]
    assert 240 < int(api["Retry-After"]) <= 270
