"""Pairwise preference in a real browser: complete with a reload, two tabs, keyboard only."""

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from annotation.models import DraftVersion, PairwisePreference
from tests.builders.content import make_assignment, make_question, make_study

from .helpers import press_keys, wait_ready, wait_saved

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def assignment(annotator_user):
    study = make_study()
    return make_assignment(annotator_user.annotator, make_question(study, n_reports=2), "pairwise")


def test_complete_with_a_reload_in_the_middle(login, annotator_user, assignment, shot):
    page = login(annotator_user).new_page()
    page.goto(reverse("annotate:queue"))
    page.get_by_role("link", name="How do fine-tuning").click()
    page.wait_for_load_state()  # the task page's scripts have run
    pair = page.get_by_role("group", name="1. Report A (left) vs Report B (right)")
    pair.get_by_label("Report B better").check()
    wait_saved(page)
    page.reload()
    expect(pair.get_by_label("Report B better")).to_be_checked()
    pair.get_by_label("Reason").fill("B cites the key benchmark papers.")
    wait_saved(page)
    shot(page, "filled")
    page.get_by_role("button", name="Submit").click()
    expect(page.get_by_text("Submitted. Thank you!")).to_be_visible()
    pref = PairwisePreference.objects.get()
    assert (pref.choice, pref.reason) == ("right", "B cites the key benchmark papers.")


def test_missing_reason_is_refused(login, annotator_user, assignment):
    page = login(annotator_user).new_page()
    page.goto(reverse("annotate:task", args=[assignment.pk]))
    page.get_by_label("Tie").check()
    wait_saved(page)
    page.get_by_role("button", name="Submit").click()
    expect(page.locator("#save-status")).to_contain_text("Not submitted")
    expect(page.locator("#save-status")).to_contain_text("a short reason is required")
    assert not PairwisePreference.objects.exists()


def test_two_tabs_conflict(login, annotator_user, assignment, shot):
    context = login(annotator_user)
    url = reverse("annotate:task", args=[assignment.pk])
    first, second = context.new_page(), context.new_page()
    first.goto(url)
    second.goto(url)
    wait_ready(first, second)
    first.get_by_label("Reason").fill("First tab's reason.")
    wait_saved(first, 1)
    second.get_by_label("Both bad").check()
    expect(second.locator("#save-status")).to_contain_text("changed in another tab")
    shot(second, "conflict")
    assert DraftVersion.objects.get().payload["pairs"]
    assert "both_bad" not in str(DraftVersion.objects.get().payload)


def test_keyboard_only(login, annotator_user, assignment, shot):
    page = login(annotator_user).new_page()
    page.goto(reverse("annotate:task", args=[assignment.pk]))
    press_keys(page, "1", "t")
    expect(page.get_by_label("Tie")).to_be_checked()
    press_keys(page, "1", "l")
    expect(page.get_by_label("Report A better")).to_be_checked()
    press_keys(page, "1", "w")
    expect(page.get_by_label("Reason")).to_be_focused()
    page.keyboard.type("A is more complete.")
    wait_saved(page)
    press_keys(page, "Escape", "?")
    expect(page.locator("#shortcuts")).to_be_visible()
    shot(page, "shortcuts")
    press_keys(page, "Escape", "Control+Enter")
    expect(page.get_by_text("Submitted. Thank you!")).to_be_visible()
    assert PairwisePreference.objects.get().choice == "left"


#: Each pair's legend and its fieldset: where the legend's lines are, where the fieldset's
#: top border is drawn, and where the first choice starts.
LEGENDS = """() => [...document.querySelectorAll('fieldset.pair-row')].map((f) => {
  const legend = f.querySelector('legend');
  const range = document.createRange();
  range.selectNodeContents(legend);
  const lines = [...range.getClientRects()].map((r) => [r.top, r.bottom]);
  const border = parseFloat(getComputedStyle(f).borderTopWidth);
  const box = f.getBoundingClientRect(), chip = f.querySelector('.chip').getBoundingClientRect();
  const shown = legend.getBoundingClientRect();
  // a legend on the border (not floated) has the border drawn through its middle
  const onBorder = getComputedStyle(legend).float === 'none';
  const borderTop = onBorder ? shown.top + (shown.height - border) / 2 : box.top;
  return {lines, borderBottom: borderTop + border, legendBottom: shown.bottom, chipTop: chip.top};
})"""


def test_a_legend_that_wraps_stays_off_the_border(login, annotator_user):
    """At 1280 px "1. Report A (left) vs Report B (right)" wrapped in the side panel and its
    second line, "(right)", sat on the fieldset's top border (drawn through the middle of a
    legend). The legend is the fieldset's first line inside its border, however many lines
    it takes, and the choices follow below it."""
    study = make_study()
    question = make_question(study, n_reports=3)
    a = make_assignment(annotator_user.annotator, question, "pairwise")
    page = login(annotator_user).new_page()
    page.goto(reverse("annotate:task", args=[a.pk]))
    expect(page.locator("fieldset.pair-row").first).to_be_visible()
    page.evaluate(
        "() => document.querySelectorAll('fieldset.pair-row legend').forEach((l) => "
        "{ l.textContent += ' (and a longer label that surely wraps)'; })"
    )
    rows = page.evaluate(LEGENDS)
    assert rows
    for row in rows:
        assert len({round(top) for top, _ in row["lines"]}) > 1, row  # it wraps
        assert all(top >= row["borderBottom"] - 0.5 for top, _ in row["lines"]), row
        assert row["chipTop"] >= row["legendBottom"] - 0.5, row
