"""Throttle counts shared by every web process (issue 24): DRF's scoped throttle counting
in the ``throttles`` cache (``concord.caching``) and the cache table's creation on
``migrate``."""

from __future__ import annotations

import math

from django.core.cache import caches
from rest_framework import throttling

from concord.caching import THROTTLES


def throttle_cache():
    return caches[THROTTLES]


class ScopedRateThrottle(throttling.ScopedRateThrottle):
    """DRF's scoped throttle (``throttle_scope`` on a view), counting in the shared cache."""

    @property
    def cache(self):
        return throttle_cache()

    def wait(self) -> int:
        """Whole seconds (at least 1) until a request would be let through, so every 429
        carries ``Retry-After``. DRF's own answer is None when the history holds more
        requests than the rate allows (the rate was lowered between requests: a 429 without
        ``Retry-After``) and a fraction of a second otherwise; here it is the time until
        enough of the history has expired that one more request fits."""
        if self.num_requests <= 0 or len(self.history) < self.num_requests:
            return max(1, math.ceil(self.duration))
        # history is newest first: the request at index num_requests - 1 must leave the window
        oldest_kept = self.history[self.num_requests - 1]
        return max(1, math.ceil(self.duration - (self.now - oldest_kept)))


def create_cache_table(sender, using="default", **kwargs) -> None:
    """``post_migrate``: the throttle cache's table, so every ``migrate`` (``make run``,
    ``make serve``, the container's start, the test database) leaves it in place. Does
    nothing when the throttle cache is not the database, or the table exists."""
    from django.core.management import call_command

    call_command("createcachetable", database=using, verbosity=0)  # every DatabaseCache's
