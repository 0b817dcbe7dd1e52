"""What a large import does once its rows are written (issue 29): fresh planner statistics.

A PostgreSQL table filled by one import keeps the statistics it had before (none on a fresh
database) until autovacuum gets to it, so the next pages plan their queries for an empty
table: after the ResearchQA-scale import the task page took 256 ms until a manual
``ANALYZE`` brought it to 96 ms (a parallel scan of 1.6 M rows planned for a citation
anchor). :func:`analyze_filled` runs ``ANALYZE`` on the tables an import filled, once its
transaction commits (a dry run or a refused import rolls back and analyzes nothing).
SQLite's planner keeps no statistics unless asked, and picks the indexes these queries
need without them: nothing to do there.
"""

from __future__ import annotations

from django.db import connection, transaction

#: Fewer new rows than this leave the table to autovacuum: ``ANALYZE`` samples 30,000 rows
#: of a table (about 0.1–0.3 s for a table of millions), more than a small import costs.
MIN_ROWS = 10_000


def analyze_filled(rep, models, *, min_rows: int = MIN_ROWS) -> list[str]:
    """``ANALYZE`` after the commit the tables of ``models`` into which the import (its
    :class:`~annotation.importers.base.ImportReport` ``rep``, counted by model name)
    inserted at least ``min_rows`` rows. Returns the tables (none but on PostgreSQL)."""
    if connection.vendor != "postgresql" or rep.dry_run:
        return []
    tables = sorted(
        {m._meta.db_table for m in models if rep.created.get(m.__name__, 0) >= min_rows}
    )
    if not tables:
        return []
    quote = connection.ops.quote_name
    sql = "ANALYZE " + ", ".join(quote(t) for t in tables)

    def analyze() -> None:
        with connection.cursor() as cursor:
            cursor.execute(sql)

    transaction.on_commit(analyze)
    return tables
