"""No system's name in an address annotators follow (blinding): Doubao tags its links
``?upstream_biz=doubao`` (306 in ResearcherBench's ``user_data/Doubao.json``) and
``?baike_source=doubao`` (8), Mita one ``?source=mita``, gpt-4o-search-preview 434
``?utm_source=openai``. The one declaration (``annotation.links``: tracking keys, vendors'
names as values) removes them from what annotators get — the stored source address, the
task page's links, the annotator API — and keeps every parameter that says which page to
open; the released record (``Report.original``) keeps them as written."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.importers import run
from annotation.models import Paragraph, Report
from tests.builders.content import make_assignment
from tests.builders.released import SHARED, shared
from tests.builders.sources import citations

pytestmark = pytest.mark.django_db

#: Names of systems and vendors, written here independently of ``annotation.links``.
NAMES = ("doubao", "mita", "openai", "perplexity", "gemini", "claude", "anthropic", "grok",
         "kimi", "qwen", "deepseek", "chatgpt", "bing", "copilot", "you.com")  # fmt: skip
#: A parameter naming one as its whole value (``source=mita``, ``ref=chatgpt.com``); a
#: paper's title in a ``name=`` that mentions ChatGPT is content, not a tag.
NAMED = re.compile(
    r"[?&#][^=&#]*=(?:www\.)?(?:" + "|".join(map(re.escape, NAMES)) + r")(?:\.[a-z.]+)?(?=[&#]|$)",
    re.I,
)
TRACKING = re.compile(r"(?:^|[?&#])(?:utm_\w+|upstream_biz|baike_source|fbclid|gclid|spm)=", re.I)
URL = re.compile(r"https?://[^\s)\]\"'<>\\]+")
SYSTEMS = ["Claude", "OpenAI", "Perplexity", "Mita", "Doubao", "gpt-4o-search-preview"]
SCHOLARQA = [
    f"{folder}/{name}"
    for folder in ("dev", "test", "expert_written")
    for name in sorted(os.listdir(SHARED / "scholarqa-cs2" / "reports" / folder))
] if (SHARED / "scholarqa-cs2" / "reports").is_dir() else []  # fmt: skip


def tagged(url: str) -> bool:
    """An address whose query or fragment names a system or carries a tracking key."""
    url = url.replace("\\_", "_")
    return bool(TRACKING.search(url) or NAMED.search(url))


def strings(path: Path):
    """Every string of a JSON (or JSON lines) file, markdown's escaped underscores read."""
    text = path.read_text(encoding="utf-8")
    try:
        data = [json.loads(text)]
    except json.JSONDecodeError:
        data = [json.loads(line) for line in text.splitlines() if line.strip()]
    stack = data
    while stack:
        o = stack.pop()
        if isinstance(o, str):
            yield o.replace("\\_", "_")
        elif isinstance(o, dict | list):
            stack.extend(o.values() if isinstance(o, dict) else o)


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("http://m.toutiao.com/group/7508748879991407104/?upstream_biz=doubao",
         "http://m.toutiao.com/group/7508748879991407104/"),
        ("https://m.baike.com/wiki/OpenAI%20o3/745?baike_source=doubao",
         "https://m.baike.com/wiki/OpenAI%20o3/745"),
        ("https://a.org/p?source=mita&id=3", "https://a.org/p?id=3"),
        ("https://a.org/p?ref=chatgpt.com", "https://a.org/p"),
        ("https://a.org/p?via=www.Perplexity.ai&x=1", "https://a.org/p?x=1"),
        ("https://a.org/p?doubao_from=x&x=1", "https://a.org/p?x=1"),
        ("https://a.org/p?fbclid=IwAR3&gclid=1&spm=a2c6h&srsltid=Af", "https://a.org/p"),
        ("https://a.org/p#utm_source=x", "https://a.org/p"),
        ("https://a.org/p?x=1#page=2&ref=claude", "https://a.org/p?x=1#page=2"),
        # what says which page to open stays
        ("https://scholar.google.com/scholar?q=openai", "https://scholar.google.com/scholar?q=openai"),
        ("https://scholar.google.com/scholar?q=claude+shannon&hl=en",
         "https://scholar.google.com/scholar?q=claude+shannon&hl=en"),
        ("https://openreview.net/forum?id=KrWSrrYGpT", "https://openreview.net/forum?id=KrWSrrYGpT"),
        ("https://doi.org/10.1000/x?doi=10.1/2", "https://doi.org/10.1000/x?doi=10.1/2"),
        ("https://arxiv.org/abs/2501.18914?context=cs", "https://arxiv.org/abs/2501.18914?context=cs"),
        ("https://a.org/p?ref=hackernoon", "https://a.org/p?ref=hackernoon"),
        ("https://a.org/mita/page#sec-2", "https://a.org/mita/page#sec-2"),
        # a vendor whose name is an ordinary word: a page's own parameter stays, a referral
        # tag naming it (or its own domain) goes
        ("https://a.org/p?topic=storm", "https://a.org/p?topic=storm"),
        ("https://hf.co/models?model=falcon&sort=consensus",
         "https://hf.co/models?model=falcon&sort=consensus"),
        ("https://a.org/p?storm_id=3&hand=manus", "https://a.org/p?storm_id=3&hand=manus"),
        ("https://a.org/p?ref=storm&x=1", "https://a.org/p?x=1"),
        ("https://a.org/p?source=Consensus&via=manus", "https://a.org/p"),
        ("https://a.org/p?site=consensus.app&x=1", "https://a.org/p?x=1"),
        ("https://a.org/p?from=www.manus.im", "https://a.org/p"),
    ],
)  # fmt: skip
def test_tracking_and_vendor_parameters_are_removed_from_an_address(url, shown):
    from annotation.links import without_tracking

    assert without_tracking(url) == shown


