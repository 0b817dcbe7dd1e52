"""Issue 15: pairwise and medal pages say "Report A (left) / Report B (right)": on wide screens
(≥ 1200 px) the reports stand side by side and scroll on their own; below, they are stacked
and the answer panel is reached without scrolling past every report (800 px high window)."""

import pytest
from django.urls import reverse

from tests.builders.content import make_assignment, make_question, make_study

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

BOXES = """() => [...document.querySelectorAll('.report-list > .report')].map(r => {
  const b = r.getBoundingClientRect();
  return {x: b.x, y: b.y + window.scrollY, w: b.width, scrolls: r.scrollHeight > r.clientHeight};
})"""
PANEL_TOP = "() => document.getElementById('panel-h').getBoundingClientRect().y + window.scrollY"


@pytest.mark.parametrize("task, n_reports", [("pairwise", 2), ("medal_ranking", 3)])
def test_side_by_side_when_wide_stacked_when_narrow(login, annotator_user, shot, task,
                                                     n_reports):  # fmt: skip
    question = make_question(make_study(), n_reports=n_reports, paragraphs=30)
    a = make_assignment(annotator_user.annotator, question, task)
    context = login(annotator_user)
    page = context.new_page()
    page.goto(reverse("annotate:task", args=[a.pk]))

    page.set_viewport_size({"width": 1400, "height": 800})
    boxes = page.evaluate(BOXES)
    shot(page, "wide")
    assert len(boxes) == n_reports
    assert len({round(b["y"]) for b in boxes}) == 1, boxes  # one row
    assert [b["x"] for b in boxes] == sorted(b["x"] for b in boxes)  # A left of B (of C)
    assert all(b["scrolls"] for b in boxes), boxes  # each report scrolls on its own
    # scrolling report A leaves report B where it was
    page.evaluate("document.querySelector('#report-A').scrollTop = 400")
    assert page.evaluate("document.querySelector('#report-B').scrollTop") == 0
    assert page.evaluate(PANEL_TOP) < 800  # the panel is on screen

    page.set_viewport_size({"width": 1000, "height": 800})
    page.evaluate("window.scrollTo(0, 0)")
    boxes = page.evaluate(BOXES)
    shot(page, "narrow")
    assert len({round(b["x"]) for b in boxes}) == 1, boxes  # stacked
    bottom_of_reports = page.evaluate(
        "() => document.querySelector('.report-list .report:last-child')"
        ".getBoundingClientRect().bottom + window.scrollY"
    )
    panel_top = page.evaluate(PANEL_TOP)
    # reachable within about one screen of scrolling, well before the end of the reports
    assert panel_top < 1.5 * 800, panel_top
    assert panel_top < bottom_of_reports
