"""Shared fixtures: users per role, the shared ScholarQA-CS2 data directory, a real Celery
worker. The data builders live in tests/builders/."""

import os
import time
from pathlib import Path

# The local LLM server the judge tests talk to listens on 127.0.0.1: allowed here (and in
# the Celery worker the tests start, which inherits the environment); the test of the rule
# turns it off (tests/judges/test_endpoint_rule.py).
os.environ.setdefault("CONCORD_JUDGE_ALLOW_PRIVATE", "1")

import pytest

from tests.builders.users import make_user
from tests.module_data import FAST_HASHER, module_data

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "scholarqa-cs2"


@pytest.fixture(autouse=True)
def _local_llm_allowed(settings):
    """The local LLM server listens on 127.0.0.1 (see the environment set above)."""
    settings.CONCORD_JUDGE_ALLOW_PRIVATE = True


@pytest.fixture(autouse=True)
def _no_recent_reports():
    """Autosaves reuse reports rendered by this process (annotation.rendering.recent_reports);
    a test's reports must not be another test's with the same id."""
    from annotation import rendering

    rendering._recent.clear()


@pytest.fixture(autouse=True)
def _fast_password_hasher(settings):
    """Test users log in many times; the default PBKDF2 cost would dominate the suite."""
    settings.PASSWORD_HASHERS = FAST_HASHER


@pytest.fixture(scope="session")
def scholarqa_dir() -> Path:
    """The released ScholarQA-CS2 data. Skipped locally when absent; a failure under CI."""
    if not SHARED_DATA.is_dir():
        if os.environ.get("CI") == "true":
            pytest.fail(f"../shared/data/scholarqa-cs2 is missing (looked in {SHARED_DATA})")
        pytest.skip("../shared/data/scholarqa-cs2 not available")
    return SHARED_DATA


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

    broker = worker.xdist_broker_url()
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


#: The throttles' clock in tests: 12:30:30.5 today (UTC), well inside its second, minute,
#: hour and day (see _fresh_throttles).
PINNED = (time.time() // 86400) * 86400 + 12 * 3600 + 30 * 60 + 30.5


@pytest.fixture(autouse=True)
def _fresh_throttles(monkeypatch):
    """DRF throttles count requests in the default cache, keyed by user id; ids repeat from
    test to test, so each test starts with empty counts (and no cached report). They count
    by fixed windows (concord/throttles.py): their clock stands still at :data:`PINNED`, so
    no test's requests straddle the end of a window (a test making two requests at 2/min
    would otherwise find a new window now and then)."""
    from django.core.cache import cache, caches
    from django.core.cache.backends.db import DatabaseCache

    from concord.caching import THROTTLES
    from concord.throttles import ScopedRateThrottle
    from metaeval.cache import forget_selections

    monkeypatch.setattr(ScopedRateThrottle, "timer", staticmethod(lambda: PINNED))

    cache.clear()
    forget_selections()  # the report page's loaded rows, kept per process by study version
    if not isinstance(caches[THROTTLES], DatabaseCache):  # its rows go with the test's
        caches[THROTTLES].clear()  # transaction; ids never repeat across flushed databases


DEMO_STUDY = "Demo: deep-research reports"


@pytest.fixture(scope="module")
def demo_module(django_db_setup, django_db_blocker):
    """The demo's study id, the demo loaded once for the whole test module (issue 14): a
    module whose tests only read it (or write inside their own test transaction) requests
    this instead of running ``call_command("demo")`` for every test, about 5 s each
    (tests/module_data.py: rolled back at the module's end)."""
    from django.core.management import call_command

    from annotation.models import Study

    def load():
        call_command("demo", verbosity=0)
        return Study.objects.get(name=DEMO_STUDY).pk

    # DEBUG: the demo loads only with DEBUG on
    yield from module_data(django_db_blocker, load, DEBUG=True)


def pytest_addoption(parser):
    parser.addoption(
        "--database-tests-only",
        action="store_true",
        help="run only the tests whose outcome can depend on the database backend (the "
        "SQLite pass of .ci/run; the PostgreSQL pass before it runs every test)",
    )


#: Fixtures that give a test the database (pytest-django's, and the live server's).
DATABASE_FIXTURES = {"db", "transactional_db", "live_server", "django_db_reset_sequences",
                     "django_db_serialized_rollback"}  # fmt: skip


def uses_the_database(item) -> bool:
    """Whether ``item``'s outcome can depend on the database backend: it has the database
    (a ``django_db`` mark or a database fixture, also through another fixture), or its
    module starts processes that inherit DATABASE_URL (``subprocess``), except the
    packaging tests, whose installed Concord gets a clean environment (its own SQLite), and
    the tests marked ``backend_independent``, each with its reason (a process on a database
    of its own, or a subject, such as the text of a page, that a backend cannot change while
    the same data is read by other tests on both backends)."""
    if item.get_closest_marker("backend_independent"):
        return False
    if item.get_closest_marker("django_db") or DATABASE_FIXTURES & set(
        getattr(item, "fixturenames", ())
    ):
        return True
    module = getattr(item, "module", None)
    return hasattr(module, "subprocess") and not item.get_closest_marker("packaging")


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups into the node ids
def pytest_collection_modifyitems(config, items):
    """Under pytest-xdist (``make test`` runs ``-n auto --dist worksteal``) the tests that
    drive a real Celery worker are marked to go to one xdist worker. With pytest 9 the
    group is not honoured, so what keeps them apart is that each xdist worker has its own
    broker database (``tests.worker.xdist_broker_url``); the mark stays for when it is.

    With ``--database-tests-only`` the tests that cannot depend on the backend (statistics,
    plots, packaging, file checks) are deselected: .ci/run's SQLite pass runs the suite a
    second time for the backend, and these already ran in its PostgreSQL pass.
    """
    for item in items:
        if item.get_closest_marker("celery_worker") or "celery_worker_process" in getattr(
            item, "fixturenames", ()
        ):
            item.add_marker(pytest.mark.xdist_group("celery-worker"))
    for item in items:
        marker = item.get_closest_marker("backend_independent")
        if marker is not None and not (marker.args and str(marker.args[0]).strip()):
            raise pytest.UsageError(f"{item.nodeid}: backend_independent needs its reason")
    if config.getoption("--database-tests-only"):
        kept = [item for item in items if uses_the_database(item)]
        if len(kept) < len(items):
            config.hook.pytest_deselected(items=[i for i in items if not uses_the_database(i)])
            items[:] = kept
