"""Rubric coverage, rubric-item quality and query quality in a real browser."""

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from annotation.models import DraftVersion, QueryQuality, RubricCoverage, RubricItemQuality
from tests.builders.content import make_assignment, make_question, make_study

from .helpers import press_keys, wait_ready, wait_saved

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def make(annotator_user, task, *, reports=2, items=3, **config):
    study = make_study(**config)
    question = make_question(study, n_reports=reports, paragraphs=3, rubric_items=items)
    return make_assignment(annotator_user.annotator, question, task)


def coverage_group(page, item: int, report: str):
    return page.locator(f"#item-{item}").get_by_role("group", name=report, exact=True)


# --- rubric coverage ---------------------------------------------------------------------


def test_coverage_complete_with_reload(login, annotator_user, shot):
    assignment = make(annotator_user, "rubric_coverage")
    page = login(annotator_user).new_page()
    page.goto(reverse("annotate:task", args=[assignment.pk]))
    coverage_group(page, 1, "Report A").get_by_label("4 Completely").check()
    coverage_group(page, 1, "Report B").get_by_label("0 Not at all").check()
    wait_saved(page)
    page.reload()
    expect(coverage_group(page, 1, "Report A").get_by_label("4 Completely")).to_be_checked()
    for item in (2, 3):
        for report in ("Report A", "Report B"):
            coverage_group(page, item, report).get_by_label("2 Moderately").check()
    wait_saved(page)
    shot(page, "filled")
    page.get_by_role("button", name="Submit").click()
    expect(page.get_by_text("Submitted. Thank you!")).to_be_visible()
    assert sorted(RubricCoverage.objects.values_list("label", flat=True)) == [0, 2, 2, 2, 2, 4]


def test_coverage_keyboard_only_binary(login, annotator_user, shot):
    assignment = make(annotator_user, "rubric_coverage", coverage_binary=True)
    page = login(annotator_user).new_page()
    page.goto(reverse("annotate:task", args=[assignment.pk]))
    coverage_group(page, 1, "Report A").get_by_label("Covered", exact=True).focus()
    keys = ["y", "n", "y", "y", "n", "n"]
    for i, key in enumerate(keys):
        press_keys(page, key)
        if i < len(keys) - 1:
            press_keys(page, "Tab")
    wait_saved(page)
    shot(page, "keyboard")
    press_keys(page, "Control+Enter")
    expect(page.get_by_text("Submitted. Thank you!")).to_be_visible()
    covered = [
        c for _, c in sorted(RubricCoverage.objects.values_list("item__position", "covered"))
    ]
    assert sorted(covered) == sorted(k == "y" for k in keys)


# --- rubric-item quality -----------------------------------------------------------------


def test_item_quality_complete_with_reload(login, annotator_user, shot):
    assignment = make(annotator_user, "rubric_item_quality", reports=0, items=2)
    page = login(annotator_user).new_page()
    page.goto(reverse("annotate:task", args=[assignment.pk]))
    item1 = page.locator("#item-1")
    item1.get_by_label("A sentence", exact=True).check()
    item1.get_by_label("Minor degradation").check()
    wait_saved(page)
    page.reload()
    expect(item1.get_by_label("A sentence", exact=True)).to_be_checked()
    item1.get_by_role("group", name="Confidence").get_by_label("5").check()
    item1.get_by_label("Unclear").check()
    item2 = page.locator("#item-2")
    item2.get_by_label("A paragraph or more").check()
    item2.get_by_label("No change").check()
    item2.get_by_role("group", name="Confidence").get_by_label("3").check()
    wait_saved(page)
    shot(page, "filled")
    page.get_by_role("button", name="Submit").click()
    expect(page.get_by_text("Submitted. Thank you!")).to_be_visible()
    rows = {r.item.position: r for r in RubricItemQuality.objects.select_related("item")}
    assert (rows[0].emphasis, rows[0].necessity, rows[0].confidence, rows[0].flags) == (
        "sentence",
        "minor_degradation",
        5,
        ["unclear"],
    )
    assert rows[1].necessity == "no_change"


def test_item_quality_keyboard_only(login, annotator_user):
    assignment = make(annotator_user, "rubric_item_quality", reports=0, items=1)
    page = login(annotator_user).new_page()
    page.goto(reverse("annotate:task", args=[assignment.pk]))
    page.locator("#item-1").get_by_label("None", exact=True).focus()
    press_keys(page, "4", "Tab", "6", "Tab", "2", "Tab", "Space")
    wait_saved(page)
    press_keys(page, "Control+Enter")
    expect(page.get_by_text("Submitted. Thank you!")).to_be_visible()
    row = RubricItemQuality.objects.get()
    assert (row.emphasis, row.necessity, row.confidence, row.flags) == (
        "few_sentences",
        "significant_degradation",
        2,
        ["difficult"],
    )


# --- query quality -----------------------------------------------------------------------


def test_query_quality_complete_with_reload_and_keyboard(login, annotator_user, shot):
    make(annotator_user, "query_quality", reports=0, items=0)
    page = login(annotator_user).new_page()
    page.goto(reverse("annotate:queue"))
    page.get_by_role("link", name="How do fine-tuning").click()
    page.wait_for_load_state()  # the task page's scripts have run
    page.get_by_role("group", name="Clarity").get_by_label("1").focus()
    press_keys(page, "4", "Tab", "5")
    wait_saved(page)
    page.reload()
    expect(page.get_by_role("group", name="Naturalness").get_by_label("5")).to_be_checked()
    page.get_by_role("group", name="Relevance to a researcher's need").get_by_label("1").focus()
    press_keys(page, "3", "Tab", "s")
    press_keys(page, "w")
    page.keyboard.type("Clear and natural.")
    wait_saved(page)
    shot(page, "filled")
    press_keys(page, "Control+Enter")
    expect(page.get_by_text("Submitted. Thank you!")).to_be_visible()
    qq = QueryQuality.objects.get()
    assert (qq.clarity, qq.naturalness, qq.relevance, qq.variability, qq.comment) == (
        4,
        5,
        3,
        "semi_open",
        "Clear and natural.",
    )


# --- two tabs, each task -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("task", "first_change", "second_change"),
    [
        ("rubric_coverage", ("#item-1", "1 Barely"), ("#item-2", "3 Mostly")),
        ("rubric_item_quality", ("#item-1", "A paragraph or more"), ("#item-2", "No change")),
        ("query_quality", ("main", "Closed"), ("main", "Open-ended")),
    ],
)
def test_two_tabs_conflict(login, annotator_user, shot, task, first_change, second_change):
    assignment = make(annotator_user, task, reports=2 if task == "rubric_coverage" else 0)
    context = login(annotator_user)
    url = reverse("annotate:task", args=[assignment.pk])
    first, second = context.new_page(), context.new_page()
    first.goto(url)
    second.goto(url)
    wait_ready(first, second)
    first.locator(first_change[0]).get_by_label(first_change[1]).first.check()
    wait_saved(first, 1)
    second.locator(second_change[0]).get_by_label(second_change[1]).first.check()
    expect(second.locator("#save-status")).to_contain_text("changed in another tab")
    shot(second, "conflict")
    assert DraftVersion.objects.count() == 1
