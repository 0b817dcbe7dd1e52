"""Throttle counts shared by every web process (issue 24): DRF's scoped throttle counting
in the ``throttles`` cache (``concord.caching``) and the cache table's creation on
``migrate``."""

from __future__ import annotations

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


def create_cache_table(sender, using="default", **kwargs) -> None:
    """``post_migrate``: the throttle cache's table, so every ``migrate`` (``make run``,
    ``make serve``, the container's start, the test database) leaves it in place. Does
    nothing when the throttle cache is not the database, or the table exists."""
    from django.core.management import call_command

    call_command("createcachetable", database=using, verbosity=0)  # every DatabaseCache's
