"""JudgeCoverage: no index of its own on ``judge`` (the unique (judge, report, item) leads
with it) and ``run`` indexed only where set (issue 16, the models' docstring says why).

The indexes are dropped by name rather than through ``AlterField(db_index=False)``, which
on PostgreSQL also drops and re-adds the foreign keys (re-checking every row of a table
that holds millions) and on SQLite rebuilds the table; the fields' state changes alone.
"""

import django.db.models.deletion
from django.db import migrations, models

JUDGE_INDEX = "judges_judgecoverage_judge_id_c05cc492"
RUN_INDEX = "judges_judgecoverage_run_id_235c7553"
TABLE = "judges_judgecoverage"


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0014_deepscholar_tasks_and_units"),
        ("judges", "0005_deepscholar_live_kinds"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="judgecoverage",
                    name="judge",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="coverage",
                        to="judges.judge",
                    ),
                ),
                migrations.AlterField(
                    model_name="judgecoverage",
                    name="run",
                    field=models.ForeignKey(
                        blank=True,
                        db_index=False,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to="judges.judgerun",
                    ),
                ),
            ],
            database_operations=[
                migrations.RunSQL(
                    f"DROP INDEX IF EXISTS {name}",
                    reverse_sql=f"CREATE INDEX {name} ON {TABLE} ({column})",
                )
                for name, column in ((JUDGE_INDEX, "judge_id"), (RUN_INDEX, "run_id"))
            ],
        ),
        migrations.AddIndex(
            model_name="judgecoverage",
            index=models.Index(
                condition=models.Q(("run__isnull", False)), fields=["run"], name="judgecoverage_run"
            ),
        ),
    ]
