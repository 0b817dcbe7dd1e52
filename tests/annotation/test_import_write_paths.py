"""The report import's write paths of issue 29: SQLite's page cache during an import, the
structure rows written as tuples, a new report's original in its INSERT."""

import json

import pytest
from django.db import connection

from annotation.importers import run
from annotation.importers.common import insert_whole
from annotation.importers.page_cache import IMPORT_CACHE_KIB, import_page_cache
from annotation.models import Citation, Report
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


def _citation_rows(report_id: int) -> list[tuple]:
    return list(
        Citation.objects.filter(report_id=report_id)
        .order_by("key")
        .values_list("key", "title", "snippets", "url", "metadata")
    )


def test_insert_whole_writes_tuples_and_fills_defaults_for_missing_fields():
    question = make_question(make_study(), n_reports=1)
    report = question.reports.get()
    report.citations.all().delete()
    every = ("report", "key", "title", "snippets", "url", "metadata")
    insert_whole(Citation, every, [(report.pk, "1", "T", ["s"], "https://a.example", {"x": 1})])
    # fields a row lacks get what insert_new gives them (the model's defaults)
    insert_whole(Citation, ("report", "key"), [(report.pk, "2")])
    assert _citation_rows(report.pk) == [
        ("1", "T", ["s"], "https://a.example", {"x": 1}),
        ("2", "", [], "", {}),
    ]


def test_a_new_report_is_stored_with_its_original_and_a_reimport_keeps_it(tmp_path):
    record = {"question": "Why cite?", "response": {"sections": [
        {"title": "A", "text": "One claim [1].", "citations": [
            {"id": "1", "title": "Paper", "snippets": ["x"], "metadata": None}]}]}}  # fmt: skip
    path = tmp_path / "reports.json"
    path.write_text(json.dumps([record]))
    run("reports", path, study="S", format="scholarqa", system="sys")
    original = Report.objects.get().original
    assert original["released"] == [{"format": "scholarqa", "record": 1, "data": record}]
    assert original["citations"][0]["key"] == "1"
    again = run("reports", path, study="S", format="scholarqa", system="sys")
    assert again.unchanged["Report"] == 1 and "Report" not in again.updated
    assert Report.objects.get().original == original
