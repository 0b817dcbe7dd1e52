"""PostgreSQL keeps no planner statistics of the report columns no query filters or joins
on: a report's released record and sources, a paragraph's text and anchors, a section's
table (issue 29). ``ANALYZE`` after an import read a sample of them all, detoasting and
decompressing ~10 KB of JSON per sampled report: 0.45 s of server CPU per 15,000 reports,
for statistics no plan uses. ``SET STATISTICS 0`` leaves those columns out; the ids and
foreign keys the planner needs are analysed as before.

The report's record and sources, text since 0021, are compressed with lz4 again where the
server has it (0020's reason: PostgreSQL's change of the column's type reset it to pglz).
Other databases: nothing to do."""

from django.db import migrations

LZ4 = [("annotation_report", "original"), ("annotation_report", "citations")]

COLUMNS = [
    ("annotation_report", "original"),
    ("annotation_report", "citations"),
    ("annotation_paragraph", "text"),
    ("annotation_paragraph", "anchors"),
    ("annotation_section", "table"),
]


def _set(target: int, compression: str):
    def run(apps, schema_editor):
        connection = schema_editor.connection
        if connection.vendor != "postgresql":
            return
        quote = schema_editor.quote_name
        for table, column in COLUMNS:
            schema_editor.execute(
                f"ALTER TABLE {quote(table)} ALTER COLUMN {quote(column)} SET STATISTICS {target}"
            )
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT enumvals FROM pg_settings WHERE name = 'default_toast_compression'"
            )
            row = cursor.fetchone()
        if compression == "lz4" and not (row and row[0] and "lz4" in row[0]):
            return
        for table, column in LZ4:
            schema_editor.execute(
                f"ALTER TABLE {quote(table)} ALTER COLUMN {quote(column)} "
                f"SET COMPRESSION {compression}"
            )

    return run


class Migration(migrations.Migration):
    dependencies = [("annotation", "0021_citations_and_anchors_as_json")]

    operations = [migrations.RunPython(_set(0, "lz4"), _set(-1, "pglz"), elidable=True)]
