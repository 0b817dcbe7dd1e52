"""A report's citations and a paragraph's citation anchors become JSON on their rows
(issue 29): the Citation and CitationAnchor tables held 24 of the 29 rows a report took
to store, and nothing points at them (judgments name a source by its key). Those JSON
columns and the report's released record are kept as text (``JSONText``).

The rows are copied first, report by report in chunks (ids order: the order they were
inserted, the report's own order), then the tables dropped. Backwards: the rows are
written again from the JSON.
"""

from django.db import migrations, models

import annotation.models.content
import annotation.models.jsontext

CHUNK = 2000


def to_json(apps, schema_editor):
    Report = apps.get_model("annotation", "Report")
    Paragraph = apps.get_model("annotation", "Paragraph")
    Citation = apps.get_model("annotation", "Citation")
    CitationAnchor = apps.get_model("annotation", "CitationAnchor")
    ids = list(Citation.objects.order_by().values_list("report_id", flat=True).distinct())
    for i in range(0, len(ids), CHUNK):
        chunk = ids[i : i + CHUNK]
        stored: dict[int, list] = {rid: [] for rid in chunk}
        for rid, key, title, snippets, url, metadata in (
            Citation.objects.filter(report_id__in=chunk)
            .order_by("id")
            .values_list("report_id", "key", "title", "snippets", "url", "metadata")
        ):
            stored[rid].append(
                {"key": key, "title": title, "snippets": snippets or [], "url": url,
                 "metadata": metadata or {}}
            )  # fmt: skip
        Report.objects.bulk_update(
            [Report(pk=rid, citations=items) for rid, items in stored.items()],
            ["citations"],
            batch_size=500,
        )
    pids = list(CitationAnchor.objects.order_by().values_list("paragraph_id", flat=True).distinct())
    for i in range(0, len(pids), CHUNK):
        chunk = pids[i : i + CHUNK]
        anchors: dict[int, list] = {pid: [] for pid in chunk}
        for pid, start, end, key in CitationAnchor.objects.filter(
            paragraph_id__in=chunk
        ).values_list("paragraph_id", "start", "end", "citation__key"):
            anchors[pid].append([start, end, key])
        Paragraph.objects.bulk_update(
            [Paragraph(pk=pid, anchors=sorted(items)) for pid, items in anchors.items()],
            ["anchors"],
            batch_size=500,
        )


def to_rows(apps, schema_editor):
    Report = apps.get_model("annotation", "Report")
    Paragraph = apps.get_model("annotation", "Paragraph")
    Citation = apps.get_model("annotation", "Citation")
    CitationAnchor = apps.get_model("annotation", "CitationAnchor")
    for report in Report.objects.exclude(citations=[]).iterator(chunk_size=CHUNK):
        rows = Citation.objects.bulk_create(
            [
                Citation(report_id=report.pk, key=c["key"], title=c.get("title", ""),
                         snippets=c.get("snippets", []), url=c.get("url", ""),
                         metadata=c.get("metadata", {}))
                for c in report.citations
            ]
        )  # fmt: skip
        by_key = {c.key: c.pk for c in Citation.objects.filter(report_id=report.pk)}
        CitationAnchor.objects.bulk_create(
            [
                CitationAnchor(paragraph_id=pid, citation_id=by_key[key], start=start, end=end)
                for pid, anchors in Paragraph.objects.filter(report_id=report.pk)
                .exclude(anchors=[])
                .values_list("id", "anchors")
                for start, end, key in anchors
                if key in by_key
            ]
        )
        del rows


def _noop(apps, schema_editor):
    pass


def _original_back_to_jsonb(apps, schema_editor):
    """Backwards, before the field goes back to ``JSONField``: PostgreSQL casts text to
    jsonb only when told how (``USING``); the field's own change then finds it done."""
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(
            'ALTER TABLE "annotation_report" ALTER COLUMN "original" TYPE jsonb '
            'USING "original"::jsonb'
        )


class Migration(migrations.Migration):
    dependencies = [("annotation", "0020_report_original_lz4")]

    operations = [
        # the old rows' reverse names make way for the new fields (state only: no SQL)
        migrations.AlterField(
            model_name="citation",
            name="report",
            field=models.ForeignKey(
                db_index=False, on_delete=models.deletion.CASCADE,
                related_name="citation_rows", to="annotation.report",
            ),
        ),
        migrations.AlterField(
            model_name="citationanchor",
            name="paragraph",
            field=models.ForeignKey(
                on_delete=models.deletion.CASCADE, related_name="anchor_rows",
                to="annotation.paragraph",
            ),
        ),
        migrations.AddField(
            model_name="report",
            name="citations",
            field=annotation.models.jsontext.JSONText(
                blank=True, default=list, validators=[annotation.models.content.check_citations]
            ),
        ),
        migrations.AddField(
            model_name="paragraph",
            name="anchors",
            field=annotation.models.jsontext.JSONText(blank=True, default=list),
        ),
        # the released record as text too (annotation.models.jsontext: no jsonb conversion
        # per import on PostgreSQL, no JSON_VALID on SQLite)
        migrations.AlterField(
            model_name="report",
            name="original",
            field=annotation.models.jsontext.JSONText(blank=True, default=dict),
        ),
        migrations.RunPython(_noop, _original_back_to_jsonb, elidable=True),
        migrations.RunPython(to_json, to_rows, elidable=True),
        migrations.DeleteModel(name="CitationAnchor"),
        migrations.DeleteModel(name="Citation"),
    ]
