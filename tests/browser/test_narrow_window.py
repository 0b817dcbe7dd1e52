"""A 375 px window (a phone): the task page and the queue do not scroll sideways. Before,
the task head's buttons ("Guidelines", "Shortcuts") ended at x=641, off-screen, the question
was squeezed into about 150 px, and the queue's table made the page 451 px wide. A table
may scroll inside its own box; the page itself may not."""

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from tests.builders.content import make_assignment, make_question, make_study

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTH = 375
#: What sticks out past the window's right edge, for the failure message.
OVERFLOW = """(width) => [...document.querySelectorAll('body *')]
  .filter((el) => el.getBoundingClientRect().right > width + 0.5 && !el.closest('.table-scroll, .scroll-x, dialog:not([open])'))
  .slice(0, 8).map((el) => el.tagName + '.' + el.className + ' ' + Math.round(el.getBoundingClientRect().right))"""

#: Cells of the column headed ``name`` (and its header) that end past the right edge of the
#: window or of the box the table scrolls in: what a reader cannot see without scrolling.
CLIPPED = """(name) => [...document.querySelectorAll('table')].flatMap((table) => {
  const box = (table.closest('.scroll-x, .table-scroll') || table).getBoundingClientRect();
  const right = Math.min(box.right, window.innerWidth) + 0.5;
  const col = [...table.querySelectorAll('thead th')].findIndex((th) => th.textContent.trim() === name);
  if (col < 0) return ['no column ' + name];
  const cells = [table.querySelectorAll('thead th')[col],
    ...[...table.querySelectorAll('tbody tr')].map((tr) => tr.children[col])];
  return cells.filter((c) => c && (c.getBoundingClientRect().right > right || c.getBoundingClientRect().left < box.left - 0.5))
    .map((c) => c.textContent.trim() + ' ' + Math.round(c.getBoundingClientRect().right) + ' > ' + Math.round(right));
})"""


def narrow_page(login, user):
    page = login(user).new_page()
    page.set_viewport_size({"width": WIDTH, "height": 740})
    return page


def page_width(page) -> int:
    return page.evaluate("() => document.documentElement.scrollWidth")


@pytest.mark.parametrize("task", ["medal_ranking", "pairwise", "metric_wise"])
def test_the_task_page_fits_a_375px_window(login, annotator_user, task):
    question = make_question(make_study(), n_reports=3)
    question.text = "How do scaling laws for language models change with data quality?"
    question.save()
    a = make_assignment(annotator_user.annotator, question, task)
    page = narrow_page(login, annotator_user)
    page.goto(reverse("annotate:task", args=[a.pk]))
    expect(page.locator("#task-form")).to_have_attribute("data-ready", "1")
    assert page_width(page) <= WIDTH, page.evaluate(OVERFLOW, WIDTH)
    for name in ("Guidelines", "Shortcuts"):
        box = page.get_by_role("button", name=name).bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= WIDTH, name
    assert page.locator("h1.question").bounding_box()["width"] >= WIDTH * 0.7


def test_the_queue_fits_a_375px_window(login, annotator_user, shot):
    study = make_study()
    for position in range(3):
        make_assignment(
            annotator_user.annotator, make_question(study, n_reports=3), "medal_ranking", position
        )
    # the DeepScholar tasks a tester's queue held (long task names), started and timed
    for position, task in enumerate(("reference_importance", "entailment", "nugget_support")):
        a = make_assignment(
            annotator_user.annotator, make_question(study, n_reports=2), task, 3 + position
        )
        a.status, a.seconds_on_task = "in_progress", 125 + position
        a.save(update_fields=["status", "seconds_on_task"])
    page = narrow_page(login, annotator_user)
    page.goto(reverse("annotate:queue"))
    expect(page.locator("table").first).to_be_visible()
    assert page_width(page) <= WIDTH, page.evaluate(OVERFLOW, WIDTH)
    # Every "Time on task" cell is in view, not clipped by the table's scroll box (the page
    # fitted only because the table scrolled inside its box, its last column out of sight).
    clipped = page.evaluate(CLIPPED, "Time on task")
    assert clipped == [], clipped
    expect(page.get_by_text("2 min").first).to_be_visible()
    shot(page, "queue")


def test_a_released_report_with_a_wide_table_fits_a_375px_window(
    scholarqa_dir, annotator_user, login
):
    """A released 7-column table (ScholarQA-CS2 sqa, expert-written) and its long source
    titles: the table scrolls in its own box, the page does not."""
    import json

    from tests.browser.test_wide_tables import ranking_of

    records = json.loads((scholarqa_dir / "reports" / "expert_written" / "sqa.json").read_text())
    page = ranking_of(records[2], "scholarqa", "sqa", annotator_user, login)
    page.set_viewport_size({"width": WIDTH, "height": 740})
    page.reload()
    expect(page.locator("#task-form")).to_have_attribute("data-ready", "1")
    assert page.locator("#report-A .table-scroll").count()
    assert page_width(page) <= WIDTH, page.evaluate(OVERFLOW, WIDTH)


#: A released exemplar reference's address (DeepScholar's recovered_citations.csv) and a
#: reference list a report keeps in its text, as long as the addresses testers saw.
LONG_URL = "https://complexityhandbook.uni-hohenheim.de/fileadmin/einrichtungen/complexityhandbook/AXTELL_Robert.pdf"  # fmt: skip
LISTED_URL = "https://dictionary.cambridge.org/dictionary/english/organizational-behaviour-and-management-practices"  # fmt: skip


def test_long_reference_addresses_wrap_in_a_375px_window(login, annotator_user):
    """The organization task's exemplar references and a report's reference list showed
    their addresses unbroken: the page was 670 px wide at 375 px. They wrap."""
    from annotation.models import ExemplarReference, Paragraph, bump_content_version
    from tests.annotation.test_annotate_deepscholar import deepscholar_question

    question = deepscholar_question(make_study())
    ExemplarReference.objects.create(
        question=question, key="long", position=9, title="Agent-based modeling", url=LONG_URL
    )
    reports = list(question.reports.values_list("pk", flat=True))
    Paragraph.objects.filter(report__in=reports, number=1).update(
        text=f"**References**\n\n1. Cambridge Dictionary. {LISTED_URL}\n2. <{LONG_URL}>",
        anchors=[],
    )
    bump_content_version(reports)
    a = make_assignment(annotator_user.annotator, question, "organization")
    page = narrow_page(login, annotator_user)
    page.goto(reverse("annotate:task", args=[a.pk]))
    expect(page.locator("#task-form")).to_have_attribute("data-ready", "1")
    expect(page.locator("#exemplar")).to_contain_text("uni-hohenheim")
    expect(page.locator(".para-body").first).to_contain_text("dictionary.cambridge.org")
    assert page_width(page) <= WIDTH, page.evaluate(OVERFLOW, WIDTH)
