"""Throttle counts are shared by every web process (issue 24).

Before, DRF counted in Django's default cache, local memory: each gunicorn worker had its
own counts, so 120/min let 264 requests through in 55 s. The counts now live in the
database (the default, a table ``migrate`` makes) or in Redis (``CACHE_URL``), which every
process reads. Each count is one atomic increment: DRF's read-modify-write of a list of
request times let 7 of 10 simultaneous report downloads through at 3/min.
"""

from __future__ import annotations

import math
import time

import pytest
from django.core.cache import caches
from django.core.cache.backends.db import DatabaseCache
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from django.db import connection
from rest_framework.test import APIClient
from rest_framework.throttling import ScopedRateThrottle

from concord.caching import COUNTS, TABLE, THROTTLES, cache_settings
from concord.throttles import ScopedRateThrottle as Ours
from concord.throttles import forget_counts
from tests.builders.users import make_user
from tests.concurrency import at_once, database_file

REDIS_URL = "redis://127.0.0.1:6379/1"  # this branch's Redis database (K = 1)
REDIS_TESTS_URL = "redis://127.0.0.1:6379/14"  # the Redis database of the concurrency test


@pytest.fixture
def tight(monkeypatch):
    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"reports": "2/min"})


def hammer(url: str, user, n: int = 3) -> list[int]:
    """``n`` requests, each from a new client (a new connection, as a script makes)."""
    statuses = []
    for _ in range(n):
        client = APIClient()
        client.force_authenticate(user)
        statuses.append(client.get(url).status_code)
    return statuses


def study_for(user):
    from annotation.models import Study

    study = Study.objects.create(name=f"Throttled for {user.username}")
    study.researchers.add(user)
    return study


