"""The report reader: sanitized, blinded, citations of every kind."""

import pytest

from annotation.models import Citation, CitationAnchor, Paragraph, Report, Section, System
from annotation.rendering import render_reports, text_to_html
from tests.builders.content import make_question, make_study

pytestmark = pytest.mark.django_db


def test_hostile_markup_is_removed():
    html = text_to_html(
        '<script>alert(1)</script><img src=x onerror="alert(2)">'
        '<a href="javascript:alert(3)">x</a> <a href="https://ok.example">ok</a> **bold**'
    )
    assert "<script" not in html and "alert(1)" not in html
    assert "onerror" not in html
    assert "javascript:" not in html
    assert 'href="https://ok.example"' in html
    assert "<strong>bold</strong>" in html


def test_citations_render_by_kind_with_title_and_snippets():
    study = make_study()
    question = make_question(study, n_reports=1, paragraphs=3)
    [report] = render_reports(list(question.reports.values_list("pk", flat=True)))
    paragraphs = report.paragraphs
    assert [p.number for p in paragraphs] == [1, 2, 3]
    assert 'class="cite cite--snippet"' in paragraphs[0].html
    assert "Summarization and dialogue exhibit high memorization." in paragraphs[0].html
    assert 'class="cite cite--title_only"' in paragraphs[1].html
    assert "Title only" in paragraphs[1].html
    assert 'class="cite cite--bare"' in paragraphs[2].html
    assert "Bare citation" in paragraphs[2].html
    # Every marker points at its tooltip for screen readers.
    assert (
        'aria-describedby="rA-p1-c0"' in paragraphs[0].html
        and 'id="rA-p1-c0"' in paragraphs[0].html
    )


def test_hostile_report_and_hostile_citation_are_sanitized():
    study = make_study()
    question = make_question(study, n_reports=1, paragraphs=1, hostile=True)
    report = question.reports.get()
    Citation.objects.filter(report=report, key="[1]").update(
        title='<img src=x onerror="alert(9)">', url="javascript:alert(4)"
    )
    [rendered] = render_reports([report.pk])
    html = rendered.paragraphs[0].html
    assert (
        "<script" not in html
        and "onerror=" not in html.replace("&quot;", '"').split("cite-title")[0]
    )
    assert "javascript:" not in html
    assert "&lt;img" in html  # the hostile title is shown as text, not markup
    assert 'class="cite cite--snippet"' in html


def test_placeholder_characters_in_text_cannot_inject_markers():
    study = make_study()
    system = System.objects.create(study=study, name="S")
    question = make_question(study, n_reports=0)
    report = Report.objects.create(question=question, system=system)
    section = Section.objects.create(report=report, position=0, title="<b>T</b>")
    citation = Citation.objects.create(report=report, key="[1]", title="T", snippets=["s"])
    text = "A \ue0000\ue001 trick [1]"
    para = Paragraph.objects.create(section=section, report=report, number=1, text=text)
    CitationAnchor.objects.create(
        paragraph=para, citation=citation, start=text.index("[1]"), end=len(text)
    )
    [rendered] = render_reports([report.pk])
    assert rendered.paragraphs[0].html.count("cite-wrap") == 1
    assert rendered.sections[0].title == "<b>T</b>"  # escaped by the template


def test_table_sections_render_as_escaped_lists():
    from annotation.rendering import table_html

    html = table_html({"columns": ["Model", "Score"], "rows": [["<b>x</b>", 1]]})
    assert "<li>Model: &lt;b&gt;x&lt;/b&gt;; Score: 1</li>" in html
