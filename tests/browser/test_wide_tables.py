"""A released 7-column table (ScholarQA-CS2 sqa, expert-written) in a three-way ranking at
1400 px (each report column about 282 px wide): it scrolls sideways, so its last column can
be read, and the citations in its cells are linked like the paragraphs' (issue 25)."""

import json

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from annotation.importers import run
from annotation.models import Assignment, Question, Report, Study

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCROLL = """(el) => { const before = el.getBoundingClientRect();
  el.scrollLeft = el.scrollWidth;
  return {scrollWidth: el.scrollWidth, clientWidth: el.clientWidth, left: el.scrollLeft,
          width: before.width}; }"""


def ranking_of(record: dict, fmt: str, system: str, annotator_user, login):
    """The medal-ranking page of one released answer imported as three systems' reports,
    in a 1400 px window."""
    for name in (system, f"{system}-b", f"{system}-c"):
        run("reports", json.dumps([record]).encode(), study="S", format=fmt, system=name)
    study = Study.objects.get(name="S")
    study.tasks = [Study.Task.MEDAL_RANKING]
    study.save()
    a = Assignment.objects.create(
        study=study,
        annotator=annotator_user.annotator,
        question=Question.objects.get(),
        task=Study.Task.MEDAL_RANKING,
        report_order=list(Report.objects.order_by("pk").values_list("pk", flat=True)),
    )
    page = login(annotator_user).new_page()
    page.set_viewport_size({"width": 1400, "height": 800})
    page.goto(reverse("annotate:task", args=[a.pk]))
    return page


def test_a_wide_table_scrolls_and_its_citations_are_linked(
    scholarqa_dir, annotator_user, login, shot
):
    records = json.loads((scholarqa_dir / "reports" / "expert_written" / "sqa.json").read_text())
    record = records[2]  # a 7-column table citing "(Hanauer et al., 2021)" … in its cells
    assert any(isinstance(s.get("table"), dict) for s in record["response"]["sections"])
    page = ranking_of(record, "scholarqa", "sqa", annotator_user, login)
    box = page.locator("#report-A .report-table-md .table-scroll").first
    box.scroll_into_view_if_needed()
    expect(box).to_be_visible()
    m = box.evaluate(SCROLL)
    assert m["width"] < 400 and m["scrollWidth"] > m["clientWidth"], m  # narrow, scrolls
    assert m["left"] > 0, m  # scrolled to the last column
    last = box.locator("tr").nth(2).locator("td").last
    expect(last).to_be_in_viewport()
    shot(page, "wide-table")
    cites = page.locator("#report-A .report-table-md button.cite")
    assert cites.count() >= 5  # the cells' citations are markers with their sources
    first = cites.first
    first.focus()
    expect(page.locator("#report-A .report-table-md .cite-tip").first).to_be_visible()


def test_a_markdown_table_in_a_released_answer_scrolls_with_linked_citations(
    annotator_user, login, shot
):
    """OpenAI's ResearcherBench answer 21: a 5-column markdown table whose cells cite
    sources as ``([Title](url))`` links (urls with spaces): scrollable, citations linked.
    (One of its cells holds a link the release itself cut at a "|": shown as written.)"""
    from tests.annotation.test_markdown_released import DATA

    path = DATA / "researcherbench" / "user_data" / "OpenAI.json"
    if not path.is_file():
        pytest.skip("../shared/data/researcherbench not available")
    record = next(r for r in json.loads(path.read_text()) if r["id"] == 21)
    page = ranking_of(record, "researcherbench", "OpenAI", annotator_user, login)
    box = page.locator("#report-A .para-body .table-scroll").first
    box.scroll_into_view_if_needed()
    expect(box).to_be_visible()
    m = box.evaluate(SCROLL)
    assert m["scrollWidth"] > m["clientWidth"] and m["left"] > 0, m
    shot(page, "markdown-table")
    assert box.locator("button.cite").count() >= 1  # the cells' citations, linked
    assert "](http" not in box.inner_text()
