"""Expertise triage and rubric comparison in a real browser."""

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from annotation.models import DraftVersion, ExpertiseRating, Rubric, RubricAssessment, RubricItem
from tests.builders.content import make_assignment, make_question, make_study

from .helpers import press_keys, wait_ready, wait_saved

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def triage(annotator_user):
    return make_assignment(
        annotator_user.annotator,
        make_question(make_study("Triage"), n_reports=0),
        "expertise_triage",
    )


@pytest.fixture
def comparison(annotator_user):
    question = make_question(make_study("Rubrics"), n_reports=2, rubric_items=2)
    rubric = Rubric.objects.create(question=question, kind="survey")
    RubricItem.objects.create(rubric=rubric, position=0, text="Survey item", weight=2)
    return make_assignment(annotator_user.annotator, question, "rubric_comparison")


def test_triage_keyboard_with_reload(login, annotator_user, triage, shot):
    page = login(annotator_user).new_page()
    page.goto(reverse("annotate:task", args=[triage.pk]))
    page.get_by_label("Within my expertise").focus()
    press_keys(page, "o")
    wait_saved(page)
    page.reload()
    expect(
        page.get_by_role("radio", name="Outside my expertise", exact=True).and_(
            page.locator("input[name=level]")
        )
    ).to_be_checked()
    page.get_by_role("radio", name="Outside my expertise", exact=True).and_(
        page.locator("input[name=level]")
    ).focus()
    press_keys(page, "n")
    wait_saved(page, 2)
    shot(page, "triage")
    press_keys(page, "Control+Enter")
    expect(page.get_by_text("Submitted. Thank you!")).to_be_visible()
    assert ExpertiseRating.objects.get().level == "near"


def test_rubric_comparison_complete_with_reload_and_keyboard(
    login, annotator_user, comparison, shot
):
    page = login(annotator_user).new_page()
    page.goto(reverse("annotate:task", args=[comparison.pk]))
    press_keys(page, "a", "s", "b", "g")
    page.get_by_label("What are its strengths?").first.fill("Covers the key benchmarks.")
    wait_saved(page)
    page.reload()
    expect(
        page.get_by_role("group", name="Rubric B go to rubric").get_by_label("Gold")
    ).to_be_checked()
    for group in ("Rubric A go to rubric", "Rubric B go to rubric"):
        fieldset = page.get_by_role("group", name=group)
        fieldset.get_by_label("What are its strengths?").fill("Clear criteria.")
        fieldset.get_by_label("What are its weaknesses?").fill("Misses evaluation.")
    press_keys(page, "Escape", "w")
    page.keyboard.type("B is more complete.")
    wait_saved(page)
    shot(page, "filled")
    press_keys(page, "Control+Enter")
    expect(page.get_by_text("Submitted. Thank you!")).to_be_visible()
    assert sorted(RubricAssessment.objects.values_list("medal", flat=True)) == ["gold", "silver"]


@pytest.mark.parametrize("task", ["expertise_triage", "rubric_comparison"])
def test_two_tabs_conflict(login, annotator_user, triage, comparison, task, shot):
    assignment = triage if task == "expertise_triage" else comparison
    context = login(annotator_user)
    url = reverse("annotate:task", args=[assignment.pk])
    first, second = context.new_page(), context.new_page()
    first.goto(url)
    second.goto(url)
    wait_ready(first, second)
    first.locator("input[type=radio]").first.check()
    wait_saved(first, 1)
    second.locator("input[type=radio]").nth(1).check()
    expect(second.locator("#save-status")).to_contain_text("changed in another tab")
    shot(second, "conflict")
    assert DraftVersion.objects.count() == 1
