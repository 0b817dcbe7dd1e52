"""Real database outages for tests: the driver itself raises, nothing is mocked.

:func:`database_outage` points the default connection at a place where no database can be
reached and drops the open connection; every thread (the test client's, the live
server's) then fails to connect with the driver's own error, which Django raises as
``OperationalError``:

* PostgreSQL: a loopback port nobody listens on (connection refused);
* SQLite (the in-memory test database): a file in a directory that does not exist
  ("unable to open database file"). A second connection keeps the in-memory database
  alive meanwhile, so the data is still there when the outage ends.

:func:`kill_backend` terminates the current PostgreSQL backend from another session, as a
server crash or an administrator would, so a query in the middle of a transaction fails.
"""

from __future__ import annotations

import socket
import sqlite3
import tempfile
from contextlib import contextmanager
from pathlib import Path

from django.db import connection, connections


def _dead_port() -> int:
    with socket.socket() as s:  # bound then closed: connecting to it is refused
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def database_outage():
    settings_dict = connections.settings["default"]
    assert settings_dict is connection.settings_dict, "threads must share the settings"
    saved = dict(settings_dict)
    keeper = None
    missing = Path(tempfile.gettempdir()) / "concord-no-such-dir" / "db.sqlite3"
    if connection.vendor == "sqlite":
        if connection.is_in_memory_db():
            keeper = sqlite3.connect(settings_dict["NAME"], uri=True)
        settings_dict["NAME"] = str(missing)
    else:
        settings_dict.update(HOST="127.0.0.1", PORT=str(_dead_port()))
    connection.close()  # now really closed, in-memory SQLite included (its NAME changed)
    try:
        yield
    finally:
        settings_dict.clear()
        settings_dict.update(saved)
        connection.close()
        if keeper is not None:
            connection.ensure_connection()  # back on the kept in-memory database
            keeper.close()


def kill_backend() -> None:
    """Terminate this thread's PostgreSQL backend from a second session."""
    import psycopg

    pid = connection.connection.info.backend_pid
    db = connection.settings_dict
    with psycopg.connect(
        host=db["HOST"] or "127.0.0.1",
        port=db["PORT"] or 5432,
        user=db["USER"],
        password=db["PASSWORD"] or None,
        dbname=db["NAME"],
        autocommit=True,
    ) as other:
        other.execute("SELECT pg_terminate_backend(%s)", [pid])
