"""Skip and flag, and reopening, with the mouse in a real browser (issue 15)."""

import re

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from annotation.models import Assignment, Flag
from tests.builders.content import make_assignment, make_question, make_study

from .helpers import wait_saved

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_flag_and_skip_then_admin_sees_it(login, annotator_user, admin_user, shot):
    study = make_study()
    first = make_assignment(annotator_user.annotator, make_question(study), "medal_ranking", 0)
    second = make_assignment(annotator_user.annotator, make_question(study), "medal_ranking", 1)
    page = login(annotator_user).new_page()
    page.goto(reverse("annotate:task", args=[first.pk]))
    page.get_by_role("button", name="Flag or skip").click()
    dialog = page.get_by_role("dialog", name="Flag a problem or skip this task")
    expect(dialog).to_be_visible()
    dialog.get_by_label("Broken report").check()
    dialog.get_by_label("About").select_option(label="Report B")
    dialog.get_by_label("Note").fill("Stops mid-sentence.")
    shot(page, "flag-dialog")
    dialog.get_by_role("button", name="Flag and skip this task").click()
    expect(page).to_have_url(re.compile(f"/annotate/{second.pk}/$"))
    expect(page.get_by_text("Skipped and flagged")).to_be_visible()
    flag = Flag.objects.get()
    assert flag.skipped and flag.note == "Stops mid-sentence." and flag.report is not None

    admin = login(admin_user).new_page()
    admin.goto(reverse("studies:detail", args=[study.pk]))
    admin.get_by_role("link", name="Flags and revisions").click()
    row = admin.locator("#flags tbody tr").first
    expect(row).to_contain_text("Broken report")
    expect(row).to_contain_text("Stops mid-sentence.")
    expect(row).to_contain_text(flag.report.system.name)  # admins may see the system
    shot(admin, "flags-list")


def test_author_reopens_and_resubmits(login, annotator_user, shot):
    study = make_study()
    study.config = {"reopen_hours": 4}
    study.save()
    a = make_assignment(annotator_user.annotator, make_question(study), "medal_ranking")
    page = login(annotator_user).new_page()
    page.goto(reverse("annotate:task", args=[a.pk]))
    for label, medal in (("Report A", "Gold"), ("Report B", "Silver"), ("Report C", "Bronze")):
        page.get_by_role("group", name=label).get_by_label(medal).check()
    page.get_by_label("Ranking reasoning").fill("First.")
    wait_saved(page)
    page.get_by_role("button", name="Submit").click()
    expect(page.get_by_text("Submitted. Thank you!")).to_be_visible()
    page.goto(reverse("annotate:task", args=[a.pk]))
    page.get_by_role("button", name="Reopen my answers for revision").click()
    expect(page.get_by_text("You reopened this judgment")).to_be_visible()
    page.get_by_label("Ranking reasoning").fill("Second thoughts.")
    wait_saved(page)
    shot(page, "reopened")
    page.get_by_role("button", name="Submit").click()
    expect(page.get_by_text("Submitted. Thank you!")).to_be_visible()
    a.refresh_from_db()
    assert a.status == Assignment.Status.SUBMITTED
    assert list(a.draft_versions.values_list("kind", flat=True)).count("submit") == 2
