"""Requests that arrive at once, for tests of what must hold under concurrency: threads
released together, each with its own database connection (as each web process has), on a
database whose locks behave as a server's do. Nothing is mocked.

SQLite's test database lives in memory, shared by the connections through SQLite's shared
cache, whose table locks fail at once ("database table is locked") where a database file's
locks wait (the busy timeout) or fail as a server's would. :func:`database_file` copies the
test database into a file and points every connection there for the duration; what the
threads write stays in the file, so it suits a transactional test
(``transactional_db``), whose data is committed before the copy. On PostgreSQL it does
nothing.
"""

from __future__ import annotations

import sqlite3
import tempfile
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

from django.db import connection, connections


@contextmanager
def database_file():
    settings_dict = connections.settings["default"]
    assert settings_dict is connection.settings_dict, "threads must share the settings"
    if connection.vendor != "sqlite" or not connection.is_in_memory_db():
        yield
        return
    memory = settings_dict["NAME"]
    keeper = sqlite3.connect(memory, uri=True)  # the in-memory database lives while it is open
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "db.sqlite3"
        with sqlite3.connect(path) as copy:
            keeper.backup(copy)
        copy.close()
        settings_dict["NAME"] = str(path)
        connection.close()  # really closed: it is no longer the in-memory database's
        try:
            yield
        finally:
            connection.close()  # the file's, while NAME still says so
            settings_dict["NAME"] = memory
            connection.ensure_connection()
            keeper.close()


def at_once(count: int, work: Callable[[int], object], timeout: float = 60) -> list:
    """``work(0)`` … ``work(count - 1)``, each in its own thread, all released together;
    their results in that order. Each thread closes its database connections."""
    start = threading.Barrier(count, timeout=timeout)

    def run(index: int):
        try:
            start.wait()
            return work(index)
        finally:
            connections.close_all()

    with ThreadPoolExecutor(count) as pool:
        return list(pool.map(run, range(count), timeout=timeout))
