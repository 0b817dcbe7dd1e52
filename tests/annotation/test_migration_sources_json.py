"""Migration 0021 moves a report's sources and its paragraphs' anchors from their tables
into JSON on the report and paragraph rows (issue 29), and back: nothing is lost either way
(order of the sources, every anchor with its key)."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("annotation", "0020_report_original_lz4")]
AFTER = [("annotation", "0021_citations_and_anchors_as_json")]


def _migrate(target):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(target)
    executor.loader.build_graph()
    return executor.loader.project_state(target).apps


@pytest.fixture
def old_apps(request, transactional_db):
    if request.config.getoption("nomigrations", False):
        pytest.skip("the test database was made from the models (--nomigrations): no "
                    "migration to run; the PostgreSQL pass migrates")  # fmt: skip
    apps = _migrate(BEFORE)
    yield apps
    _migrate(_latest())


def _latest():
    executor = MigrationExecutor(connection)
    return executor.loader.graph.leaf_nodes()


def _old_report(apps):
    Study = apps.get_model("annotation", "Study")
    Question = apps.get_model("annotation", "Question")
    System = apps.get_model("annotation", "System")
    Report = apps.get_model("annotation", "Report")
    Section = apps.get_model("annotation", "Section")
    Paragraph = apps.get_model("annotation", "Paragraph")
    Citation = apps.get_model("annotation", "Citation")
    CitationAnchor = apps.get_model("annotation", "CitationAnchor")
    study = Study.objects.create(name="Migrated")
    question = Question.objects.create(study=study, external_id="q1", text="Why?")
    report = Report.objects.create(
        question=question, system=System.objects.create(study=study, name="S"), public_id="pub1"
    )
    section = Section.objects.create(report=report, position=1, title="One")
    first = Paragraph.objects.create(report=report, section=section, number=1, text="A [2] b [1].")
    second = Paragraph.objects.create(report=report, section=section, number=2, text="None.")
    two = Citation.objects.create(
        report=report, key="2", title="Two", snippets=["s"], url="https://x.example",
        metadata={"m": 1},
    )  # fmt: skip
    one = Citation.objects.create(report=report, key="1")
    CitationAnchor.objects.create(paragraph=first, citation=one, start=8, end=11)
    CitationAnchor.objects.create(paragraph=first, citation=two, start=2, end=5)
    return report.pk, first.pk, second.pk


def test_rows_become_json_and_come_back(old_apps):
    report_id, first, second = _old_report(old_apps)

    new_apps = _migrate(AFTER)
    Report = new_apps.get_model("annotation", "Report")
    Paragraph = new_apps.get_model("annotation", "Paragraph")
    assert Report.objects.get(pk=report_id).citations == [
        {"key": "2", "title": "Two", "snippets": ["s"], "url": "https://x.example",
         "metadata": {"m": 1}},
        {"key": "1", "title": "", "snippets": [], "url": "", "metadata": {}},
    ]  # fmt: skip
    assert Paragraph.objects.get(pk=first).anchors == [[2, 5, "2"], [8, 11, "1"]]
    assert Paragraph.objects.get(pk=second).anchors == []

    back = _migrate(BEFORE)
    Citation = back.get_model("annotation", "Citation")
    CitationAnchor = back.get_model("annotation", "CitationAnchor")
    assert sorted(Citation.objects.values_list("key", "title", "snippets", "url", "metadata")) == [
        ("1", "", [], "", {}),
        ("2", "Two", ["s"], "https://x.example", {"m": 1}),
    ]
    assert sorted(
        CitationAnchor.objects.values_list("paragraph_id", "start", "end", "citation__key")
    ) == [(first, 2, 5, "2"), (first, 8, 11, "1")]


@pytest.mark.django_db
def test_report_texts_are_text_lz4_and_without_statistics():
    """PostgreSQL: the released record, sources and anchors are text columns (no jsonb
    conversion per import), the record and sources lz4-compressed where the server has it,
    and none of the report texts analysed (migration 0022)."""
    if connection.vendor != "postgresql":
        pytest.skip("column storage options are PostgreSQL's")
    with connection.cursor() as cursor:
        cursor.execute("SELECT enumvals FROM pg_settings WHERE name = 'default_toast_compression'")
        lz4 = "lz4" in (cursor.fetchone()[0] or [])
        cursor.execute(
            "SELECT attrelid::regclass::text, attname, atttypid::regtype::text, attcompression,"
            " attstattarget FROM pg_attribute WHERE attrelid IN ('annotation_report'::regclass,"
            " 'annotation_paragraph'::regclass, 'annotation_section'::regclass)"
            " AND attname IN ('original', 'citations', 'anchors', 'text', 'table')"
        )
        found = {(t, c): (kind, comp, stats) for t, c, kind, comp, stats in cursor.fetchall()}
    assert {k: v[0] for k, v in found.items()} == {
        ("annotation_report", "original"): "text",
        ("annotation_report", "citations"): "text",
        ("annotation_paragraph", "anchors"): "text",
        ("annotation_paragraph", "text"): "text",
        ("annotation_section", "table"): "jsonb",
    }
    assert all(stats == 0 for _, _, stats in found.values())
    if lz4:
        assert found[("annotation_report", "original")][1] == "l"
        assert found[("annotation_report", "citations")][1] == "l"
