"""JudgeScore: no index of its own on ``judge``, which the unique (judge, report, metric)
leads with (issue 29: 720,000 judge scores in the scale benchmark's import, each index
written per row). Dropped by name, as in 0006 and for the same reason (the foreign key is
not re-created); the field's state changes alone.
"""

import django.db.models.deletion
from django.db import migrations, models

INDEX = "judges_judgescore_judge_id_261e5aa4"


class Migration(migrations.Migration):
    dependencies = [
        ("judges", "0006_judgecoverage_fewer_indexes"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="judgescore",
                    name="judge",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="scores",
                        to="judges.judge",
                    ),
                ),
            ],
            database_operations=[
                migrations.RunSQL(
                    f"DROP INDEX IF EXISTS {INDEX}",
                    reverse_sql=f"CREATE INDEX {INDEX} ON judges_judgescore (judge_id)",
                ),
            ],
        ),
    ]
