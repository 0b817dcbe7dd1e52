"""Claim citation check in a real browser: keyboard only, reload, skip, two tabs."""

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from annotation.models import ClaimCheck, DraftVersion
from tests.builders.content import make_assignment, make_claims, make_question, make_study

from .helpers import press_keys, wait_ready, wait_saved

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def assignment(annotator_user):
    question = make_question(make_study("Claims"), n_reports=2)
    make_claims(question)
    return make_assignment(annotator_user.annotator, question, "claim_check")


def test_complete_keyboard_only_with_reload(login, annotator_user, assignment, shot):
    page = login(annotator_user).new_page()
    page.goto(reverse("annotate:task", args=[assignment.pk]))
    claim1 = page.get_by_role("region", name="Claim 1 go to claim")
    claim1.get_by_role("group", name="Is every aspect").get_by_label("Yes").focus()
    press_keys(page, "y", "Tab", "n")
    wait_saved(page)
    shot(page, "claim-1")
    page.reload()
    expect(claim1.get_by_role("group", name="Is every aspect").get_by_label("Yes")).to_be_checked()
    page.get_by_role("region", name="Claim 2 go to claim").get_by_label("Skip this claim").focus()
    press_keys(page, "Space")
    wait_saved(page)
    press_keys(page, "Control+Enter")
    expect(page.get_by_text("Submitted. Thank you!")).to_be_visible()
    checks = sorted(ClaimCheck.objects.values_list("skipped", "fully_supported"))
    assert checks == [(False, True), (True, None)]
    assert ClaimCheck.objects.get(skipped=False).citation_supports == {"[1]": False}


def test_two_tabs_conflict(login, annotator_user, assignment, shot):
    context = login(annotator_user)
    url = reverse("annotate:task", args=[assignment.pk])
    first, second = context.new_page(), context.new_page()
    first.goto(url)
    second.goto(url)
    wait_ready(first, second)
    first.get_by_label("Skip this claim").first.check()
    wait_saved(first, 1)
    second.get_by_label("Skip this claim").nth(1).check()
    expect(second.locator("#save-status")).to_contain_text("changed in another tab")
    shot(second, "conflict")
    assert DraftVersion.objects.count() == 1
