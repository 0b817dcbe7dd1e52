"""Metric-wise evaluation in a real browser: relevance while reading, claims by highlighting,
citation credits, ratings, medals; a reload in the middle; two tabs; keyboard only."""

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from annotation.models import (
    ClaimAssessment,
    DraftVersion,
    HumanMetricScore,
    MedalRanking,
    Paragraph,
    bump_content_version,
)
from annotation.rendering import report_label
from tests.builders.content import make_assignment, make_question, make_study

from .helpers import press_keys, wait_ready, wait_saved

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DIMENSIONS = [
    "Answer recall", "Citations", "Answer quality", "Content", "Informativeness", "Background",
    "Organization", "Flow",
]  # fmt: skip


@pytest.fixture
def assignment(annotator_user):
    study = make_study(claims_min=2, claims_max=3)
    question = make_question(study, n_reports=2, paragraphs=4)
    return make_assignment(annotator_user.annotator, question, "metric_wise")


def select_claim(page, letter: str, number: int):
    """Drag over the paragraph's text up to (not including) its citation marker."""
    body = page.locator(f"#p-{letter}-{number} .para-body")
    body.scroll_into_view_if_needed()  # a mark on the other report may have scrolled it away
    cite = body.locator(".cite").first
    box, cbox = body.bounding_box(), cite.bounding_box()
    y = cbox["y"] + cbox["height"] / 2
    page.mouse.move(box["x"] + 1, y)
    page.mouse.down()
    page.mouse.move(cbox["x"] - 2, y, steps=8)
    page.mouse.up()
    page.get_by_role("button", name="Add claim").click()


def panel(page, letter):
    return page.locator(f"#panel-{letter}")


def rate_all(page, letter, value="4"):
    for dim in DIMENSIONS:
        panel(page, letter).get_by_role("group", name=dim, exact=True).get_by_label(
            value, exact=True
        ).check()


def judge_claim(claim, support_label):
    claim.get_by_label(support_label).check()
    claim.get_by_label("Fully cover").check()


def scores_by_label(assignment):
    labels = {pk: report_label(i) for i, pk in enumerate(assignment.report_order)}
    return {
        (labels[r], m): v
        for r, m, v in HumanMetricScore.objects.values_list("report_id", "metric", "value")
    }


def test_complete_with_a_reload_in_the_middle(login, annotator_user, assignment, shot):
    page = login(annotator_user).new_page()
    page.goto(reverse("annotate:task", args=[assignment.pk]))
    # relevance while reading
    page.locator("#p-A-2 .rel--U").click()
    page.locator("#p-B-3 .rel--O").click()
    # claims by highlighting: paragraph 1 cites a snippet, paragraph 2 a title-only source
    select_claim(page, "A", 1)
    claims_a = panel(page, "A").locator(".claim")
    expect(claims_a).to_have_count(1)
    expect(claims_a.first.locator(".claim-text")).to_contain_text(
        "Paragraph 1 of the answer discusses memorization in detail"
    )
    expect(claims_a.first.locator(".claim-count-n")).to_have_text("1")
    judge_claim(claims_a.first, "Supports (1)")
    select_claim(page, "A", 2)
    judge_claim(claims_a.nth(1), "Title likely supports (½)")
    wait_saved(page)
    shot(page, "claims")

    page.reload()
    expect(page.locator("#p-A-2 .rel--U input")).to_be_checked()
    expect(claims_a).to_have_count(2)
    expect(claims_a.nth(1).get_by_label("Title likely supports (½)")).to_be_checked()

    select_claim(page, "B", 1)
    select_claim(page, "B", 3)  # a bare citation: automatically 0
    claims_b = panel(page, "B").locator(".claim")
    judge_claim(claims_b.first, "Does not (0)")
    claims_b.nth(1).get_by_label("Partially cover").check()
    expect(claims_b.nth(1)).to_contain_text("Nothing to check (no link, title or snippet): 0")
    rate_all(page, "A", "5")
    rate_all(page, "B", "2")
    page.get_by_role("group", name="Report A go to report").get_by_label("Gold").check()
    page.get_by_role("group", name="Report B go to report").get_by_label("Silver").check()
    page.get_by_label("Ranking reasoning").fill("A's claims are better supported.")
    wait_saved(page)
    shot(page, "filled")
    page.get_by_role("button", name="Submit").click()
    expect(page.get_by_text("Submitted. Thank you!")).to_be_visible()

    scores = scores_by_label(assignment)
    assert scores[("Report A", "answer_relevance")] == pytest.approx(3.5 / 4)
    assert scores[("Report A", "answer_recall")] == 1.0
    assert scores[("Report A", "citation_precision")] == pytest.approx(1.5 / 2)
    assert scores[("Report A", "citation_recall")] == 1.0
    assert scores[("Report B", "answer_relevance")] == pytest.approx(3 / 4)
    assert scores[("Report B", "answer_recall")] == 0.25
    assert scores[("Report B", "citation_precision")] == 0.0
    assert scores[("Report B", "citation_recall")] == 0.75
    assert ClaimAssessment.objects.count() == 4
    assert MedalRanking.objects.get().reasoning.startswith("A's claims")


