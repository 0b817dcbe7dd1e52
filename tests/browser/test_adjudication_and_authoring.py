"""Relevance adjudication and question authoring in a real browser: complete with a reload in
the middle, keyboard only, two tabs."""

import re

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from annotation.models import DraftVersion, Question, RelevanceAdjudication
from tests.builders.content import make_adjudication, make_authoring, make_question, make_study

from .helpers import press_keys, wait_ready, wait_saved

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def adjudication(annotator_user):
    question = make_question(make_study("Adjudication"), n_reports=2, paragraphs=4)
    return make_adjudication(annotator_user.annotator, question)


@pytest.fixture
def authoring(annotator_user):
    annotator_user.annotator.expertise_fields = ["Natural language processing"]
    annotator_user.annotator.save()
    return make_authoring(annotator_user.annotator, make_study("Authoring", authoring_max=3))


def card(page, n):
    return page.locator(f"section.adj-card:has(h3#adj-{n}-h)")


def decisions():
    return [
        r.decision
        for r in RelevanceAdjudication.objects.order_by("disagreement__position", "disagreement_id")
    ]


def tab_to(page, text: str, limit: int = 60):
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.textContent.trim()") == text:
            return
    raise AssertionError(f"Tab never reached {text!r}")


def test_adjudication_complete_with_a_reload_in_the_middle(
    login, annotator_user, adjudication, shot
):
    page = login(annotator_user).new_page()
    page.goto(reverse("annotate:queue"))
    row = page.locator("tr", has_text="Relevance adjudication")
    row.get_by_role("link").click()
    page.wait_for_load_state()  # the task page's scripts have run
    expect(page.locator(".task-kind")).to_have_text("Relevance adjudication")
    expect(page.locator("section.adj-card")).to_have_count(6)
    first = card(page, 1)
    expect(first.locator(".adj-rationale")).to_contain_text("[a system] wrote paragraph 1")
    expect(first.locator(".adj-mine")).to_contain_text("U — Unnecessary")
    expect(first.locator(".adj-judge")).to_contain_text("Irrelevant")
    assert "SecretSystem" not in page.content() and "judge-x" not in page.content()
    # the disputed paragraph is marked in the report and links to its card
    page.locator("#report-A .adj-flag").first.click()
    expect(page).to_have_url(page.url.split("#")[0] + "#adj-" + page.url.split("#adj-")[-1])
    first.get_by_label("Switch to the judge's (O)").check()
    first.get_by_label("Why?").fill("The judge is right: this is background.")
    card(page, 2).get_by_label("Keep my label (O)").check()
    wait_saved(page)
    shot(page, "half")
    page.reload()
    expect(card(page, 1).get_by_label("Switch to the judge's (O)")).to_be_checked()
    expect(card(page, 1).get_by_label("Why?")).to_have_value(
        "The judge is right: this is background."
    )
    expect(card(page, 2).get_by_label("Keep my label (O)")).to_be_checked()
    for n in range(3, 7):
        card(page, n).get_by_label("Subjective: both are viable").check()
    wait_saved(page)
    page.get_by_role("button", name="Submit").click()
    expect(page.get_by_text("Submitted. Thank you!")).to_be_visible()
    shot(page, "after-submit")
    assert decisions() == ["switch", "keep"] + ["subjective"] * 4
    switched = RelevanceAdjudication.objects.get(decision="switch")
    assert switched.final_label == "O" and switched.reason.startswith("The judge is right")


def test_adjudication_keyboard_only(login, annotator_user, adjudication, shot):
    page = login(annotator_user).new_page()
    page.goto(reverse("annotate:task", args=[adjudication.pk]))
    tab_to(page, "Skip to your judgment")
    press_keys(page, "Enter")
    expect(page.locator("#panel-h")).to_be_focused()
    keys = ["s", "k", "u", "k", "s", "u"]
    for n, key in enumerate(keys, start=1):
        press_keys(page, "Tab")  # the card's link to its paragraph in the report
        expect(page.locator(":focus")).to_have_attribute("href", re.compile(r"^#p-[AB]-\d$"))
        press_keys(page, "Tab", key)  # into the group of disagreement n: pick
        press_keys(page, "Tab")  # to its reason
        if n == 1:
            page.keyboard.type("Typed without a mouse.")
    wait_saved(page)
    shot(page, "keyboard")
    press_keys(page, "Control+Enter")
    expect(page.get_by_text("Submitted. Thank you!")).to_be_visible()
    assert decisions() == ["switch", "keep", "subjective", "keep", "switch", "subjective"]
    assert RelevanceAdjudication.objects.get(reason__startswith="Typed").decision == "switch"


