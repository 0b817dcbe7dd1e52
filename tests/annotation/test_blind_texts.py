"""Every text an annotator reads goes through the one address rule of ``annotation.links``,
not only a report's paragraphs and sources (blinding): a question's text, a rubric item's,
a report's section title, a DeepScholar exemplar and its references. And a text fragment's
*shape* goes too: You.com made each ``#:~:text=start,end`` a source's snippet (and the title
of a page without one) as ``start,end`` with a bare comma, a style no other system has, so
a tooltip told annotators which system wrote the report.

Released records where the release has them (You.com's snippets and titles, DeepScholar's
one reference address tagged ``srsltid``); the released questions, rubric items and
section titles hold no tagged address, so a released one is given one as another file
or an admin could write it, stored before the rule."""

from __future__ import annotations

import csv
import json
import re

import pytest
from django.core.management import call_command
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.annotate.deepscholar_labels import exemplar_html
from annotation.importers import run
from annotation.models import ExemplarReference, Report, RubricItem, Section, Study
from tests.builders.content import make_assignment
from tests.builders.released import shared

pytestmark = pytest.mark.django_db

#: What annotators must never read (written here independently of ``annotation.links``).
TELLS = re.compile(r":~:text=|srsltid|utm_|upstream_biz", re.I)
#: A text fragment's start and end joined by its bare comma, as You.com left it in a
#: snippet (``Financial constraints remain a,of digital adoption in``).
SHAPE = re.compile(r"[a-z],[a-z]{2}")
#: An address tagged by two systems (Doubao's own key, OpenAI's ``utm_source``) with a
#: text fragment, and what opens the same page.
TAGGED = (
    "https://www.ncbi.nlm.nih.gov/pmc/articles/PMC1/?upstream_biz=doubao"
    "&utm_source=chatgpt.com#:~:text=quoted,words"
)
CLEAN = "https://www.ncbi.nlm.nih.gov/pmc/articles/PMC1/"


def _client(user) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


@pytest.mark.shared_data
def test_question_rubric_and_section_texts_reach_annotators_clean(annotator_user):
    """A released ResearcherBench question, its first rubric item and a Doubao report's
    first section title, each holding a tagged address: every task page, the queue, and
    the annotator API show the address cleaned (before: shown as stored on every one)."""
    run("questions", shared("researcherbench", "questions.json"), study="RB",
        format="researcherbench", rubric=shared("researcherbench", "rubric.json"))  # fmt: skip
    run("reports", shared("researcherbench", "user_data", "Doubao.json"), study="RB",
        format="researcherbench", system="Doubao")  # fmt: skip
    report = Report.objects.filter(system__name="Doubao").order_by("pk").first()
    question = report.question
    question.text = f"See {TAGGED}. {question.text}"
    question.save(update_fields=["text"])
    item = RubricItem.objects.filter(rubric__question=question).order_by("position").first()
    item.text = f"{item.text} {TAGGED}"
    item.save(update_fields=["text"])
    section = Section.objects.filter(report=report).order_by("position").first()
    section.title = f"{section.title or 'Overview'} ({TAGGED})"
    section.save(update_fields=["title"])

    client = _client(annotator_user)
    pages = {}
    for task in ("metric_wise", "rubric_coverage", "rubric_item_quality", "query_quality",
                 "expertise_triage"):  # fmt: skip
        a = make_assignment(annotator_user.annotator, question, task)
        a.report_order = [report.pk]
        a.save(update_fields=["report_order"])
        response = client.get(reverse("annotate:task", args=[a.pk]))
        assert response.status_code == 200, task
        pages[task] = response.content.decode()
    pages["queue"] = client.get(reverse("annotate:queue")).content.decode()
    pages["home"] = client.get(reverse("home")).content.decode()
    rubric = item.rubric
    for name, url in [
        ("question API", f"/api/questions/{question.pk}/"),
        ("rubric API", f"/api/rubrics/{rubric.public_id}/"),
        ("report API", f"/api/reports/{report.public_id}/"),
    ]:
        response = client.get(url)
        assert response.status_code == 200, (name, response.content[:300])
        pages[name] = json.dumps(response.json())
    assert {name: TELLS.findall(text) for name, text in pages.items()} == {
        name: [] for name in pages
    }
    # the texts are shown, with the address that opens the same page
    for name in ("metric_wise", "rubric_coverage", "rubric_item_quality", "queue", "home"):
        assert CLEAN in pages[name], name
    assert CLEAN in pages["rubric_item_quality"] and CLEAN in pages["rubric API"]
    assert f"({CLEAN})" in pages["report API"] and f"({CLEAN})" in pages["metric_wise"]


def _you_study() -> list[dict]:
    """Both released You.com files imported (ScholarQA-CS2 dev and test), and each report's
    sources put back as released (a report stored before the rule): title and snippets."""
    released = []
    for split in ("dev", "test"):
        path = shared("scholarqa-cs2", "reports", split, "you.json")
        run("reports", path, study="You", format="scholarqa", system="you")
        for record in json.loads(path.read_text()):
            for s in (record.get("response") or {}).get("sections") or []:
                released += [c for c in s.get("citations") or [] if c.get("snippets")]
    return released


