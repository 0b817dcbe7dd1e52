"""``JudgeScore.released`` as text (``annotation.models.jsontext.JSONText``): PostgreSQL's
jsonb reordered a kept judge record's keys, and the export writes the record back in the
order it was released. Rows stored before keep jsonb's order (it is all they have)."""

import annotation.models.jsontext
from django.db import migrations


def _noop(apps, schema_editor):
    pass


def _released_back_to_jsonb(apps, schema_editor):
    """Backwards, before the field goes back to ``JSONField``: PostgreSQL casts text to
    jsonb only when told how (``USING``); the field's own change then finds it done."""
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(
            'ALTER TABLE "judges_judgescore" ALTER COLUMN "released" TYPE jsonb '
            'USING "released"::jsonb'
        )


class Migration(migrations.Migration):
    dependencies = [("judges", "0008_judgescore_released")]

    operations = [
        migrations.AlterField(
            model_name="judgescore",
            name="released",
            field=annotation.models.jsontext.JSONText(blank=True, null=True),
        ),
        migrations.RunPython(_noop, _released_back_to_jsonb, elidable=True),
    ]