def test_authoring_complete_with_a_reload_in_the_middle(login, annotator_user, authoring, shot):
    page = login(annotator_user).new_page()
    page.goto(reverse("annotate:queue"))
    page.get_by_role("link", name="Write new questions in your field").click()
    page.wait_for_load_state()  # the task page's scripts have run
    expect(page.get_by_role("heading", name="Write new research questions")).to_be_visible()
    q1 = page.get_by_role("group", name="Question 1")
    q1.get_by_label("Question", exact=True).fill(
        "How does instruction tuning change memorization of pretraining data?"
    )
    q1.get_by_label("Field").fill("Natural language processing")
    wait_saved(page)
    page.reload()
    expect(q1.get_by_label("Question", exact=True)).to_have_value(
        "How does instruction tuning change memorization of pretraining data?"
    )
    q1.get_by_label("What must a good answer contain?").fill("The extraction attack papers.")
    q2 = page.get_by_role("group", name="Question 2")
    q2.get_by_label("Question", exact=True).fill("Which protocols detect benchmark contamination?")
    wait_saved(page)
    page.get_by_role("button", name="Submit").click()
    expect(page.locator("#save-status")).to_contain_text("Question 2: give its field.")
    q2.get_by_label("Field").fill("Natural language processing")
    q2.get_by_label("Subdomain").fill("Evaluation")
    wait_saved(page)
    shot(page, "filled")
    page.get_by_role("button", name="Submit").click()
    expect(page.get_by_text("Submitted. Thank you!")).to_be_visible()
    rows = list(
        Question.objects.order_by("external_id").values_list(
            "text", "field", "subdomain", "author_notes", "review", "authored_by"
        )
    )
    author = annotator_user.annotator.pk
    assert rows == [
        (
            "How does instruction tuning change memorization of pretraining data?",
            "Natural language processing", "", "The extraction attack papers.", "pending", author,
        ),
        (
            "Which protocols detect benchmark contamination?",
            "Natural language processing", "Evaluation", "", "pending", author,
        ),
    ]  # fmt: skip


def test_authoring_keyboard_only(login, annotator_user, authoring, shot):
    page = login(annotator_user).new_page()
    page.goto(reverse("annotate:task", args=[authoring.pk]))
    press_keys(page, "q")
    expect(page.locator("#aq-1-text")).to_be_focused()
    page.keyboard.type("What limits the faithfulness of chain-of-thought explanations?")
    press_keys(page, "Tab")
    page.keyboard.type("Natural language processing")
    press_keys(page, "Tab")
    page.keyboard.type("Interpretability")
    wait_saved(page)
    shot(page, "keyboard")
    press_keys(page, "Control+Enter")
    expect(page.get_by_text("Submitted. Thank you!")).to_be_visible()
    q = Question.objects.get()
    assert (q.field, q.subdomain, q.origin) == (
        "Natural language processing",
        "Interpretability",
        "expert_authored",
    )


@pytest.mark.parametrize("task", ["relevance_adjudication", "question_authoring"])
def test_two_tabs_conflict(login, annotator_user, adjudication, authoring, task, shot):
    assignment = adjudication if task == "relevance_adjudication" else authoring
    context = login(annotator_user)
    url = reverse("annotate:task", args=[assignment.pk])
    first, second = context.new_page(), context.new_page()
    first.goto(url)
    second.goto(url)
    wait_ready(first, second)
    if task == "relevance_adjudication":
        first.locator("input[type=radio]").first.check()
        wait_saved(first, 1)
        second.locator("input[type=radio]").nth(1).check()
    else:
        first.locator("#aq-1-text").fill("First tab's question?")
        wait_saved(first, 1)
        second.locator("#aq-1-text").fill("Second tab's question?")
    expect(second.locator("#save-status")).to_contain_text("changed in another tab")
    shot(second, "conflict")
    assert DraftVersion.objects.filter(assignment=assignment).count() == 1
    second.get_by_role("link", name="Reload the page").click()
    second.wait_for_load_state()  # the task page's scripts have run
    if task == "question_authoring":
        expect(second.locator("#aq-1-text")).to_have_value("First tab's question?")
