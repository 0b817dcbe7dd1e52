"""Shared fixtures: users per role, the shared ScholarQA-CS2 data directory."""

import os
from pathlib import Path

import pytest

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "scholarqa-cs2"


@pytest.fixture(autouse=True)
def _fast_password_hasher(settings):
    """Test users log in many times; the default PBKDF2 cost would dominate the suite."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(scope="session")
def scholarqa_dir() -> Path:
    """The released ScholarQA-CS2 data. Skipped locally when absent; a failure under CI."""
    if not SHARED_DATA.is_dir():
        if os.environ.get("CI") == "true":
            pytest.fail(f"../shared/data/scholarqa-cs2 is missing (looked in {SHARED_DATA})")
        pytest.skip("../shared/data/scholarqa-cs2 not available")
    return SHARED_DATA


def make_user(username: str, role: str | None, *, annotator: bool = False):
    from django.contrib.auth.models import User

    from annotation import roles
    from annotation.models import Annotator

    user = User.objects.create_user(username=username, password=username)
    if role:
        roles.grant(user, role)
    if annotator:
        Annotator.objects.create(user=user, pseudonym=f"Pseudo-{username}")
    return user


@pytest.fixture
def admin_user(db):
    return make_user("admin_t", "admin")


@pytest.fixture
def researcher_user(db):
    return make_user("researcher_t", "researcher")


@pytest.fixture
def annotator_user(db):
    return make_user("annotator_t", "annotator", annotator=True)


@pytest.fixture
def other_annotator_user(db):
    return make_user("annotator_other", "annotator", annotator=True)


@pytest.fixture
def celery_worker_process(transactional_db, settings):
    """A real Celery worker on Redis, in its own process, on the test database.

    Needs PostgreSQL (the worker must see committed rows of the test database; SQLite
    tests use an in-memory database no other process can open) and a broker URL in
    CONCORD_TEST_BROKER_URL. Skipped locally without them; under CI=true a missing
    broker is a failure, not a skip.
    """
    from django.db import connection

    from concord.celery import app
    from tests import worker

    broker = os.environ.get("CONCORD_TEST_BROKER_URL")
    vendor = connection.vendor
    if not broker or vendor != "postgresql":
        if os.environ.get("CI") == "true" and vendor == "postgresql":
            pytest.fail("CONCORD_TEST_BROKER_URL is not set: the worker tests need Redis")
        pytest.skip("a real worker needs PostgreSQL and CONCORD_TEST_BROKER_URL")
    import redis

    redis.Redis.from_url(broker).flushdb()
    proc = worker.start_worker(connection, broker)

    def reset_connections():
        # Celery caches its connection pools and result backend at first use; an eager
        # test earlier in the session would leave them pointing at no broker.
        app._pool = None
        app.amqp._producer_pool = None
        app._local.__dict__.pop("backend", None)

    saved = {k: app.conf.get(k) for k in ("broker_url", "result_backend", "task_always_eager")}
    app.conf.update(broker_url=broker, result_backend=broker, task_always_eager=False)
    reset_connections()
    settings.CELERY_TASK_ALWAYS_EAGER = False
    app.connection_for_write().ensure_connection(max_retries=3)
    try:  # wait until the worker answers a ping
        worker.wait_until_answering(app, [proc], 60)
    except worker.WorkerError as exc:
        pytest.fail(str(exc))
    try:
        yield proc
    finally:
        worker.stop([proc])
        app.conf.update(**saved)
        reset_connections()


@pytest.fixture(autouse=True)
def _fresh_throttles():
    """DRF throttles count requests in the default cache, keyed by user id; ids repeat from
    test to test, so each test starts with empty counts (and no cached report)."""
    from django.core.cache import cache

    cache.clear()