def _tips(html: str) -> list[str]:
    """The title and snippets of every source tip of a page (as the browser reads them)."""
    found = re.findall(r'class="cite-title">(.*?)</strong>', html)
    return found + re.findall(r'class="cite-snippet">“(.*?)”</span>', html)


@pytest.mark.shared_data
def test_you_com_snippets_and_titles_lose_the_text_fragment_shape(annotator_user):
    """Released, about half of You.com's snippets have the bare-comma shape (none of any
    other system's, ``annotation.links._FRAGMENT_JOINT``); imported, under 1 % do, their
    words kept with an elision; and a report stored with the released snippets and titles
    shows none of the shape on the task page, the annotator API, or a source's excerpts in
    retrieval relevance (before: on all three)."""
    released = _you_study()
    snippets = [x for c in released for x in c["snippets"] if isinstance(x, str) and x.strip()]
    assert sum(bool(SHAPE.search(x)) for x in snippets) > 0.4 * len(snippets)
    stored = [x for r in Report.objects.all() for c in r.citations for x in c.get("snippets", [])]
    assert len(stored) > 1000
    assert sum(bool(SHAPE.search(x)) for x in stored) < 0.01 * len(stored)
    assert "Financial constraints remain a … of digital adoption in" in stored

    # stored before the rule: the released shapes, on one report
    shaped = [c for c in released if any(SHAPE.search(x) for x in c["snippets"])]
    shaped_titles = [c["title"] for c in released if SHAPE.search(c.get("title") or "")]
    report = Report.objects.order_by("pk").first()
    report.citations = [
        dict(c, title=shaped_titles[i], snippets=shaped[i]["snippets"])
        for i, c in enumerate(report.citations)
    ]
    report.save(update_fields=["citations"])
    assert sum(bool(SHAPE.search(json.dumps(c))) for c in report.citations) >= 3
    client = _client(annotator_user)
    a = make_assignment(annotator_user.annotator, report.question, "metric_wise")
    a.report_order = [report.pk]
    a.save(update_fields=["report_order"])
    tips = _tips(client.get(reverse("annotate:task", args=[a.pk])).content.decode())
    assert len(tips) >= 2 * len(report.citations)
    assert [t for t in tips if SHAPE.search(t)] == []
    assert any(" … " in t for t in tips)
    got = client.get(f"/api/reports/{report.public_id}/").json()["citations"]
    shown = [c["title"] for c in got] + [x for c in got for x in c["snippets"]]
    assert [t for t in shown if SHAPE.search(t)] == []

    study = report.question.study
    study.tasks = [*study.tasks, "retrieval_relevance"]
    study.save(update_fields=["tasks"])
    r = make_assignment(annotator_user.annotator, report.question, "retrieval_relevance")
    r.report_order = [report.pk]
    r.save(update_fields=["report_order"])
    html = client.get(reverse("annotate:task", args=[r.pk])).content.decode()
    units = re.findall(r'<blockquote class="claim-text ds-text">(.*?)</blockquote>', html, re.S)
    excerpts = re.findall(r"<dt>Excerpt</dt><dd>(.*?)</dd>", html, re.S)
    assert len(units) == len(report.citations) and excerpts
    assert [t for t in units + excerpts if SHAPE.search(t)] == []


@pytest.mark.shared_data
def test_a_deepscholar_reference_address_reaches_annotators_clean(annotator_user, tmp_path):
    """DeepScholar-Bench's released references hold one address tagged ``srsltid`` (the
    search result of ``Yu2024`` in ``dataset/recovered_citations.csv``). Given as that
    reference's address (``exemplar-references``), it is stored clean; stored tagged
    before the rule, the exemplar's reference list (reference importance, organization)
    and the reference's unit show it clean (before: stored and listed as released)."""
    csv.field_size_limit(1 << 28)
    Study.objects.create(name="DS")
    call_command("import_deepscholar", str(shared("deepscholar", "dataset")), "--study", "DS",
                 "--format", "exemplar-latex")  # fmt: skip
    released = next(
        row for row in csv.DictReader(shared("deepscholar", "dataset", "recovered_citations.csv").open())
        if "srsltid=" in row["search_res_url"]
    )  # fmt: skip
    ref = ExemplarReference.objects.get(
        question__external_id=released["parent_paper_arxiv_id"],
        key=released["citation_shorthand"],
    )
    refs = tmp_path / "refs.jsonl"
    refs.write_text(json.dumps({"question_id": ref.question.external_id, "references": [
        {"id": r.key, "title": r.title, "url": released["search_res_url"] if r.pk == ref.pk else r.url}
        for r in ExemplarReference.objects.filter(question=ref.question).order_by("position")
    ]}))  # fmt: skip
    run("deepscholar", refs, study="DS", format="exemplar-references")
    ref.refresh_from_db()
    clean = released["search_res_url"].split("?")[0]
    assert ref.url == clean

    ref.url = released["search_res_url"]  # as stored before the rule
    ref.save(update_fields=["url"])
    a = make_assignment(annotator_user.annotator, ref.question, "reference_importance")
    html = _client(annotator_user).get(reverse("annotate:task", args=[a.pk])).content.decode()
    listed = str(exemplar_html(type("Page", (), {"assignment": a})))
    assert clean in listed and clean in html
    assert TELLS.findall(listed) == [] and TELLS.findall(html) == []
