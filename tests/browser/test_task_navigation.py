"""On a phone (375 px) the DeepScholar task's Previous / Next buttons are touch targets;
after Submit the browser's address is the next task's."""

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from tests.annotation.test_annotate_deepscholar import deepscholar_question
from tests.builders.content import make_assignment, make_question, make_study

from .helpers import press_keys, wait_ready, wait_saved

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_previous_and_next_are_at_least_40px_tall_at_375px(login, annotator_user):
    a = make_assignment(annotator_user.annotator, deepscholar_question(make_study()),
                        "nugget_support")  # fmt: skip
    page = login(annotator_user).new_page()
    page.set_viewport_size({"width": 375, "height": 740})
    page.goto(reverse("annotate:task", args=[a.pk]))
    wait_ready(page)
    for which in ("[data-ds-prev]", "[data-ds-next]"):
        box = page.locator(which).bounding_box()
        assert box["height"] >= 40 and box["width"] >= 40, (which, box)


def test_after_submit_the_address_is_the_next_tasks(login, annotator_user):
    study = make_study()
    first = make_assignment(annotator_user.annotator, make_question(study), "query_quality", 0)
    second = make_assignment(annotator_user.annotator, make_question(study), "query_quality", 1)
    page = login(annotator_user).new_page()
    page.goto(reverse("annotate:task", args=[first.pk]))
    wait_ready(page)
    # as tests/browser/test_every_task_feeds_analysis.py fills a query-quality task
    page.get_by_role("group", name="Clarity").get_by_label("1").focus()
    press_keys(page, "1", "Tab", "1")
    page.get_by_role("group", name="Relevance to a researcher's need").get_by_label("1").focus()
    press_keys(page, "1", "Tab", "s")
    wait_saved(page)
    page.get_by_role("button", name="Submit").click()
    expect(page.get_by_text("Submitted. Thank you!")).to_be_visible()
    expect(page).to_have_url(f"{page.url.split('/annotate/')[0]}"
                             f"{reverse('annotate:task', args=[second.pk])}")  # fmt: skip
