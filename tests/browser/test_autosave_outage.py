"""The database goes away while an annotator works: nothing typed is lost.

Real outages (tests/outage.py: the server cannot reach the database at all, so the save
and even the page answer 503), plus one where only the save endpoint is unreachable
(Playwright routing), so that a reload during the outage still shows the page.
"""

import json

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from annotation.models import Draft
from tests.builders.content import make_assignment, make_question, make_study
from tests.outage import database_outage

from .helpers import wait_saved

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
OUTAGE = "Not saved — the server is unavailable, retrying…"
BACKGROUND = "() => getComputedStyle(document.getElementById('save-status')).backgroundColor"


@pytest.fixture
def assignment(annotator_user):
    return make_assignment(
        annotator_user.annotator, make_question(make_study(), n_reports=3), "medal_ranking"
    )


def draft_answers(assignment) -> tuple[int, dict]:
    draft = Draft.objects.get(assignment=assignment)
    return draft.version, draft.payload


def medal(page, report: str, value: str):
    return page.get_by_role("group", name=f"Report {report}").get_by_label(value)


def kept(page) -> dict | None:
    """What the page keeps in localStorage for this assignment."""
    raw = page.evaluate(
        "() => Object.entries(localStorage).filter(([k]) => k.startsWith('concord:unsaved:'))"
    )
    return json.loads(raw[0][1]) if raw else None


def test_outage_message_retry_and_reload_keep_every_answer(login, annotator_user, assignment, shot):
    page = login(annotator_user).new_page()
    saves = []
    page.on("request", lambda r: saves.append(r.url) if r.url.endswith("/save/") else None)
    page.goto(reverse("annotate:task", args=[assignment.pk]))
    medal(page, "A", "Gold").check()
    wait_saved(page, 1)
    status = page.locator("#save-status")

    # 1. The database is down while the annotator changes an answer: clear message, retries.
    with database_outage():
        before = len(saves)
        medal(page, "B", "Silver").check()
        expect(status).to_contain_text(OUTAGE)
        expect(status).to_have_attribute("aria-live", "polite")
        expect(page.locator("#task-form")).to_have_attribute("data-state", "unavailable")
        shot(page, "outage")
        page.wait_for_timeout(3_500)  # the first retries (after 1 s, 2 s) fail too
        assert len(saves) - before >= 2, saves
        assert kept(page)["version"] == "1"
    # ...and once it is back the retry saves, without the annotator doing anything.
    expect(status).to_contain_text("Saved.", timeout=20_000)
    wait_saved(page, 2)
    assert sorted(draft_answers(assignment)[1]["medals"].values()) == ["gold", "silver"]
    assert kept(page) is None  # saved: the browser's copy is gone

    # 2. Down again; the annotator types, then reloads: the page itself is unavailable...
    with database_outage():
        medal(page, "C", "Bronze").check()
        page.get_by_label("Ranking reasoning").fill("A is the most complete.")
        expect(status).to_contain_text(OUTAGE)
        page.reload()
        expect(
            page.get_by_role("heading", name="Concord is temporarily unavailable")
        ).to_be_visible()
        shot(page, "outage-page")
    # ...and the next load, with the database back, restores and saves what was typed.
    page.reload()
    expect(medal(page, "C", "Bronze")).to_be_checked()
    expect(page.get_by_label("Ranking reasoning")).to_have_value("A is the most complete.")
    wait_saved(page, 3)
    version, answers = draft_answers(assignment)
    assert version == 3 and answers["reasoning"] == "A is the most complete."
    assert sorted(answers["medals"].values()) == ["bronze", "gold", "silver"]
    assert kept(page) is None


def test_a_reload_while_saves_fail_restores_the_input_and_keeps_retrying(
    login, annotator_user, assignment
):
    page = login(annotator_user).new_page()
    page.goto(reverse("annotate:task", args=[assignment.pk]))
    medal(page, "A", "Gold").check()
    wait_saved(page, 1)
    # The save endpoint is unreachable (the network drops the request); pages still load.
    # Playwright cannot route the leave-page beacon, so it is made to fail the same way.
    page.context.route("**/save/", lambda route: route.abort("connectionrefused"))
    page.add_init_script("navigator.sendBeacon = () => false;")
    page.evaluate("navigator.sendBeacon = () => false;")
    page.get_by_label("Ranking reasoning").fill("Typed while the server was away.")
    status = page.locator("#save-status")
    expect(status).to_contain_text(OUTAGE)
    page.reload()
    expect(page.get_by_label("Ranking reasoning")).to_have_value("Typed while the server was away.")
    expect(medal(page, "A", "Gold")).to_be_checked()
    expect(status).to_contain_text(OUTAGE)  # the restored answers are being saved, still failing
    assert draft_answers(assignment) == (1, draft_answers(assignment)[1])
    page.context.unroute("**/save/")
    expect(status).to_contain_text("Saved.", timeout=20_000)
    wait_saved(page, 2)
    assert draft_answers(assignment)[1]["reasoning"] == "Typed while the server was away."
    assert kept(page) is None


