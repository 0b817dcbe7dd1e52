"""Throttle counts shared by every web process (issue 24), counted atomically.

DRF's own throttle reads a list of request times from the cache, appends one and writes it
back: requests that arrive together all read the same list, so 10 simultaneous report
downloads at ``3/min`` let 7 through. Counts here are fixed windows: the requests under a
key in the window of the rate's duration that holds "now" (minute 0-59, 60-119, ...), one
counter per key and window, raised by one atomic increment that returns the new count; the
request is let through when that count is within the rate. However many arrive at once,
each gets a different count, so at most the rate's number pass in a window.

Why this and not a library or a sliding log: django-ratelimit counts the same way (a fixed
window, ``cache.add`` then ``cache.incr``) but only on caches whose ``incr`` is atomic, and
Django's ``DatabaseCache.incr`` (our default) is a read then a write, so it would not fix the
default install; it is also a view decorator, not a DRF throttle. An exact sliding log
needs a lock around its read-modify-write on each backend. The price of a fixed window: up
to twice the rate can pass around a window's boundary (the end of one, the start of the
next), never more than the rate within one window.

The increment per backend of the ``throttles`` cache (``concord.caching``):

* Redis (``CACHE_URL``) and local memory: ``cache.add`` (SET NX) then ``cache.incr``
  (INCR), each atomic. The key names its window, and lives a window longer than it, so it
  cannot expire between the two.
* The database (the default): one ``INSERT ... ON CONFLICT DO UPDATE SET hits = hits + 1
  RETURNING hits`` in the ``concord_throttle_count`` table, atomic on PostgreSQL (the row is
  locked by the conflict) and SQLite (one writer at a time). ``DatabaseCache`` stores
  pickled values and has no such statement, hence a table of our own, made by ``migrate``
  with the cache table (:func:`create_cache_table`); rows of windows long over are deleted
  by the first request of each new window.
"""

from __future__ import annotations

import math

from django.core.cache import caches
from django.core.cache.backends.db import DatabaseCache
from django.db import connection, connections
from rest_framework import throttling

from concord.caching import COUNTS, THROTTLES


def throttle_cache():
    return caches[THROTTLES]


def counted(key: str, seconds: int, now: float) -> tuple[int, float]:
    """Count one request under ``key`` in the window of ``seconds`` that holds ``now``
    (seconds since the epoch): the requests counted in that window, this one included
    (refused ones too), and the seconds left in it. Simultaneous calls get different
    counts."""
    window = int(now // seconds)
    left = (window + 1) * seconds - now
    key = f"{key}_{window}"
    cache = throttle_cache()
    if isinstance(cache, DatabaseCache):
        return _counted_in_table(key, expires=(window + 2) * seconds, now=now), left
    while True:
        if cache.add(key, 1, timeout=2 * seconds):  # the window's first request
            return 1, left
        try:
            return cache.incr(key), left
        except ValueError:  # evicted between add and incr: count from the start again
            continue


def _counted_in_table(key: str, expires: int, now: float) -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {COUNTS} (window_key, hits, expires) VALUES (%s, 1, %s) "  # noqa: S608 - constants
            f"ON CONFLICT (window_key) DO UPDATE SET hits = {COUNTS}.hits + 1 RETURNING hits",
            [key, expires],
        )
        (hits,) = cursor.fetchone()
        if hits == 1:  # a new window: the rows of windows over are of no use any more
            cursor.execute(f"DELETE FROM {COUNTS} WHERE expires < %s", [int(now)])  # noqa: S608
    return hits


def forget_counts() -> None:
    """Every count forgotten (tests, or an operator lifting the throttles at once)."""
    throttle_cache().clear()
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {COUNTS}")  # noqa: S608 - a constant


class ScopedRateThrottle(throttling.ScopedRateThrottle):
    """DRF's scoped throttle (``throttle_scope`` on a view; DRF's rates and per-user keys),
    counting with :func:`counted`: at most the rate's number of requests per window, however
    many arrive at once. ``wait`` (``Retry-After``) is the time left in the window."""

    def allow_request(self, request, view):
        # DRF's ScopedRateThrottle.allow_request up to where it would read the history
        self.scope = getattr(view, self.scope_attr, None)
        if not self.scope:
            return True
        self.rate = self.get_rate()
        self.num_requests, self.duration = self.parse_rate(self.rate)
        if self.rate is None:
            return True
        key = self.get_cache_key(request, view)
        if key is None:
            return True
        hits, self.left = counted(key, self.duration, self.timer())
        return hits <= self.num_requests

    def wait(self) -> int:
        """Whole seconds (at least 1) until the window ends, so every 429 carries
        ``Retry-After``, also after the rate was lowered between requests (DRF's history
        answered None then)."""
        return max(1, math.ceil(self.left))


def create_cache_table(sender, using="default", **kwargs) -> None:
    """``post_migrate``: the throttle cache's table and the table of counts
    (:func:`counted`), so every ``migrate`` (``make run``, ``make serve``, the container's
    start, the test database) leaves them in place. Does nothing to a table that exists;
    the table of counts is made even while ``CACHE_URL`` names Redis, so that unsetting it
    needs no other step."""
    from django.core.management import call_command

    call_command("createcachetable", database=using, verbosity=0)  # every DatabaseCache's
    with connections[using].cursor() as cursor:
        cursor.execute(
            f"CREATE TABLE IF NOT EXISTS {COUNTS} (window_key varchar(255) NOT NULL PRIMARY KEY, "
            "hits integer NOT NULL, expires bigint NOT NULL)"
        )
