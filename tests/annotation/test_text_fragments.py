"""No text fragment nor tracking parameter in any address annotators read, inside text too
(blinding). You.com links every citation ``[[1]](https://arxiv.org/pdf/2502.21094#:~:text=
Unlike%20models…)`` and OpenAI deep research writes ``#:~:text=`` too: the highlight
syntax, and the quoted words percent-encoded, tell annotators the system. The one rule of
``annotation.links`` (``clean_url``) already cleaned a citation's ``url``; these tests hold
it to every address in a paragraph (markdown link, autolink, bare, in code too), a snippet,
a title (an address, or a fragment's encoded words) and a ScholarQA table, at import and on
the task page and the annotator API for a report stored before the rule."""

from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.importers import run
from annotation.importers.structure import split_paragraphs
from annotation.links import shown_text, shown_title
from annotation.models import Paragraph, Report
from annotation.rendering import render_reports, report_html
from annotation.serializers import AnnotatorReportSerializer
from tests.annotation.test_vendor_tracking import shared
from tests.builders.content import make_assignment

pytestmark = pytest.mark.django_db

#: What annotators must never read (written here independently of ``annotation.links``).
TELLS = re.compile(r":~:text=|srsltid|utm_", re.I)


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("“[[1]](https://arxiv.org/pdf/2502.21094#:~:text=Unlike%20models,the%20Nyquist)”",
         "“[[1]](https://arxiv.org/pdf/2502.21094)”"),
        ("see https://a.org/p?id=3&utm_source=openai. Next", "see https://a.org/p?id=3. Next"),
        ("<https://a.org/p?srsltid=AfmBOo&q=1>", "<https://a.org/p?q=1>"),
        ("`curl https://a.org/x#:~:text=a%20b`", "`curl https://a.org/x`"),
        ("[w](https://en.wikipedia.org/wiki/Transformer_(deep_learning)?utm_medium=x)",
         "[w](https://en.wikipedia.org/wiki/Transformer_(deep_learning))"),
        ("[d](https://a.org/p#:\\~:text=escaped%20too)", "[d](https://a.org/p)"),
        # You.com's apostrophe as a blank line, inside the link
        ("[3](https://b.com/h#:~:text=RAG,the%20model\n\ns%20internal). By",
         "[3](https://b.com/h). By"),
        # what opens a page stays, as written
        ("[a](https://openreview.net/forum?id=Kr&noteId=9#sec-2) x=1",
         "[a](https://openreview.net/forum?id=Kr&noteId=9#sec-2) x=1"),
        ("https://scholar.google.com/scholar?q=claude+shannon&hl=en",
         "https://scholar.google.com/scholar?q=claude+shannon&hl=en"),
    ],
)  # fmt: skip
def test_every_address_in_a_text_is_cleaned_by_the_one_rule(text, shown):
    assert shown_text(text) == shown


def test_anchors_move_with_the_cleaned_text():
    text = "a [x](https://a.org/#:~:text=q%20w) b [1] c https://b.org/?utm_source=x [2]"
    cleaned, anchors = shown_text(text, [(text.index("[1]"), text.index("[1]") + 3, "1"),
                                         (len(text) - 3, len(text), "2")])  # fmt: skip
    assert cleaned == "a [x](https://a.org/) b [1] c https://b.org/ [2]"
    assert [cleaned[a:b] for a, b, _ in anchors] == ["[1]", "[2]"]


@pytest.mark.parametrize(
    ("title", "shown"),
    [
        # the fragment's start and end: a quotation's, no bare comma (You.com's shape)
        ("Unlike%20models%20that%20only,even%20beyond%20the%20Nyquist",
         "Unlike models that only … even beyond the Nyquist"),
        ("ctx-,Unlike%20models,even%20beyond,-the%20end", "Unlike models … even beyond"),
        ("https://postquantum.com/post/x/#:~:text=Quantum%20is", "https://postquantum.com/post/x/"),
        ("https://a.org/item?srsltid=AfmBOo", "https://a.org/item"),
        ("Attention Is All You Need", "Attention Is All You Need"),
        ("100% Accuracy Is Not Enough", "100% Accuracy Is Not Enough"),
    ],
)  # fmt: skip
def test_a_title_that_is_an_address_or_fragment_words_is_shown_clean(title, shown):
    assert shown_title(title) == shown


