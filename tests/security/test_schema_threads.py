"""``/api/schema/`` under a threaded server: drf-spectacular loads its extensions' target
classes lazily and not thread-safely, so two requests building the schema at once could
answer 500 "'NoneType' object has no attribute 'startswith'" (a tester opening the API docs
on ``make run``; tfranzel/drf-spectacular#1122). The view loads every extension first, one
schema at a time (``concord.schema_view``)."""

from __future__ import annotations

import threading

import pytest
from django.test import Client

from concord import schema_view

pytestmark = pytest.mark.django_db(transaction=True)


def test_every_extension_is_loaded_before_a_schema_is_built():
    schema_view.load_extensions()
    lazy = [c.__name__ for c in schema_view._extensions() if isinstance(c.target_class, str)]
    assert lazy == []


def test_a_schema_waits_for_the_one_being_built(admin_user):
    """Holding the lock (another request building the schema) keeps a second request from
    starting its own build; it answers once the lock is free."""
    results = []

    def fetch():
        client = Client()
        client.force_login(admin_user)
        results.append(client.get("/api/schema/?format=json").status_code)

    with schema_view.GENERATING:
        worker = threading.Thread(target=fetch)
        worker.start()
        worker.join(timeout=3)
        assert worker.is_alive() and results == []  # blocked on the build in progress
    worker.join(timeout=120)
    assert results == [200]
