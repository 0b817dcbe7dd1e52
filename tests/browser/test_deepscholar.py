"""The DeepScholar-Bench label tasks in a real browser: each completed with the keyboard
alone (one unit at a time, a label's key moves on) with a reload in the middle; two tabs."""

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from annotation.annotate.page import TaskPage
from annotation.annotate.registry import SPECS
from annotation.models import DeepScholarLabel, Draft, DraftVersion
from tests.annotation.test_annotate_deepscholar import KEYS, deepscholar_question
from tests.builders.content import make_assignment, make_study

from .helpers import press_keys, wait_ready, wait_saved

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def make(annotator_user, key):
    question = deepscholar_question(make_study())
    return make_assignment(annotator_user.annotator, question, key)


@pytest.mark.parametrize("key", KEYS)
def test_keyboard_complete_with_a_reload(login, annotator_user, shot, key):
    a = make(annotator_user, key)
    spec = SPECS[key]
    units = spec.units(TaskPage(a, a.annotator))
    letters = [spec.options[n % len(spec.options)][2] for n in range(len(units))]
    page = login(annotator_user).new_page()
    page.goto(reverse("annotate:task", args=[a.pk]))
    cards = page.locator("[data-ds-card]")
    expect(cards.nth(0)).to_be_visible()
    if len(units) > 1:
        expect(cards.nth(1)).to_be_hidden()  # one unit at a time
    cards.nth(0).locator("input").first.focus()
    press_keys(page, letters[0])
    expect(cards.nth(0).locator(f'input[data-key="{letters[0]}"]')).to_be_checked()
    wait_saved(page)
    page.reload()
    expect(cards.nth(0).locator(f'input[data-key="{letters[0]}"]')).to_be_checked()
    if len(units) > 1:  # the first unit still to label is shown after a reload
        expect(cards.nth(1)).to_be_visible()
        expect(cards.nth(0)).to_be_hidden()
        cards.nth(1).locator("input").first.focus()
        for n, letter in enumerate(letters[1:], start=1):
            expect(cards.nth(n)).to_be_visible()
            press_keys(page, letter)
    press_keys(page, "k")  # back one unit
    expect(cards.nth(max(len(units) - 2, 0))).to_be_visible()
    wait_saved(page)
    shot(page, key)
    press_keys(page, "Control+Enter")
    expect(page.get_by_text("Submitted. Thank you!")).to_be_visible()
    got = {(lab.report_id, lab.unit): lab.label for lab in DeepScholarLabel.objects.all()}
    assert got == {(u.report_pk, u.key): spec.options[n % len(spec.options)][0]
                   for n, u in enumerate(units)}  # fmt: skip


def test_two_tabs_conflict(login, annotator_user, shot):
    a = make(annotator_user, "nugget_importance")
    context = login(annotator_user)
    url = reverse("annotate:task", args=[a.pk])
    first, second = context.new_page(), context.new_page()
    first.goto(url)
    second.goto(url)
    wait_ready(first, second)
    first.locator("[data-ds-card]").nth(0).get_by_label("Vital", exact=True).check()
    wait_saved(first, 1)
    second.locator("[data-ds-card]").nth(0).get_by_label("Non-vital").check()
    expect(second.locator("#save-status")).to_contain_text("changed in another tab")
    shot(second, "conflict")
    assert DraftVersion.objects.count() == 1
    assert "non_vital" not in str(DraftVersion.objects.get().payload)


@pytest.mark.parametrize("key", ["nugget_importance", "nugget_support"])
def test_label_keys_work_as_soon_as_the_page_loads(login, annotator_user, key):
    """The help says "Type a label's key; the next unit follows": a key typed right after
    the page loads, with nothing focused or a button focused, labels the unit shown (it was
    ignored until a label was clicked); a key typed in a text field stays there."""
    a = make(annotator_user, key)
    spec = SPECS[key]
    first, second = spec.options[0][2], spec.options[1][2]
    page = login(annotator_user).new_page()
    page.goto(reverse("annotate:task", args=[a.pk]))
    wait_ready(page)
    cards = page.locator("[data-ds-card]")
    expect(cards.nth(0)).to_be_visible()
    assert page.evaluate("document.activeElement === document.body")
    # a text field: its keys are typing, not labels (the flag dialog's note is one)
    page.evaluate(
        "const t = document.createElement('textarea'); t.id = 'probe';"
        "document.querySelector('.ds-nav').append(t);"
    )
    page.locator("#probe").focus()
    page.keyboard.type(first + second)
    expect(page.locator("#probe")).to_have_value(first + second)
    expect(cards.nth(0).locator("input:checked")).to_have_count(0)
    page.evaluate("document.activeElement.blur()")
    press_keys(page, first)
    expect(cards.nth(0).locator(f'input[data-key="{first}"]')).to_be_checked()
    expect(cards.nth(1)).to_be_visible()  # the next unit follows
    page.locator("[data-ds-prev]").focus()  # focus on a button, not in a label group
    press_keys(page, second)
    expect(cards.nth(1).locator(f'input[data-key="{second}"]')).to_be_checked()
    expect(cards.nth(0).locator(f'input[data-key="{first}"]')).to_be_checked()
    wait_saved(page)
    labels = Draft.objects.get(assignment=a).payload["labels"]
    units = spec.units(TaskPage(a, a.annotator))
    assert labels == {units[0].id: spec.options[0][0], units[1].id: spec.options[1][0]}
