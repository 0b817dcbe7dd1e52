"""No index of their own on five foreign keys that a unique constraint already leads with
(issue 29: every index is written per row of a large import; the scale benchmark's
pairwise import writes 240,000 medals, 80,000 rankings and assignments, 120,000 reports):

    assignment.study     one_assignment_per_task (study, annotator, question, task, setting)
    medal.ranking        one_medal_per_report (ranking, report)
    medalranking.study   one_ranking (study, annotator, question, setting)
    question.study       question_natural_key (study, external_id)
    report.question      report_natural_key (question, system)

Each constraint is unconditional, so its index serves every query by the column (and the
deletions that look rows up by it) as the dropped one did. The indexes are dropped by name,
as in judges 0006, rather than through ``AlterField(db_index=False)``, which on PostgreSQL
also drops and re-adds the foreign keys (re-checking every row) and on SQLite rebuilds the
tables; the fields' state changes alone.
"""

import django.db.models.deletion
from django.db import migrations, models

#: (index, table, column): the names Django gave the foreign keys' indexes.
INDEXES = [
    ("annotation_assignment_study_id_cb626151", "annotation_assignment", "study_id"),
    ("annotation_medal_ranking_id_5317d7b6", "annotation_medal", "ranking_id"),
    ("annotation_medalranking_study_id_8b5e99f8", "annotation_medalranking", "study_id"),
    ("annotation_question_study_id_4c07ac30", "annotation_question", "study_id"),
    ("annotation_report_question_id_5252e461", "annotation_report", "question_id"),
    ("annotation_section_report_id_deb8a270", "annotation_section", "report_id"),
    ("annotation_paragraph_report_id_4296f6c5", "annotation_paragraph", "report_id"),
    ("annotation_citation_report_id_96ea088c", "annotation_citation", "report_id"),
]


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0018_report_content_version"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="assignment",
                    name="study",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="assignments",
                        to="annotation.study",
                    ),
                ),
                migrations.AlterField(
                    model_name="medal",
                    name="ranking",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="medals",
                        to="annotation.medalranking",
                    ),
                ),
                migrations.AlterField(
                    model_name="medalranking",
                    name="study",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="annotation.study",
                    ),
                ),
                migrations.AlterField(
                    model_name="question",
                    name="study",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="questions",
                        to="annotation.study",
                    ),
                ),
                migrations.AlterField(
                    model_name="report",
                    name="question",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="reports",
                        to="annotation.question",
                    ),
                ),
                migrations.AlterField(
                    model_name="section",
                    name="report",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="sections",
                        to="annotation.report",
                    ),
                ),
                migrations.AlterField(
                    model_name="paragraph",
                    name="report",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="paragraphs",
                        to="annotation.report",
                    ),
                ),
                migrations.AlterField(
                    model_name="citation",
                    name="report",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="citations",
                        to="annotation.report",
                    ),
                ),
            ],
            database_operations=[
                migrations.RunSQL(
                    f"DROP INDEX IF EXISTS {name}",
                    reverse_sql=f"CREATE INDEX {name} ON {table} ({column})",
                )
                for name, table, column in INDEXES
            ],
        ),
    ]