def test_a_blank_line_inside_a_text_fragment_splits_no_paragraph():
    """You.com wrote ``model's`` as ``model\\n\\ns`` inside a link's fragment (ScholarQA-CS2
    ``dev/you.json``): one sentence, one paragraph; a blank line elsewhere still splits."""
    text = "RAG [[3]](https://b.com/h#:~:text=RAG,the%20model\n\ns%20internal). By x.\n\nNext."
    assert split_paragraphs(text) == [
        "RAG [[3]](https://b.com/h#:~:text=RAG,the%20model\n\ns%20internal). By x.",
        "Next.",
    ]


def _visible(report: Report) -> str:
    """What an annotator reads of ``report``: the task page's report HTML and the
    annotator API's JSON."""
    html = str(report_html(render_reports([report.pk])[0]))
    return html + json.dumps(AnnotatorReportSerializer(report).data)


RELEASED = [
    # (benchmark, file, system, reports whose released text holds a tell at least)
    ("scholarqa", ("scholarqa-cs2", "reports", "test", "you.json"), "you", 80),
    ("scholarqa", ("scholarqa-cs2", "reports", "dev", "you.json"), "you", 10),
    ("scholarqa", ("scholarqa-cs2", "reports", "expert_written", "openai-dr.json"), "oai", 10),
    ("researcherbench", ("researcherbench", "user_data", "OpenAI.json"), "OpenAI", 3),
]


@pytest.mark.shared_data
@pytest.mark.parametrize(("fmt", "parts", "system", "tagged"), RELEASED)
def test_no_released_report_shows_annotators_a_text_fragment(fmt, parts, system, tagged):
    """Imported, no report's page or API text holds ``:~:text=``, ``srsltid`` or ``utm_``
    (before this rule, reports showing one: test/you.json 7, dev/you.json 3, openai-dr.json 1,
    ResearcherBench OpenAI.json 3), the
    record as released keeps them, and links keep their path and legitimate query."""
    run("reports", shared(*parts), study="S", format=fmt, system=system)
    reports = list(Report.objects.order_by("pk"))
    released = [r for r in reports if TELLS.search(json.dumps(r.original))]
    assert len(released) >= tagged
    assert [r.public_id for r in reports if TELLS.search(_visible(r))] == []
    visible = "".join(_visible(r) for r in reports)
    assert re.search(r'href="https://arxiv\.org/(?:abs|pdf|html)/\d{4}\.\d{4,5}', visible)
    if system == "you":
        # the sentence You.com broke at an apostrophe in a fragment is one paragraph
        assert not Paragraph.objects.filter(text__startswith="s%20internal").exists()


@pytest.mark.shared_data
def test_a_report_stored_before_the_rule_is_shown_clean(annotator_user):
    """A report stored with its fragments (before this rule) reaches the task page and
    ``GET /api/reports/<public_id>/`` without them: pages and the API read every text
    through the rule, and the API's anchors still mark the markers."""
    run("reports", shared("scholarqa-cs2", "reports", "dev", "you.json"), study="S",
        format="scholarqa", system="you")  # fmt: skip
    report = Report.objects.order_by("pk").first()
    para = Paragraph.objects.filter(report=report).exclude(anchors=[]).first()
    link = "[w](https://blog.gopenai.com/h-c67a#:~:text=Retrieval%20Augmented) "
    para.text = link + para.text
    para.anchors = [[a + len(link), b + len(link), k] for a, b, k in para.anchors]
    para.save()
    report.citations = [
        dict(c, title="Unlike%20models%20that%20only,even%20beyond",
             snippets=["“[[1]](https://arxiv.org/pdf/2502.21094#:~:text=Unlike%20models)”",
                       "see https://a.org/?srsltid=Af&utm_source=you.com"])
        for c in report.citations
    ]  # fmt: skip
    report.save(update_fields=["citations"])
    a = make_assignment(annotator_user.annotator, report.question, "metric_wise")
    a.report_order = [report.pk]
    a.save()
    client = APIClient()
    client.force_login(annotator_user)
    html = client.get(reverse("annotate:task", args=[a.pk])).content.decode()
    assert "https://blog.gopenai.com/h-c67a" in html and "Unlike models that only" in html
    assert not TELLS.search(html)
    got = client.get(f"/api/reports/{report.public_id}/").json()
    assert not TELLS.search(json.dumps(got))
    shown = next(p for s in got["sections"] for p in s["paragraphs"] if p["number"] == para.number)
    assert shown["text"].startswith("[w](https://blog.gopenai.com/h-c67a) ")
    assert all(re.fullmatch(r"\[\d+\]", shown["text"][x["start"] : x["end"]])
               for x in shown["anchors"])  # fmt: skip
