"""The report import's write paths of issue 29: SQLite's page cache during an import, the
structure rows written as tuples, a new report's original in its INSERT."""

import json

import pytest
from django.db import connection

from annotation.importers import run
from annotation.importers.common import insert_whole
from annotation.importers.page_cache import IMPORT_CACHE_KIB, import_page_cache
from annotation.models import Paragraph, Report
from tests.builders.content import make_question, make_study

pytestmark = pytest.mark.django_db


def _cache_size() -> int:
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA cache_size")
        return cursor.fetchone()[0]


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's page cache")
def test_page_cache_is_enlarged_for_the_block_and_restored_after():
    before = _cache_size()
    with import_page_cache():
        assert _cache_size() == -IMPORT_CACHE_KIB
    assert _cache_size() == before


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's page cache")
def test_page_cache_is_restored_when_the_import_is_refused():
    before = _cache_size()
    with pytest.raises(ValueError), import_page_cache():
        raise ValueError("refused")
    assert _cache_size() == before


def _paragraph_rows(report_id: int) -> list[tuple]:
    return list(
        Paragraph.objects.filter(report_id=report_id)
        .order_by("number")
        .values_list("section_id", "number", "text", "anchors")
    )


def test_insert_whole_writes_tuples_and_fills_defaults_for_missing_fields():
    """On paragraphs, the structure table with a JSON column (their anchors, issue 29)."""
    question = make_question(make_study(), n_reports=1)
    report = question.reports.get()
    section = report.sections.first()
    report.paragraphs.all().delete()
    every = ("report", "section", "number", "text", "anchors")
    # every column of a new row: the tuples go in as they are (no defaults to fill in)
    assert set(every) == {f.name for f in Paragraph._meta.concrete_fields if not f.primary_key}
    insert_whole(Paragraph, every, [(report.pk, section.pk, 1, "See [1].", [[4, 7, "1"]])])
    # fields a row lacks get what insert_new gives them (the model's defaults)
    insert_whole(
        Paragraph,
        ("report", "section", "number", "text"),
        [(report.pk, section.pk, 2, "No source.")],
    )
    assert _paragraph_rows(report.pk) == [
        (section.pk, 1, "See [1].", [[4, 7, "1"]]),
        (section.pk, 2, "No source.", []),
    ]


def test_a_new_report_is_stored_with_its_original_and_a_reimport_keeps_it(tmp_path):
    record = {"question": "Why cite?", "response": {"sections": [
        {"title": "A", "text": "One claim [1].", "citations": [
            {"id": "1", "title": "Paper", "snippets": ["x"], "metadata": None}]}]}}  # fmt: skip
    path = tmp_path / "reports.json"
    path.write_text(json.dumps([record]))
    run("reports", path, study="S", format="scholarqa", system="sys")
    original = Report.objects.get().original
    layout = {
        "lines": False,
        "indent": None,
        "newline": "\n",
        "final_newline": False,
        "ascii": True,
    }  # the file's, as written above: the export writes it so again
    assert original["released"] == [
        {"format": "scholarqa", "record": 1, "data": record, "layout": layout}
    ]
    assert original["citations"][0]["key"] == "1"
    again = run("reports", path, study="S", format="scholarqa", system="sys")
    assert again.unchanged["Report"] == 1 and "Report" not in again.updated
    assert Report.objects.get().original == original
