"""Report.original compressed with lz4 on PostgreSQL, where the server has it.

Why (issue 29): a report's original (the record as released and its text as written, about
10 KB of JSON) is stored out of line and compressed. With PostgreSQL's default (pglz) that
compression was most of the server's CPU for the report rows: inserting 15,000 originals
took about 8 s with pglz and 3 s with lz4, on a loaded machine (bench/README.md, report
import, Session 10). The values are the same; only how the server compresses them on disk
changes, for the values written from now on. A server built without lz4 keeps pglz; SQLite
has nothing to change.
"""

from django.db import migrations


def _lz4_available(cursor) -> bool:
    cursor.execute("SELECT enumvals FROM pg_settings WHERE name = 'default_toast_compression'")
    row = cursor.fetchone()
    return bool(row and row[0] and "lz4" in row[0])


def set_compression(method: str):
    def run(apps, schema_editor):
        connection = schema_editor.connection
        if connection.vendor != "postgresql":
            return
        with connection.cursor() as cursor:
            if method == "lz4" and not _lz4_available(cursor):
                return
            cursor.execute(
                f'ALTER TABLE "annotation_report" ALTER COLUMN "original" SET COMPRESSION {method}'
            )

    return run


class Migration(migrations.Migration):
    dependencies = [("annotation", "0019_fewer_foreign_key_indexes")]

    operations = [migrations.RunPython(set_compression("lz4"), set_compression("pglz"))]