def test_answers_given_before_the_scripts_ran_are_saved(login, annotator_user, assignment):
    """The form shows before its deferred scripts run (a slow connection, a fast typist):
    what was entered in between is an edit like any other once they run, not lost."""
    page = login(annotator_user).new_page()
    held = []
    # annotate.js is not answered until the answers are in
    page.route("**/js/annotate*.js", lambda route: held.append(route))
    page.goto(reverse("annotate:task", args=[assignment.pk]), wait_until="commit")
    medal(page, "A", "Gold").check()
    page.get_by_label("Ranking reasoning").fill("Typed before the page was ready.")
    assert not page.locator("#task-form").get_attribute("data-state")  # no script ran yet
    held[0].continue_()
    wait_saved(page, 1)
    version, answers = draft_answers(assignment)
    assert version == 1 and list(answers["medals"].values()) == ["gold"]
    assert answers["reasoning"] == "Typed before the page was ready."


def test_signing_out_in_another_tab_loses_nothing(login, annotator_user, assignment):
    """Signed out in a second tab while the task is open: the page's saves and its submit
    are refused (401), the page says so and keeps every answer in the browser, and once the
    annotator signs in again (a real login, which gives a new CSRF token) the retry saves
    them without anything else done. Before, the save was redirected to the login page,
    whose 200 the page took for a save: the kept answers were dropped and the login form
    was drawn in the side panel."""
    context = login(annotator_user)
    page = context.new_page()
    page.goto(reverse("annotate:task", args=[assignment.pk]))
    medal(page, "A", "Gold").check()
    wait_saved(page, 1)
    other = context.new_page()
    other.goto(reverse("annotate:queue"))
    other.get_by_role("button", name="Log out").click()
    other.wait_for_url("**/accounts/login/**")

    status = page.locator("#save-status")
    medal(page, "B", "Silver").check()
    page.get_by_label("Ranking reasoning").fill("Typed while signed out.")
    expect(status).to_contain_text("you are signed out")
    expect(page.locator("#task-form")).to_have_attribute("data-state", "signed-out")
    expect(status.get_by_role("link", name="Sign in again")).to_have_attribute("target", "_blank")
    assert not page.locator("#save-status input[name=password]").count()  # no login form
    page.locator("#submit-btn").click()
    expect(status).to_contain_text("Not submitted — you are signed out")
    assert (
        kept(page)["answers"] and ["reasoning", "Typed while signed out."] in kept(page)["answers"]
    )
    assert draft_answers(assignment)[0] == 1  # nothing reached the server

    other.locator("#id_username").fill(annotator_user.username)
    other.locator("#id_password").fill(annotator_user.username)
    other.locator("#id_password").press("Enter")
    other.wait_for_url(lambda url: "/accounts/login/" not in url)
    expect(status).to_contain_text("Saved.", timeout=20_000)
    wait_saved(page, 2)
    version, answers = draft_answers(assignment)
    assert answers["reasoning"] == "Typed while signed out."
    assert sorted(answers["medals"].values()) == ["gold", "silver"]
    assert kept(page) is None


def test_cookies_cleared_mid_task_say_not_saved_and_lose_nothing(login, annotator_user, assignment):
    """The browser's cookies are cleared while the task is open: the CSRF check refuses the
    autosave and the submit (403). Before, the box said "Saving…" forever; now it says
    "Not saved" (and "Not submitted") with what to do, keeps the answers in the browser, and
    once the annotator has signed in again the retry saves them."""
    context = login(annotator_user)
    page = context.new_page()
    refused = []
    page.on("response", lambda r: refused.append(r.url) if r.status == 403 else None)
    page.goto(reverse("annotate:task", args=[assignment.pk]))
    medal(page, "A", "Gold").check()
    wait_saved(page, 1)
    context.clear_cookies()

    status = page.locator("#save-status")
    page.get_by_label("Ranking reasoning").fill("Typed after the cookies went.")
    expect(status).to_contain_text("Not saved — the server refused this save")
    expect(status).not_to_contain_text("Saving…")
    assert refused and refused[0].endswith("/save/")
    expect(status.get_by_role("link", name="Sign in again")).to_have_attribute("target", "_blank")
    assert ["reasoning", "Typed after the cookies went."] in kept(page)["answers"]
    page.locator("#submit-btn").click()
    expect(status).to_contain_text("Not submitted — the server refused this save")
    assert draft_answers(assignment)[0] == 1  # nothing reached the server

    other = context.new_page()
    other.goto(reverse("login"))
    other.locator("#id_username").fill(annotator_user.username)
    other.locator("#id_password").fill(annotator_user.username)
    other.locator("#id_password").press("Enter")
    other.wait_for_url(lambda url: "/accounts/login/" not in url)
    expect(status).to_contain_text("Saved.", timeout=40_000)
    wait_saved(page, 2)
    assert draft_answers(assignment)[1]["reasoning"] == "Typed after the cookies went."
    assert kept(page) is None


