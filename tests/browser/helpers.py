"""Shared steps of the task-page browser tests."""

from playwright.sync_api import expect


def wait_saved(page, version: int | None = None):
    """Wait until every edit is saved: the form's data-state is "saved" (set by annotate.js
    once the last autosave answered with no edit since), at ``version`` if given."""
    expect(page.locator("#task-form")).to_have_attribute("data-state", "saved")
    status = page.locator("#save-status")
    expect(status).to_contain_text("Draft saved" if version is None else f"version {version}")


def press_keys(page, *keys: str):
    """Press ``keys`` once the page's scripts have run: a link's click returns when the next
    page is committed, before its deferred scripts (annotate.js's shortcuts) are there."""
    page.wait_for_load_state()
    for key in keys:
        page.keyboard.press(key)