def test_remove_a_claim(login, annotator_user, assignment):
    page = login(annotator_user).new_page()
    page.goto(reverse("annotate:task", args=[assignment.pk]))
    select_claim(page, "A", 1)
    select_claim(page, "A", 2)
    wait_saved(page)
    # the two selections may be saved in one autosave or two (how fast the page is): the
    # removal is the save after whichever came last
    saved = int(page.locator("#save-status").get_attribute("data-version"))
    panel(page, "A").locator(".claim").first.get_by_role("button", name="Remove claim").click()
    expect(panel(page, "A").locator(".claim")).to_have_count(1)
    expect(panel(page, "A").locator(".claim .claim-n")).to_have_text("1")
    wait_saved(page, saved + 1)
    page.reload()
    expect(panel(page, "A").locator(".claim")).to_have_count(1)
    expect(panel(page, "A").locator(".claim-para")).to_have_text("2")


def test_the_same_selection_added_twice_is_one_claim(login, annotator_user, assignment):
    """ "Add claim" on the same selection twice made two identical claims, both counted
    towards the claims asked for; the page now says it is already added."""
    page = login(annotator_user).new_page()
    page.goto(reverse("annotate:task", args=[assignment.pk]))
    select_claim(page, "A", 1)
    expect(panel(page, "A").locator(".claim")).to_have_count(1)
    select_claim(page, "A", 1)
    expect(page.locator("#shortcut-hint")).to_contain_text("already added (claim 1)")
    expect(panel(page, "A").locator(".claim")).to_have_count(1)


def test_a_claim_taken_from_a_list_keeps_its_items_apart(login, annotator_user, assignment):
    """ "+" on a citation in a list's second item took "…seed instructions Use LLMs to…":
    the selection's spaces were folded and the items ran together. Each item, and the line
    before the list, stays on a line of its own (the text is still the paragraph's)."""
    report = assignment.report_order[0]
    text = "Steps:\n\n- Collect seed instructions\n- Use LLMs to evolve them [1]."
    at = text.index("[1]")
    Paragraph.objects.filter(report_id=report, number=1).update(
        text=text, anchors=[[at, at + 3, "[1]"]]
    )
    bump_content_version([report])
    page = login(annotator_user).new_page()
    page.goto(reverse("annotate:task", args=[assignment.pk]))
    page.locator("#p-A-1 .cite").first.focus()
    press_keys(page, "+")
    claim = panel(page, "A").locator(".claim").last
    expect(claim.locator(".claim-text")).to_have_text(
        "Steps:\nCollect seed instructions\nUse LLMs to evolve them"
    )
    value = claim.locator(".claim-text-input").input_value()
    assert value == "Steps:\nCollect seed instructions\nUse LLMs to evolve them"
    assert claim.locator(".claim-text").evaluate("e => e.innerText").count("\n") == 2


def test_two_tabs_conflict(login, annotator_user, assignment, shot):
    context = login(annotator_user)
    url = reverse("annotate:task", args=[assignment.pk])
    first, second = context.new_page(), context.new_page()
    first.goto(url)
    second.goto(url)
    wait_ready(first, second)
    select_claim(first, "A", 1)
    wait_saved(first, 1)
    second.locator("#p-A-1 .rel--O").click()
    expect(second.locator("#save-status")).to_contain_text("changed in another tab")
    shot(second, "conflict")
    assert DraftVersion.objects.count() == 1
    labels = DraftVersion.objects.get().payload["relevance"].values()
    assert all(set(by_number.values()) == {"R"} for by_number in labels)


def test_keyboard_only(login, annotator_user, assignment, shot):
    page = login(annotator_user).new_page()
    page.goto(reverse("annotate:task", args=[assignment.pk]))
    # relevance: j moves through paragraphs, u / o mark them
    press_keys(page, "j", "j", "u", "j", "o")
    expect(page.locator("#p-A-2 .rel--U input")).to_be_checked()
    expect(page.locator("#p-A-3 .rel--O input")).to_be_checked()
    # claims: focus a citation marker and press + to take the sentences ending at it
    for letter, numbers in (("A", (1, 2)), ("B", (1, 2))):
        for n in numbers:
            page.locator(f"#p-{letter}-{n} .cite").first.focus()
            press_keys(page, "+")
            claim = panel(page, letter).locator(".claim").last
            expect(claim.locator("input[type=radio]").first).to_be_focused()
            press_keys(page, "Space")  # first support option
            for _ in range(claim.locator(".claim-cite input[type=radio]").count() - 1):
                press_keys(page, "Tab")  # leaves the support radio group
                break
            claim.get_by_label("Fully cover").focus()
            press_keys(page, "Space")
    # ratings: Tab into a group, type the digit
    for letter in ("A", "B"):
        for dim in DIMENSIONS:
            group = panel(page, letter).get_by_role("group", name=dim, exact=True)
            group.get_by_label("1", exact=True).focus()
            press_keys(page, "4")
            expect(group.get_by_label("4", exact=True)).to_be_checked()
    page.locator("#submit-btn").focus()
    page.evaluate("document.activeElement.blur()")
    press_keys(page, "a", "g", "b", "s", "w")
    page.keyboard.type("A is better supported.")
    wait_saved(page)
    shot(page, "keyboard")
    press_keys(page, "Control+Enter")
    expect(page.get_by_text("Submitted. Thank you!")).to_be_visible()
    scores = scores_by_label(assignment)
    assert scores[("Report A", "answer_relevance")] == pytest.approx(2.5 / 4)
    assert scores[("Report A", "citation_precision")] == pytest.approx(1.5 / 2)
    assert scores[("Report A", "answer_recall")] == 0.75