@pytest.mark.shared_data
def test_no_released_report_shows_annotators_a_system_name_in_an_address():
    """Every report file released (every ResearcherBench system, every ScholarQA-CS2 file):
    the files hold tagged addresses; once imported, no stored source address, nor one left
    in a paragraph, is tagged, and parameters that open a page are kept."""
    files = [("researcherbench", shared("researcherbench", "user_data", f"{s}.json"), s)
             for s in SYSTEMS]  # fmt: skip
    files += [
        ("scholarqa", shared("scholarqa-cs2", "reports", *n.split("/")), n) for n in SCHOLARQA
    ]
    released = [u for _, path, _ in files for s in strings(path) for u in URL.findall(s)]
    before = [u for u in released if tagged(u)]
    assert sum("upstream_biz=doubao" in u for u in before) == 306
    assert sum("baike_source=doubao" in u for u in before) == 8
    assert sum("source=mita" in u for u in before) == 1
    for i, (fmt, path, system) in enumerate(files):
        run("reports", path, study=f"S{i}", format=fmt, system=system)
    urls = [c.url for c in citations(Report.objects.all()) if c.url]
    assert len(urls) > 5000
    assert [u for u in urls if tagged(u)] == []
    assert [u for u in urls if "~:text=" in u] == []  # no quoted words, escaped or not
    texts = Paragraph.objects.values_list("text", flat=True)
    assert [u for t in texts for u in URL.findall(t) if tagged(u)] == []
    kept = {u for u in urls if "?" in u}
    assert "https://cloud.tencent.com/developer/article/2516031?policyId=1004" in kept
    assert any(re.search(r"openreview\.net/(?:forum|pdf)\?id=", u) for u in kept)
    doubao = Report.objects.filter(system__name="Doubao")
    assert sum(json.dumps(r.original).count("upstream_biz=doubao") for r in doubao) >= 226


@pytest.mark.shared_data
def test_the_task_page_and_the_annotator_api_show_no_vendor_tag(annotator_user):
    """Doubao's reports on the task page (``a.cite-link``) and through
    ``GET /api/reports/<public_id>/``: untagged, even for a report stored tagged before the
    rule (the page and the API read addresses through it)."""
    run("reports", shared("researcherbench", "user_data", "Doubao.json"), study="RB",
        format="researcherbench", system="Doubao")  # fmt: skip
    report = next(
        r for r in Report.objects.filter(system__name="Doubao").order_by("pk")
        if "upstream_biz=doubao" in json.dumps(r.original)
    )  # fmt: skip
    # as stored before the rule: the released addresses
    by_key = {c["normalised_key"]: c["url"] for c in report.original["citations"]}
    report.citations = [
        dict(c, url=by_key.get(c["key"], c.get("url", ""))) for c in report.citations
    ]
    report.save(update_fields=["citations"])
    assert any("upstream_biz=doubao" in c["url"] for c in report.citations)
    a = make_assignment(annotator_user.annotator, report.question, "metric_wise")
    a.report_order = [report.pk]
    a.save()
    client = APIClient()
    client.force_login(annotator_user)
    html = client.get(reverse("annotate:task", args=[a.pk])).content.decode()
    links = re.findall(r'<a class="cite-link"[^>]*href="([^"]*)"', html) or re.findall(
        r'href="([^"]*)"[^>]*class="cite-link"', html
    )
    assert len(links) >= 10
    assert [h for h in links if tagged(h)] == [] and "doubao" not in html.lower()
    got = client.get(f"/api/reports/{report.public_id}/")
    assert got.status_code == 200
    shown = [c["url"] for c in got.json()["citations"] if c.get("url")]
    assert len(shown) >= 10 and [u for u in shown if tagged(u)] == []
