"""The caches, from ``CACHE_URL`` (read by the settings, so nothing here imports a cache; issue 24).

DRF's throttles and the password-reset limit count requests in a cache. Django's default
cache is local memory, one per process: behind gunicorn's three workers (and with a new
connection per request) 120/min let through 264 answers in 55 s. The counts now live in a
cache every process shares: the database by default (the ``concord_throttle_count`` table,
made by ``migrate`` with the cache's ``concord_cache``: ``concord.throttles.create_cache_table``),
Redis when ``CACHE_URL`` names one; each count is one atomic increment (``concord.throttles``). The report
cache (``default``) may stay per process: it only saves work, so it uses Redis when
``CACHE_URL`` is set and local memory otherwise, never the database (a report is large).
"""

from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured

#: The cache alias of every throttle count.
THROTTLES = "throttles"
#: The database table of the throttle cache when no ``CACHE_URL`` is set.
TABLE = "concord_cache"
#: The database table of the throttles' counts when no ``CACHE_URL`` is set: a counter per key
#: and window, raised by one SQL statement (``concord.throttles.counted``).
COUNTS = "concord_throttle_count"
REDIS = ("redis://", "rediss://", "unix://")


def cache_settings(url: str) -> dict:
    """``CACHES`` for ``CACHE_URL`` (empty: unset). Django's own backends: a Redis URL is
    handed to ``django.core.cache.backends.redis.RedisCache`` as is (redis-py reads it);
    ``locmem://`` keeps everything per process (one process only, e.g. a laptop)."""
    url = (url or "").strip()
    if not url:
        return {
            "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
            THROTTLES: {
                "BACKEND": "django.core.cache.backends.db.DatabaseCache",
                "LOCATION": TABLE,
            },
        }
    if url.startswith(REDIS):
        redis = {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": url}
        return {"default": {**redis, "KEY_PREFIX": "concord"}, THROTTLES: {**redis, "KEY_PREFIX": "concord-throttle"}}  # fmt: skip
    if url == "locmem://":
        local = {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
        return {"default": local, THROTTLES: {**local, "LOCATION": THROTTLES}}
    raise ImproperlyConfigured(
        f"CACHE_URL {url!r}: use redis://HOST:PORT/DB (or rediss://, unix://), locmem://, or "
        "leave it unset for the database"
    )