def test_the_counts_are_in_the_database_every_process_reads(db, tight):
    assert isinstance(caches[THROTTLES], DatabaseCache)
    user = make_user("shared_throttle", "researcher")
    url = f"/api/studies/{study_for(user).pk}/agreement/"
    assert hammer(url, user)[-1] == 429
    with connection.cursor() as cursor:  # a table, not a process's memory
        cursor.execute(f"SELECT window_key, hits FROM {COUNTS}")  # noqa: S608 - a constant
        counts = dict(cursor.fetchall())
    window = int(Ours.timer() // 60)  # 2/min: a window of a minute (tests/conftest.py)
    assert counts.get(f"throttle_reports_{user.pk}_{window}") == 3, counts  # the 429 too


def test_migrate_makes_the_cache_table_and_the_table_of_counts(db):
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE {TABLE}")
        cursor.execute(f"DROP TABLE {COUNTS}")
    assert not {TABLE, COUNTS} & set(connection.introspection.table_names())
    call_command("migrate", verbosity=0)
    assert {TABLE, COUNTS} <= set(connection.introspection.table_names())


def test_cache_url_chooses_redis_and_refuses_what_it_cannot_honour():
    default = cache_settings("")
    assert default[THROTTLES]["BACKEND"].endswith("DatabaseCache")
    assert not default["default"]["BACKEND"].endswith("DatabaseCache")  # reports: not in the DB
    redis = cache_settings(REDIS_URL)
    assert {c["BACKEND"] for c in redis.values()} == {"django.core.cache.backends.redis.RedisCache"}
    assert {c["LOCATION"] for c in redis.values()} == {REDIS_URL}
    with pytest.raises(ImproperlyConfigured, match="CACHE_URL 'memcached://x'"):
        cache_settings("memcached://x")


def test_with_cache_url_the_counts_are_in_redis(db, tight, settings):
    import redis

    client = redis.Redis.from_url(REDIS_URL)
    try:
        client.ping()
    except redis.ConnectionError:
        pytest.skip("no Redis on 127.0.0.1:6379")
    settings.CACHES = cache_settings(REDIS_URL)
    caches[THROTTLES].clear()
    try:
        user = make_user("redis_throttle", "researcher")
        url = f"/api/studies/{study_for(user).pk}/agreement/"
        assert hammer(url, user)[-1] == 429
        assert any(f"throttle_reports_{user.pk}".encode() in k for k in client.keys("*"))
    finally:
        caches[THROTTLES].clear()


def test_a_report_download_that_computes_counts_against_the_reports_throttle(db, tight):
    """A download computing a report (a new seed or selection each time) is counted like the
    API's reports, so it is no way around THROTTLE_REPORTS; a cached one is served without
    counting (found by a researcher with a token: report.json?bootstrap=1000 with a new seed
    each time computed on after the API answered 429)."""
    from django.test import Client

    from tests.builders.ranked import ranked_study

    forget_counts()
    user = make_user("download_throttle", "researcher")
    study = ranked_study(3)
    study.researchers.add(user)
    browser = Client()
    browser.force_login(user)
    base = f"/reports/{study.pk}"
    assert browser.get(f"{base}/report.json?seed=1").status_code == 200
    assert browser.get(f"{base}/report.json?seed=2").status_code == 200
    refused = browser.get(f"{base}/report.json?seed=3")
    assert refused.status_code == 429 and int(refused["Retry-After"]) >= 1
    assert "THROTTLE_REPORTS" in refused.content.decode()
    for path in ("report.html?seed=4", "tables/system.csv?seed=5"):
        assert browser.get(f"{base}/{path}").status_code == 429, path
    # what is cached is served without counting
    assert browser.get(f"{base}/report.json?seed=1").status_code == 200
    # the API shares the budget
    client = APIClient()
    client.force_authenticate(user)
    assert client.get(f"/api/studies/{study.pk}/agreement/?seed=6").status_code == 429


@pytest.fixture(params=["database", "redis"])
def throttle_backend(request, settings, transactional_db):
    """The throttles' cache of the default install (the database), then Redis (``CACHE_URL``,
    its database 14, emptied before and after)."""
    if request.param == "redis":
        import redis

        try:
            redis.Redis.from_url(REDIS_TESTS_URL).ping()
        except redis.ConnectionError:
            pytest.skip("no Redis on 127.0.0.1:6379")
        settings.CACHES = cache_settings(REDIS_TESTS_URL)
    forget_counts()
    yield request.param
    forget_counts()


def test_simultaneous_downloads_pass_exactly_the_rate(
    transactional_db, throttle_backend, monkeypatch
):
    """10 report downloads at once at 3/min, each computing (a new seed): exactly 3 are
    computed, the 7 others are 429 with the seconds left in the window as Retry-After. DRF's
    history list let 7 through (each request read it before any wrote it back). On SQLite
    the requests meet in a database file, as a server's workers do."""
    from django.test import Client

    from tests.builders.ranked import ranked_study

    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"reports": "3/min"})
    now = (time.time() // 60) * 60 + 20.5  # 39.5 s before the window ends: none ends here
    monkeypatch.setattr(Ours, "timer", staticmethod(lambda: now))
    user = make_user("simultaneous_downloads", "researcher")
    study = ranked_study(2)
    study.researchers.add(user)
    browsers = []
    for _ in range(10):
        browser = Client()
        browser.force_login(user)  # sessions are written before the requests
        browsers.append(browser)

    def download(index: int):
        response = browsers[index].get(f"/reports/{study.pk}/report.json?seed={index}")
        return response.status_code, response.get("Retry-After")

    with database_file():
        answers = at_once(10, download)
    statuses = sorted(status for status, _ in answers)
    assert statuses == [200] * 3 + [429] * 7, (throttle_backend, answers)
    waits = {wait for status, wait in answers if status == 429}
    assert waits == {str(math.ceil(39.5))}, answers


def test_every_429_carries_retry_after_even_after_the_rate_was_lowered(db, monkeypatch):
    """Three requests counted at 5/min, then the rate lowered to 1/min: DRF's ``wait`` was
    None for a history longer than the rate (no ``Retry-After`` on the 429); now the whole
    seconds until the history has room again, at least 1."""
    forget_counts()
    user = make_user("lowered_throttle", "researcher")
    url = f"/api/studies/{study_for(user).pk}/agreement/"
    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"reports": "5/min"})
    assert 429 not in hammer(url, user)
    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"reports": "1/min"})
    client = APIClient()
    client.force_authenticate(user)
    refused = client.get(url)
    assert refused.status_code == 429
    assert 1 <= int(refused["Retry-After"]) <= 60
