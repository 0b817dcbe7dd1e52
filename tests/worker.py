"""Starting real Celery workers on the test database: shared by the ``celery_worker_process``
fixture (``tests/conftest.py``) and ``bench/judge_throughput.py``, so that the benchmark
measures workers started exactly as the tests start them.

A worker is a ``celery -A concord worker --pool=solo`` process with ``DATABASE_URL`` set to
the database the caller's connection uses (the test database) and ``CELERY_BROKER_URL`` to
the broker; gossip, mingle and heartbeat are off (faster start, nothing to wait for).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[1]


def xdist_broker_url() -> str | None:
    """``CONCORD_TEST_BROKER_URL``, on a Redis database of this pytest-xdist worker's own.

    Tests that drive a real Celery worker flush the broker database and ping "every worker";
    two xdist workers sharing one database would flush each other's queues and take each
    other's tasks (whose runs live in the other worker's test database). xdist's
    ``--dist loadgroup`` cannot keep them on one worker with pytest 9 (its group marks are
    not honoured), so each xdist worker gets its own database instead: gw0 the one named,
    gw1 the one below it, and so on (Redis has 16).
    """
    url = os.environ.get("CONCORD_TEST_BROKER_URL")
    name = os.environ.get("PYTEST_XDIST_WORKER", "")
    if not url or not name.startswith("gw"):
        return url
    parts = urlsplit(url)
    base = int(parts.path.strip("/") or 0)
    return urlunsplit(parts._replace(path=f"/{(base - int(name[2:])) % 16}"))


class WorkerError(RuntimeError):
    """A worker exited or did not answer in time."""


def database_url(connection) -> str:
    """The URL of the database ``connection`` uses (the test database inside a test)."""
    db = connection.settings_dict
    return f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


def start_worker(connection, broker: str, *, name: str | None = None, **popen) -> subprocess.Popen:
    """One worker process on ``connection``'s database and ``broker``."""
    argv = [sys.executable, "-m", "celery", "-A", "concord", "worker", "--pool=solo",
            "--concurrency=1", "--loglevel=warning", "--without-gossip", "--without-mingle",
            "--without-heartbeat"]  # fmt: skip
    if name:
        argv += ["-n", name]
    env = {**os.environ, "DATABASE_URL": database_url(connection), "CELERY_BROKER_URL": broker}
    return subprocess.Popen(argv, env=env, cwd=ROOT, **popen)


def wait_until_answering(app, procs: list[subprocess.Popen], timeout: float = 60.0) -> None:
    """Until every worker answers a ping; WorkerError if one exits or time runs out."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if len(app.control.ping(timeout=1.0) or []) >= len(procs):
            return
        for p in procs:
            if p.poll() is not None:
                raise WorkerError(f"the Celery worker exited with {p.returncode}")
    for p in procs:
        p.kill()
    raise WorkerError(f"the Celery worker did not answer within {timeout:.0f} s")


def stop(procs: list[subprocess.Popen], timeout: float = 20.0) -> None:
    """SIGTERM (a warm shutdown), then SIGKILL whatever is still there after ``timeout``."""
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    for p in procs:
        try:
            p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.kill()
