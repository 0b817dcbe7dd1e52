"""PostgreSQL keeps no planner statistics of the report columns no query filters or joins
on: a report's released record and sources, a paragraph's text and anchors, a section's
table (issue 29). ``ANALYZE`` after an import read a sample of them all, detoasting and
decompressing ~10 KB of JSON per sampled report: 0.45 s of server CPU per 15,000 reports,
for statistics no plan uses. ``SET STATISTICS 0`` leaves those columns out; the ids and
foreign keys the planner needs are analysed as before. Other databases: nothing to do."""

from django.db import migrations

COLUMNS = [
    ("annotation_report", "original"),
    ("annotation_report", "citations"),
    ("annotation_paragraph", "text"),
    ("annotation_paragraph", "anchors"),
    ("annotation_section", "table"),
]


def _set(target: int):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor != "postgresql":
            return
        quote = schema_editor.quote_name
        for table, column in COLUMNS:
            schema_editor.execute(
                f"ALTER TABLE {quote(table)} ALTER COLUMN {quote(column)} SET STATISTICS {target}"
            )

    return run


class Migration(migrations.Migration):
    dependencies = [("annotation", "0021_citations_and_anchors_as_json")]

    operations = [migrations.RunPython(_set(0), _set(-1), elidable=True)]
