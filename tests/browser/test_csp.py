"""The content security policy in a real browser: every role's main pages load and work with
no CSP violation (no "Refused to ..." in the console, no securitypolicyviolation event)."""

import os

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.core.management import call_command
from django.urls import reverse
from playwright.sync_api import expect

from annotation.models import Study
from tests.builders.content import make_assignment, make_claims, make_question, make_study

from .helpers import wait_saved

os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SLOW = 60_000

# The task pages of one question with hostile content: every task the reader and panels
# share (authoring has no question and is covered by its own tests).
TASKS = (
    "medal_ranking",
    "pairwise",
    "metric_wise",
    "rubric_coverage",
    "query_quality",
    "rubric_item_quality",
    "expertise_triage",
    "rubric_comparison",
    "claim_check",
)

RECORD_VIOLATIONS = """
window.__csp = [];
document.addEventListener('securitypolicyviolation',
  e => window.__csp.push(e.violatedDirective + ' blocked ' + (e.blockedURI || 'inline')));
"""


class Watch:
    """Everything the browser said about CSP on the pages of one context."""

    def __init__(self, context):
        self.console: list[str] = []
        context.add_init_script(RECORD_VIOLATIONS)
        context.on("console", self._console)
        self.context = context

    def _console(self, msg):
        text = msg.text
        if "Content Security Policy" in text or "Refused to" in text:
            self.console.append(text)

    def page(self):
        return self.context.new_page()

    def visit(self, page, url: str, status: int = 200, timeout: int = SLOW):
        response = page.goto(url, timeout=timeout)
        assert response.status == status, f"{url}: {response.status}"
        assert response.headers.get("content-security-policy"), f"{url}: no CSP header"
        self.check(page, url)

    def check(self, page, where: str):
        events = page.evaluate("window.__csp")
        assert not events, f"{where}: CSP violations {events}"
        assert not self.console, f"{where}: console {self.console}"


@pytest.fixture
def demo(settings):
    cache.clear()
    settings.DEBUG = True
    call_command("demo", verbosity=0)
    settings.DEBUG = False
    yield Study.objects.get(name__isnull=False)
    cache.clear()


def test_login_form_and_annotator_pages(browser, live_server, login, annotator_user):
    study = make_study("CSP study")
    question = make_question(study, n_reports=3, paragraphs=3, hostile=True, rubric_items=3)
    make_claims(question)
    assignments = {
        task: make_assignment(annotator_user.annotator, question, task, position=i)
        for i, task in enumerate(TASKS)
    }

    # the real login form (the throttle sits in front of it)
    context = browser.new_context(base_url=live_server.url)
    watch = Watch(context)
    page = watch.page()
    watch.visit(page, reverse("login"))
    page.fill("#id_username", annotator_user.username)
    page.fill("#id_password", annotator_user.username)
    page.click("button[type=submit]")
    expect(page.locator(".who")).to_have_text(annotator_user.annotator.pseudonym)
    watch.check(page, "after login")

    watch.visit(page, reverse("annotate:queue"))
    for task, assignment in assignments.items():
        watch.visit(page, reverse("annotate:task", args=[assignment.pk]))
        assert page.evaluate("window.__pwned") is None, task
        expect(page.locator("#save-status")).to_be_visible()
    watch.visit(page, reverse("annotate:guidelines", args=["medal_ranking"]))
    watch.visit(page, reverse("my_history"))

    # the pages still work: a medal autosaves through htmx, the dialogs open
    watch.visit(page, reverse("annotate:task", args=[assignments["medal_ranking"].pk]))
    page.get_by_role("group", name="Report A").get_by_label("Gold").check()
    wait_saved(page)
    # htmx injects no indicator <style> (the CSP refuses inline styles): off in its config
    assert page.evaluate("htmx.config.includeIndicatorStyles") is False
    assert page.evaluate("document.querySelectorAll('style').length") == 0
    page.get_by_role("button", name="Flag or skip").click()
    expect(page.locator("#flag-dialog")).to_be_visible()
    page.keyboard.press("Escape")
    page.keyboard.press("h")
    expect(page.locator("#guidelines")).to_be_visible()
    page.keyboard.press("Escape")
    cite = page.locator("#report-A .cite[data-kind=snippet]").first
    cite.hover()
    expect(page.locator("#report-A .cite-tip").first).to_be_visible()
    watch.check(page, "medal ranking in use")
    context.close()


def test_admin_and_researcher_pages(login, demo):
    admin = User.objects.get(username="admin")
    researcher = User.objects.get(username="researcher")

    watch = Watch(login(admin))
    page = watch.page()
    for url in (
        reverse("home"),
        reverse("studies:list"),
        reverse("studies:detail", args=[demo.pk]),
        reverse("studies:plan", args=[demo.pk]) + "?task=medal_ranking",
        reverse("studies:progress", args=[demo.pk]),
        reverse("studies:questions", args=[demo.pk]),
        reverse("studies:history", args=[demo.pk]),
        reverse("studies:review", args=[demo.pk]),
        reverse("studies:guidelines", args=[demo.pk]),
        reverse("studies:invite"),
        reverse("judge-run-list", args=[demo.pk]),
        reverse("admin:index"),
        reverse("admin:annotation_study_changelist"),
        reverse("admin:annotation_import"),
        reverse("admin:annotation_study_change", args=[demo.pk]),
    ):
        watch.visit(page, url)

    watch = Watch(login(researcher))
    page = watch.page()
    watch.visit(page, reverse("metaeval:report", args=[demo.pk]))
    expect(page.locator("#figure-calibration-preference svg")).to_be_visible()
    # the figure keeps its drawing: presentation attributes, which the CSP does not govern
    fill = page.eval_on_selector(
        "#figure-calibration-preference svg rect.background", "p => getComputedStyle(p).fill"
    )
    assert fill == "rgb(255, 255, 255)"
    stroke = page.eval_on_selector(
        "#figure-calibration-preference svg path.curve", "p => getComputedStyle(p).stroke"
    )
    assert stroke == "rgb(179, 84, 30)"  # the judge's colour, #b3541e
    page.select_option("#opt-ties", "partial")
    page.wait_for_url("**ties=partial**", timeout=SLOW)
    expect(page.locator("#figure-calibration-preference svg")).to_be_visible(timeout=SLOW)
    watch.check(page, "report after an htmx selector change")
    # no style element was injected by htmx; its indicator is styled by concord.css
    assert page.evaluate("document.querySelectorAll('style').length") == 0
    assert page.evaluate("htmx.config.includeIndicatorStyles") is False
    opacity = page.eval_on_selector("#report-loading", "e => getComputedStyle(e).opacity")
    assert opacity == "0"
