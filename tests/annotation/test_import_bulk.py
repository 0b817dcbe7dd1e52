"""A report import of any size: the same statements for 10 reports as for 100 (rows go in
bulk), and the planner's statistics of the tables it wrote refreshed once it commits
(issue 29)."""

import json
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotation.importers import run
from annotation.importers.common import _json_text
from annotation.models import Paragraph, Question, Report, Section
from tests.builders.sources import anchors, citations

#: The tables a report import fills (sources and anchors are JSON on the report and
#: paragraph rows, issue 29).
FILLED = [Question, Report, Section, Paragraph]


def reports_file(tmp_path, n: int):
    """``n`` ScholarQA-CS2 reports of two sections, three numbered and one author-year
    citation each."""
    records = []
    for q in range(n):
        sections = [
            {"title": "Background", "text": f"Question {q} was studied [1] and again [2].\n\n"
             "Later work disagrees [3].",
             "citations": [{"id": str(k), "title": f"Paper {k} of {q}", "snippets": [f"s{k}"]}
                           for k in (1, 2, 3)]},
            {"title": "Findings", "text": f"It scales (Rego et al., 2022) in case {q}.",
             "citations": [{"id": "Rego et al., 2022", "title": "Scaling", "snippets": []}]},
        ]  # fmt: skip
        records.append(
            {"question": f"How does method {q} scale?", "response": {"sections": sections}}
        )
    path = tmp_path / f"reports_{n}.json"
    path.write_text(json.dumps(records))
    return path


def statements(tmp_path, n: int) -> tuple[int, int]:
    """(INSERT statements, all statements) of importing ``n`` reports into a new study."""
    path = reports_file(tmp_path, n)
    with CaptureQueriesContext(connection) as ctx:
        rep = run("reports", path, study=f"bulk-{n}", format="scholarqa", system="sqa")
    assert rep.created["Report"] == n and rep.created["CitationAnchor"] == 4 * n
    assert len(citations(question__study__name=f"bulk-{n}")) == 4 * n
    assert len(anchors(report__question__study__name=f"bulk-{n}")) == 4 * n
    sql = [q["sql"] for q in ctx.captured_queries]
    # SQLite's executemany is logged once as "N times: INSERT …"; PostgreSQL COPYs the
    # big tables (not an execute: not captured), so only the ORM's few INSERTs show
    inserts = [s for s in sql if re.match(r"(?:\d+ times: )?INSERT\b", s)]
    return len(inserts), len(sql)


@pytest.mark.django_db
def test_statements_of_a_report_import_do_not_grow_with_its_reports(tmp_path):
    small, large = statements(tmp_path, 10), statements(tmp_path, 100)
    assert small == large
    if connection.vendor == "sqlite":
        assert small[0] >= len(FILLED)  # each table's rows in one statement, not one per row


def planner_rows(model) -> float | None:
    """The row count the planner's statistics hold for ``model``'s table (None: none)."""
    table = model._meta.db_table
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SELECT reltuples FROM pg_class WHERE relname = %s", [table])
            value = cursor.fetchone()[0]
            return None if value < 0 else value  # -1: never analysed (PostgreSQL 14+)
        cursor.execute("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_stat1'")
        if cursor.fetchone() is None:
            return None
        cursor.execute("SELECT stat FROM sqlite_stat1 WHERE tbl = %s", [table])
        row = cursor.fetchone()
        return None if row is None else float(row[0].split()[0])


@pytest.mark.django_db
def test_an_import_ends_with_the_statistics_of_the_tables_it_wrote(
    tmp_path, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        run("reports", reports_file(tmp_path, 12), study="S", format="scholarqa", system="sqa")
    for model in FILLED:
        assert planner_rows(model) == model.objects.count(), model.__name__


@pytest.mark.django_db
def test_a_dry_run_analyses_nothing(tmp_path, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks() as callbacks:
        run("reports", reports_file(tmp_path, 3), study="S", format="scholarqa", system="sqa",
            dry_run=True)  # fmt: skip
    assert callbacks == [] and not Report.objects.exists()


@pytest.mark.parametrize(
    "value",
    [[], {}, ["a"], ['é\u2028"x\n\\', "b"], [1, "a"], ["a", None], {"a": [1]}, "x", 3, [[]]],
)
def test_json_columns_get_the_value_json_dumps_gives(value):
    """The import writes JSON values without Django's per-value path (issue 29): text that
    reads back as the field's ``json.dumps`` does (orjson's spacing and escaping differ)."""
    assert json.loads(_json_text(value)) == json.loads(json.dumps(value))
