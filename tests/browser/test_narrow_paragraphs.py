"""A phone's window (375 px) on the tasks that put controls beside each paragraph.

A tester on a DeepScholar metric-wise task saw each paragraph's relevance buttons (R / U /
O) beside it squeeze its text into a column about 15 characters wide: at 375 px the
paragraph kept its number's column and the buttons' column. There the text takes the
report's whole width (its number at the start of its first line, the buttons below it, as
touch targets of at least 40 px) and nothing scrolls sideways. The same rule serves every
paragraph with something after its text (the relevance adjudication's flag).

The heading of a DeepScholar question is its paper's title (Question.label), never the
whole multi-paragraph abstract in bold: a long untitled question is cut with "…" as the
DeepScholar label pages cut it, and its whole text is one click away."""

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from annotation.models import Paragraph, bump_content_version
from tests.builders.content import make_adjudication, make_assignment, make_question, make_study

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTH = 375
TITLE = "TaxAgent: How Large Language Model Designs Fiscal Policy"
ABSTRACT = (
    "Write a Related Works section for an academic paper given the paper's abstract. "
    "Here is the paper abstract:\nEconomic inequality is a global challenge, intensifying "
    "disparities in education, healthcare, and social stability. Traditional systems like "
    "the U.S. federal income tax reduce inequality but lack adaptability.\n\nAlthough models "
    "like the Saez Optimal Taxation adjust dynamically, they fail to address taxpayer "
    "heterogeneity and irrational behavior. This study introduces TaxAgent, a novel "
    "integration of large language models (LLMs) with agent-based modeling (ABM) to design "
    "adaptive tax policies, with a 1.9$\\times$ gain."
)
#: A paragraph as long as a related-work paragraph, so its box's width is what it shows.
LONG_PARAGRAPH = (
    "Agent-based models of taxation simulate heterogeneous households whose labour and "
    "saving respond to the schedule they face [1]. Later work trains the planner itself "
    "with reinforcement learning, learning schedules that trade equality for productivity "
    "better than the Saez formula in simulated economies [2]."
)

#: The page's width past the window, and what sticks out (for the failure message).
OVERFLOW = """() => ({scroll: document.scrollingElement.scrollWidth, inner: window.innerWidth,
  out: [...document.querySelectorAll('body *')]
    .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 0.5
      && !el.closest('.table-scroll, .scroll-x, dialog:not([open]), details:not([open])'))
    .slice(0, 8).map((el) => el.tagName + '.' + el.className + ' ' + Math.round(el.getBoundingClientRect().right))})"""


def deepscholar_question(study, *, title: str = TITLE):
    question = make_question(study, n_reports=2, paragraphs=3)
    question.text, question.title = ABSTRACT, title
    question.save(update_fields=["text", "title"])
    reports = list(question.reports.values_list("pk", flat=True))
    Paragraph.objects.filter(report__in=reports).update(text=LONG_PARAGRAPH, anchors=[])
    bump_content_version(reports)
    return question


def phone_page(login, user, assignment):
    page = login(user).new_page()
    page.set_viewport_size({"width": WIDTH, "height": 800})
    page.goto(reverse("annotate:task", args=[assignment.pk]))
    expect(page.locator("#task-form")).to_have_attribute("data-ready", "1")
    return page


def assert_no_sideways_scroll(page):
    got = page.evaluate(OVERFLOW)
    assert got["scroll"] <= got["inner"], got


def assert_paragraphs_take_the_width(page, controls: str):
    """Every paragraph's text box is at least 80% of the window wide, and its controls
    (``controls``) lie below its text, each at least 40 px square, none past the window."""
    paras = page.locator(".para")
    assert paras.count() >= 2
    for i in range(paras.count()):
        para = paras.nth(i)
        body = para.locator(".para-body").bounding_box()
        assert body["width"] >= 0.8 * WIDTH, (i, body)
        for box in [c.bounding_box() for c in para.locator(controls).all()]:
            assert box["y"] >= body["y"] + body["height"] - 1, (i, box, body)
            assert box["width"] >= 40 and box["height"] >= 40, (i, box)
            assert box["x"] >= 0 and box["x"] + box["width"] <= WIDTH, (i, box)


def test_metric_wise_relevance_buttons_go_below_the_paragraph(login, annotator_user, shot):
    question = deepscholar_question(make_study())
    a = make_assignment(annotator_user.annotator, question, "metric_wise")
    page = phone_page(login, annotator_user, a)
    assert_no_sideways_scroll(page)
    assert_paragraphs_take_the_width(page, ".rel")
    # the buttons still work by touch: a tap on U labels the paragraph U
    first = page.locator(".para").first
    first.locator(".rel--U").click()
    expect(first.locator('.rel--U input[value="U"]')).to_be_checked()
    page.evaluate("document.querySelector('.para').scrollIntoView()")
    shot(page, "paragraphs")
    # the heading is the paper's title; the abstract is there, folded, not in bold
    heading = page.locator("h1.question")
    expect(heading).to_have_text(f"Question: {TITLE}")
    whole = page.locator(".question-whole")
    expect(whole).to_contain_text("Economic inequality is a global challenge")
    expect(whole.locator(".question-text")).to_be_hidden()
    whole.locator("summary").click()
    expect(whole.locator(".question-text")).to_be_visible()
    assert_no_sideways_scroll(page)
    shot(page, "metric-wise")


def test_an_untitled_long_question_is_cut_in_its_heading(login, annotator_user):
    """A DeepScholar question with no title (the nuggetizer's import gives none) is named by
    its text: cut with "…" at about 200 characters, as the DeepScholar label pages cut it."""
    question = deepscholar_question(make_study(), title="")
    a = make_assignment(annotator_user.annotator, question, "metric_wise")
    page = phone_page(login, annotator_user, a)
    text = page.locator("h1.question").inner_text()
    assert text.endswith("…") and len(text) <= 220, text
    assert "Saez" not in text
    expect(page.locator(".question-whole")).to_contain_text("heterogeneity and irrational")
    assert_no_sideways_scroll(page)


def test_a_short_question_is_its_whole_heading(login, annotator_user):
    question = make_question(make_study(), n_reports=2)
    a = make_assignment(annotator_user.annotator, question, "pairwise")
    page = phone_page(login, annotator_user, a)
    expect(page.locator("h1.question")).to_have_text(f"Question: {question.text}")
    expect(page.locator(".question-whole")).to_have_count(0)
    assert_no_sideways_scroll(page)


def test_the_relevance_adjudication_flag_goes_below_the_paragraph(login, annotator_user):
    """The other task with something after a paragraph's text: its flag, below the text."""
    a = make_adjudication(annotator_user.annotator, deepscholar_question(make_study()))
    page = phone_page(login, annotator_user, a)
    assert_no_sideways_scroll(page)
    flagged = page.locator(".para:has(.adj-flag)").first
    body = flagged.locator(".para-body").bounding_box()
    flag = flagged.locator(".adj-flag").bounding_box()
    assert body["width"] >= 0.8 * WIDTH and flag["y"] >= body["y"] + body["height"] - 1
