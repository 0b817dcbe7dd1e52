"""One URL rule for every importer and page (issue 24): a citation URL ``javascript:alert(9)``
from a ScholarQA import reached an ``href`` on the retrieval-relevance and entailment pages.
Only http(s) addresses become links: the importer drops another with a warning naming the
record and field, and no page renders a non-http(s) ``href`` — not even from a URL stored
some other way."""

import json
import re
from pathlib import Path

import pytest
from django.urls import reverse

from annotation.importers import run
from annotation.links import is_web_url, web_url
from annotation.models import Report
from tests.builders.content import make_assignment, make_question, make_study
from tests.builders.sources import citations, set_citation

pytestmark = pytest.mark.django_db
DATA = Path(__file__).resolve().parents[1] / "data"
EVIL = ("javascript:alert(9)", "JaVaScRiPt:alert(9)", " javascript:alert(9)", "data:text/html,x",
        "vbscript:x", "//evil.example/x")  # fmt: skip


def hrefs(html: str) -> list[str]:
    return re.findall(r'href="([^"]*)"', html)


def test_the_rule():
    assert is_web_url("https://example.org/a") and is_web_url("HTTP://example.org")
    assert not any(is_web_url(u) for u in EVIL) and web_url("javascript:x") == ""


def test_a_scholarqa_import_drops_a_non_web_url_with_a_warning_naming_record_and_field():
    records = json.loads((DATA / "scholarqa_reports.json").read_text())
    records[0]["response"]["sections"][0]["citations"][0]["metadata"] = {"url": EVIL[0]}
    records[0]["response"]["sections"][0]["citations"][1]["metadata"] = {
        "url": "https://example.org/switch"
    }
    rep = run("reports", json.dumps(records).encode(), study="Links", format="scholarqa",
              system="sqa")  # fmt: skip
    warned = [w for w in rep.warnings if w.field and w.field.endswith("metadata.url")]
    assert len(warned) == 1 and warned[0].record == 1
    assert warned[0].field == "response.sections[0].citations[0].metadata.url"
    assert "javascript:alert(9)" in warned[0].message and "dropped" in warned[0].message
    urls = {c.url for c in citations(Report.objects.all())}
    assert "https://example.org/switch" in urls and not any(
        u.startswith("javascript") for u in urls
    )


@pytest.mark.parametrize("task", ["retrieval_relevance", "entailment", "metric_wise"])
def test_no_page_renders_a_non_web_href_even_from_a_stored_url(client, annotator_user, task):
    study = make_study("Links pages")
    q = make_question(study, n_reports=2, paragraphs=2)
    stored = [(r, c) for r in q.reports.order_by("pk") for c in citations(pk=r.pk)]
    assert stored  # every source gets a URL no page may link
    for n, (report, c) in enumerate(stored):
        set_citation(report, c.key, url=EVIL[n % len(EVIL)])
    a = make_assignment(annotator_user.annotator, q, task)
    client.force_login(annotator_user)
    page = client.get(reverse("annotate:task", args=[a.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    bad = [
        h for h in hrefs(html) if not (h.startswith(("/", "#", "?")) or is_web_url(h) or h == "")
    ]
    assert bad == []
    assert "javascript:" not in html.lower().replace("javascript:void", "")


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("https://a.org/p?utm_source=openai", "https://a.org/p"),
        ("https://a.org/p?id=3&utm_source=openai", "https://a.org/p?id=3"),
        ("https://a.org/p?UTM_Medium=x&id=3&utm_campaign=y#sec", "https://a.org/p?id=3#sec"),
        ("https://a.org/p?q=a%20b&x=1", "https://a.org/p?q=a%20b&x=1"),  # not re-encoded
        ("https://a.org/utm_source/page", "https://a.org/utm_source/page"),  # a path, kept
        ("https://a.org/p#sec-utm_source", "https://a.org/p#sec-utm_source"),  # an anchor, kept
        ("https://a.org/p#utm_source=x", "https://a.org/p"),  # a fragment of tags: removed
    ],
)
def test_analytics_tags_are_removed_from_an_address(url, shown):
    from annotation.links import without_tracking

    assert without_tracking(url) == shown
