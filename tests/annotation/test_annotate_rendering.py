"""The report reader: sanitized, blinded, citations of every kind."""

import re

import pytest

from annotation.models import Paragraph, Report, Section, System
from annotation.rendering import render_reports, text_to_html
from tests.builders.content import make_question, make_study
from tests.builders.sources import add_anchor, add_citation, set_citation

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


def test_citations_render_the_same_whatever_the_source_supplied():
    """Issue 24: a title-only chip was dashed, a bare one said "Bare citation": systems
    that supply less were told apart by the chips' look. Every chip now has one markup."""
    study = make_study()
    question = make_question(study, n_reports=1, paragraphs=3)
    [report] = render_reports(list(question.reports.values_list("pk", flat=True)))
    paragraphs = report.paragraphs
    assert [p.number for p in paragraphs] == [1, 2, 3]
    assert "Summarization and dialogue exhibit high memorization." in paragraphs[0].html
    for p, kind in zip(paragraphs, ("snippet", "title_only", "bare"), strict=True):
        assert re.search(f'class="cite" data-cite="[^"]+" data-kind="{kind}"', p.html)
        assert "Title only" not in p.html and "Bare citation" not in p.html
        assert p.html.count('class="cite-title"') == p.html.count('class="cite-snippets"') == 1
    assert chip_shape(paragraphs[0].html) == chip_shape(paragraphs[1].html)
    assert chip_shape(paragraphs[1].html) == chip_shape(paragraphs[2].html)
    # Every marker points at its tooltip for screen readers.
    assert (
        'aria-describedby="rA-p1-c0"' in paragraphs[0].html
        and 'id="rA-p1-c0"' in paragraphs[0].html
    )


def chip_shape(html: str) -> list[str]:
    """The classes of a paragraph's chips in order, repeated snippets once, the state of an
    absent part (``cite-none``) left out: what every chip must share. A chip followed by
    punctuation is wrapped with it (``cite-end``, so it never wraps alone): the wrapper is
    not the chip's markup."""
    classes = re.findall(r'class="(cite[^"]*)"', html)
    shape = [c.replace(" cite-none", "") for c in classes
             if c.startswith("cite") and c != "cite-end"]  # fmt: skip
    return [c for i, c in enumerate(shape) if i == 0 or c != shape[i - 1]]


def test_inline_headings_are_shown_at_one_level():
    for text in ("### Findings\nText.", "## Findings\nText.", "##### Findings\nText."):
        html = str(text_to_html(text))
        assert "<h4>Findings</h4>" in html, html
        assert not re.search(r"<h[1235-6]", html)


def test_hostile_report_and_hostile_citation_are_sanitized():
    study = make_study()
    question = make_question(study, n_reports=1, paragraphs=1, hostile=True)
    report = question.reports.get()
    set_citation(report, "[1]", title='<img src=x onerror="alert(9)">', url="javascript:alert(4)")
    [rendered] = render_reports([report.pk])
    html = rendered.paragraphs[0].html
    assert (
        "<script" not in html
        and "onerror=" not in html.replace("&quot;", '"').split("cite-title")[0]
    )
    assert "javascript:" not in html
    assert "&lt;img" in html  # the hostile title is shown as text, not markup
    assert 'data-kind="snippet"' in html


def test_placeholder_characters_in_text_cannot_inject_markers():
    study = make_study()
    system = System.objects.create(study=study, name="S")
    question = make_question(study, n_reports=0)
    report = Report.objects.create(question=question, system=system)
    section = Section.objects.create(report=report, position=0, title="<b>T</b>")
    citation = add_citation(report, "[1]", title="T", snippets=["s"])
    text = "A \ue0000\ue001 trick [1]"
    para = Paragraph.objects.create(section=section, report=report, number=1, text=text)
    add_anchor(para, citation, text.index("[1]"), len(text))
    [rendered] = render_reports([report.pk])
    assert rendered.paragraphs[0].html.count("cite-wrap") == 1
    assert rendered.sections[0].title == "<b>T</b>"  # escaped by the template


def test_table_sections_render_as_escaped_lists():
    from annotation.rendering import table_html

    html = table_html({"columns": ["Model", "Score"], "rows": [["<b>x</b>", 1]]})
    assert "<li>Model: &lt;b&gt;x&lt;/b&gt;; Score: 1</li>" in html


@pytest.mark.parametrize(
    "text, punctuation",
    [
        ("Attention scales as shown [3]\n. Next sentence.", "."),
        ("Attention scales as shown [3]\n, and more.", ","),
        ("Attention scales as shown [3].", "."),
        ("Attention scales as shown [3] \n ; then more.", ";"),
    ],
)
def test_punctuation_after_a_marker_stays_with_it(text, punctuation):
    """A marker at the end of a line ("… as shown [3]\\n.") left the line break between
    the chip and its period: the page wrapped the period onto a line of its own, detached
    from its sentence. The marker and the punctuation after it are one unbreakable span."""
    from annotation.models import Citation
    from annotation.rendering import paragraph_html

    start = text.index("[3]")
    html, keys = paragraph_html(
        Paragraph(text=text), [[start, start + 3, "3"]], {"3": Citation(key="3", title="T")}, "p"
    )
    assert keys == ["3"]
    together = re.search(r'<span class="cite-end">(.*?)</span>([^<]*)', str(html), re.S)
    assert together, html
    assert str(html).count('class="cite-end"') == 1
    # the chip, then the punctuation, nothing between them, inside the no-wrap span
    assert re.search(r"</span></span>" + re.escape(punctuation) + r"</span>", str(html)), html


def test_a_marker_before_a_word_on_the_next_line_is_left_alone():
    from annotation.models import Citation
    from annotation.rendering import paragraph_html

    text = "As shown [3]\n.NET runs it."
    html, _ = paragraph_html(
        Paragraph(text=text), [[9, 12, "3"]], {"3": Citation(key="3", title="T")}, "p"
    )
    assert "cite-end" not in str(html) and ".NET runs it." in str(html)


def test_a_loose_list_keeps_its_numbers():
    """A loose numbered list is stored one item per paragraph (Doubao's ResearcherBench
    report 8, items 1–4 a blank line apart): each was shown as a list starting at 1, so
    the reader saw "1., 1., 1., 1.". Each keeps the number it was written with."""
    assert "<ol>" in text_to_html("1.  **Inadequate fine-tuning data**: few examples")
    html = text_to_html("2.  **Lack of explicit constraint modeling**: models struggle")
    assert '<ol start="2">' in html and "<strong>Lack" in html
    assert '<ol start="4">' in text_to_html("4. Absence of structured reasoning")


def test_a_fenced_code_block_is_shown_as_written():
    """A fenced block is code: one ``<pre><code>``, its fences gone and nothing in it read
    as markdown (``**Prompt:**`` stays as written), markup in it escaped."""
    html = text_to_html("```json\n**Prompt:**\n1. a\n\n$50 <b>x</b>\n```")
    assert html.startswith("<pre><code>") and "```" not in html
    assert "**Prompt:**\n1. a\n\n$50 &lt;b&gt;x&lt;/b&gt;" in html
    assert "<strong>" not in html and "<ol" not in html and "<math" not in html
