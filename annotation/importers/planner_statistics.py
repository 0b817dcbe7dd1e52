"""The query planner's statistics of the tables an import wrote, refreshed when it ends.

Why (issue 29): a database plans each query from its tables' statistics (row counts, value
distributions). PostgreSQL's autovacuum refreshes them only after enough rows changed and
after a delay, so right after a study's first import the planner still thinks the tables
are empty: on a fresh PostgreSQL, after a 120,000-report import, the task page took 256 ms
until a manual ``ANALYZE`` brought it to 96 ms (the citation-anchor query planned a
parallel scan of 1.6 M rows). So every import (:func:`annotation.importers.run`: the
commands, the import pages, the API) ends with an ``ANALYZE`` of exactly the tables it
wrote, once its transaction has committed (a dry run, rolled back, analyses nothing).

The tables are those named by the writes in the block: every ``INSERT``, ``UPDATE`` and
``DELETE`` through Django's cursor (seen by an execute wrapper), and the ``COPY`` of
:func:`~annotation.importers.common.insert_rows` / ``update_rows``, which bypasses the
wrappers and says so itself (:func:`note_written`).

SQLite keeps no statistics until ``ANALYZE`` writes ``sqlite_stat1``; it is run there too,
with ``PRAGMA analysis_limit`` so that it reads a bounded sample of each index instead of
the whole table (SQLite's own advice for ``ANALYZE`` on large databases). Measured in
``bench/README.md`` (issue 29, report import).
"""

from __future__ import annotations

import logging
import re
from contextlib import contextmanager
from contextvars import ContextVar

from django.db import DatabaseError, connections, transaction

logger = logging.getLogger("concord.imports")

#: Rows of each index SQLite's ANALYZE reads (``PRAGMA analysis_limit``; SQLite suggests
#: 100 to 1000): a few milliseconds per table, whatever its size.
SQLITE_ANALYSIS_LIMIT = 1000
_WRITE = re.compile(r'\s*(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+"?(\w+)"?', re.I)
_written: ContextVar[set[str] | None] = ContextVar("written_tables", default=None)


def note_written(table: str) -> None:
    """``table`` was written in the current :func:`refreshed_after` block (if any)."""
    tables = _written.get()
    if tables is not None:
        tables.add(table)


@contextmanager
def refreshed_after(using: str = "default"):
    """The statistics of every table written in the block are refreshed once the
    transaction around it commits (at once without one); nothing when it rolls back or the
    block raises. Yields the set of table names, filled as the block writes."""
    tables: set[str] = set()
    token = _written.set(tables)

    def noted(execute, sql, params, many, context):
        m = _WRITE.match(sql)
        if m:
            tables.add(m.group(1))
        return execute(sql, params, many, context)

    try:
        with connections[using].execute_wrapper(noted):
            yield tables
    finally:
        _written.reset(token)
    if tables:
        transaction.on_commit(lambda: analyse(sorted(tables), using), using=using)


def analyse(tables: list[str], using: str = "default") -> None:
    """``ANALYZE`` ``tables`` (PostgreSQL: one statement; SQLite: one per table, sampled).
    A failure is logged, never raised: the import it follows is committed already."""
    from django.apps import apps

    known = {m._meta.db_table for m in apps.get_models(include_auto_created=True)}
    tables = [t for t in tables if t in known]  # never a temporary table of a write
    if not tables:
        return
    connection = connections[using]
    quote = connection.ops.quote_name
    try:
        with transaction.atomic(using=using), connection.cursor() as cursor:  # one commit
            if connection.vendor == "postgresql":
                cursor.execute("ANALYZE " + ", ".join(quote(t) for t in tables))
            elif connection.vendor == "sqlite":
                cursor.execute("PRAGMA analysis_limit")
                previous = cursor.fetchone()[0]
                cursor.execute(f"PRAGMA analysis_limit = {SQLITE_ANALYSIS_LIMIT}")
                for table in tables:
                    cursor.execute(f"ANALYZE {quote(table)}")
                cursor.execute(f"PRAGMA analysis_limit = {int(previous)}")
    except DatabaseError as error:
        logger.warning(
            "statistics not refreshed",
            extra={"event": "analyze_failed", "tables": tables, "error": str(error)},
        )