def test_a_server_error_on_save_says_not_saved_and_keeps_the_answers(
    login, annotator_user, assignment
):
    """A save answered 500 (not an outage: the server is there but failed): "Not saved",
    the error, reload to try again; the answers kept in the browser."""
    page = login(annotator_user).new_page()
    page.goto(reverse("annotate:task", args=[assignment.pk]))
    medal(page, "A", "Gold").check()
    wait_saved(page, 1)
    page.route("**/save/", lambda route: route.fulfill(status=500, body="Server Error"))
    page.get_by_label("Ranking reasoning").fill("Typed while the server failed.")
    status = page.locator("#save-status")
    expect(status).to_contain_text("Not saved — the server could not save this (error 500)")
    expect(status).to_contain_text("reload the page")
    assert ["reasoning", "Typed while the server failed."] in kept(page)["answers"]
    page.unroute("**/save/")
    page.reload()
    expect(page.get_by_label("Ranking reasoning")).to_have_value("Typed while the server failed.")


def test_a_submit_that_got_no_answer_says_not_submitted_until_submitted(
    login, annotator_user, assignment
):
    """Submit is pressed while the network drops the request (the tester's aborted submit,
    a 502 alike): the box says "Not submitted", the answers are saved by the retries, and
    every saved state says the task is still not submitted until Submit is pressed again.
    Before, the retry saved and drew a green "Saved. Draft saved · version 1": nothing said
    the submit had failed and the task stayed unsubmitted."""
    from annotation.models import Assignment

    page = login(annotator_user).new_page()
    page.goto(reverse("annotate:task", args=[assignment.pk]))
    for report, value in (("A", "Gold"), ("B", "Silver"), ("C", "Bronze")):
        medal(page, report, value).check()
    page.get_by_label("Ranking reasoning").fill("A covers every aspect.")
    wait_saved(page, 1)
    green = page.evaluate(BACKGROUND)
    page.context.route("**/submit/", lambda route: route.abort("connectionrefused"))
    page.context.route("**/save/", lambda route: route.abort("connectionrefused"))
    status = page.locator("#save-status")
    page.locator("#submit-btn").click()
    expect(status).to_contain_text("Not submitted — the server is unavailable")
    page.wait_for_timeout(1_500)  # a retry (after 1 s) fails too: the message stays
    expect(status).to_contain_text("Not submitted")
    page.context.unroute("**/save/")
    # the retry goes through: a save, and the box still says the task is not submitted
    expect(status).to_contain_text("Not submitted yet", timeout=20_000)
    expect(status).to_contain_text("press Submit again")
    # not in the green of a finished save
    expect(page.locator("#task-form")).to_have_attribute("data-submit-pending", "1")
    assert page.evaluate(BACKGROUND) != green
    page.get_by_label("Ranking reasoning").fill("A covers every aspect; B misses one.")
    wait_saved(page)
    expect(status).to_contain_text("Not submitted yet")  # each save while it is pending
    assignment.refresh_from_db()
    assert assignment.status != Assignment.Status.SUBMITTED
    page.reload()  # a reload still says so (remembered in this browser)
    expect(status).to_contain_text("Not submitted yet")
    expect(page.locator("#task-form")).to_have_attribute("data-submit-pending", "1")
    page.context.unroute("**/submit/")
    page.locator("#submit-btn").click()
    expect(page.get_by_text("Submitted. Thank you!")).to_be_visible()
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.SUBMITTED
    assert not page.evaluate(
        "() => Object.keys(localStorage).filter((k) => k.startsWith('concord:submit-pending:'))"
    )  # submitted: nothing remembered
