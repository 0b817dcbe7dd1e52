"""SQLite's page cache, enlarged for the length of an import.

Why (issue 29): SQLite keeps the pages a transaction changed in its page cache, 2 MB by
default. An import writes far more than that in one transaction (a 6,000-report file is
about 90 MB of rows and indexes), so SQLite spills changed pages to the database file
half-way, each spill writing the page's original to the rollback journal first, and reads
some of them back for the next index insert. With room for the whole transaction the pages
are written once, at the commit: the inserts of 6,000 reports took 0.85 s of CPU instead
of 1.25–1.36 s, and less wall time (``bench/README.md``, report import, Session 10).

The cache is a limit, not an allocation: pages are taken as the import needs them, and
given back when the size is restored after the commit. PostgreSQL has its own shared
buffers: nothing is changed there.
"""

from __future__ import annotations

from contextlib import contextmanager

from django.db import connections

#: The limit during an import, in KiB (SQLite reads a negative ``cache_size`` as KiB): room
#: for the largest file the import accepts (64 MB of JSON writes about 200 MB of pages).
IMPORT_CACHE_KIB = 256 * 1024


@contextmanager
def import_page_cache(using: str = "default"):
    """SQLite's ``cache_size`` raised to :data:`IMPORT_CACHE_KIB` for the block, then set
    back to what it was; nothing on another database."""
    connection = connections[using]
    if connection.vendor != "sqlite":
        yield
        return
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA cache_size")
        previous = cursor.fetchone()[0]
        cursor.execute(f"PRAGMA cache_size = {-IMPORT_CACHE_KIB}")
    try:
        yield
    finally:
        if connection.connection is not None:  # not closed by the block
            with connection.cursor() as cursor:
                cursor.execute(f"PRAGMA cache_size = {int(previous)}")
