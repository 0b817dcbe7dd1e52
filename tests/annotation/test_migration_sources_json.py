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
def old_apps(transactional_db):
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
