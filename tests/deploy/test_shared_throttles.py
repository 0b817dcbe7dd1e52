"""Throttle counts are shared by every web process (issue 24).

Before, DRF counted in Django's default cache, local memory: each gunicorn worker had its
own counts, so 120/min let 264 requests through in 55 s. The counts now live in the
database (the default, a table ``migrate`` makes) or in Redis (``CACHE_URL``), which every
process reads.
"""

from __future__ import annotations

import pytest
from django.core.cache import caches
from django.core.cache.backends.db import DatabaseCache
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from django.db import connection
from rest_framework.test import APIClient
from rest_framework.throttling import ScopedRateThrottle

from concord.caching import TABLE, THROTTLES, cache_settings
from tests.builders.users import make_user

REDIS_URL = "redis://127.0.0.1:6379/1"  # this branch's Redis database (K = 1)


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
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT cache_key FROM {TABLE}")  # noqa: S608 - a constant
        keys = [row[0] for row in cursor.fetchall()]
    assert any(f"throttle_reports_{user.pk}" in k for k in keys), keys
    # another process builds its own backend on the same table: it sees the same count
    other = DatabaseCache(TABLE, {})
    assert len(other.get(f"throttle_reports_{user.pk}")) == 2


def test_migrate_makes_the_cache_table(db):
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE {TABLE}")
    assert TABLE not in connection.introspection.table_names()
    call_command("migrate", verbosity=0)
    assert TABLE in connection.introspection.table_names()


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

    from concord.throttles import throttle_cache
    from tests.builders.ranked import ranked_study

    throttle_cache().clear()
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


def test_every_429_carries_retry_after_even_after_the_rate_was_lowered(db, monkeypatch):
    """Three requests counted at 5/min, then the rate lowered to 1/min: DRF's ``wait`` was
    None for a history longer than the rate (no ``Retry-After`` on the 429); now the whole
    seconds until the history has room again, at least 1."""
    from concord.throttles import throttle_cache

    throttle_cache().clear()
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
