"""Playwright on Debian's Chromium against pytest-django's live server.

Screenshots go to test-artifacts/ (git-ignored) so a run can be inspected afterwards.
"""

import os
import time
from pathlib import Path

import pytest

# Playwright's sync API runs an event loop in this thread; the ORM calls made by the tests
# around it are still synchronous.
os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
VIEWPORT = {"width": 1280, "height": 800}


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian's Chromium is not installed (apt-get install -y chromium)")
    from playwright.sync_api import expect, sync_playwright

    # Limits on waiting, not timings: a test waits for what it expects up to these, so a
    # loaded machine (.ci/run runs the other passes beside this one) slows it, not fails it.
    expect.set_options(timeout=15_000)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield browser
        browser.close()


@pytest.fixture
def login(browser, live_server):
    """login(user) -> a logged-in browser context at 1280x800."""
    from django.test import Client

    contexts = []

    def _login(user):
        client = Client()
        client.force_login(user)
        context = browser.new_context(viewport=VIEWPORT, base_url=live_server.url)
        context.add_cookies(
            [
                {
                    "name": "sessionid",
                    "value": client.cookies["sessionid"].value,
                    "url": live_server.url,
                }
            ]
        )
        context.set_default_timeout(20_000)
        contexts.append(context)
        return context

    yield _login
    for context in contexts:
        context.close()
    # A page may still send its last request while it closes; let the live server finish it
    # before the test database is flushed.
    time.sleep(0.3)


@pytest.fixture
def shot(request):
    """shot(page, name): a full-page screenshot kept under test-artifacts/."""
    ARTIFACTS.mkdir(exist_ok=True)

    def _shot(page, name: str):
        path = ARTIFACTS / f"{request.node.name}-{name}.png".replace("/", "_")
        page.screenshot(path=str(path), full_page=False)
        return path

    return _shot


@pytest.fixture
def demo(settings, researcher_user):
    """The demo study, read by a researcher of it (a researcher reads only their studies),
    with the report cache empty before and after. DEBUG while the demo is built, as
    ``make run`` builds it."""
    from django.core.cache import cache
    from django.core.management import call_command

    from annotation.models import Study

    cache.clear()
    settings.DEBUG = True
    call_command("demo", verbosity=0)
    settings.DEBUG = False
    study = Study.objects.get()
    study.researchers.add(researcher_user)
    yield study
    cache.clear()
