"""Shared steps of the task-page browser tests."""

from pathlib import Path

from playwright.sync_api import expect


def wait_saved(page, version: int | None = None):
    """Wait until every edit is saved: the form's data-state is "saved" (set by annotate.js
    once the last autosave answered with no edit since), at ``version`` if given."""
    expect(page.locator("#task-form")).to_have_attribute("data-state", "saved")
    status = page.locator("#save-status")
    expect(status).to_contain_text("Draft saved" if version is None else f"version {version}")


def wait_ready(*pages):
    """Wait until annotate.js has finished its start on each task page (the form's
    data-ready): before that, a page can still take up answers another tab of the same
    browser kept in localStorage a moment ago (restoreKept), which is right for answers
    kept from an earlier visit but makes a two-tab test race its own set-up."""
    for page in pages:
        expect(page.locator("#task-form")).to_have_attribute("data-ready", "1")


def press_keys(page, *keys: str):
    """Press ``keys`` once the page's scripts have run: a link's click returns when the next
    page is committed, before its deferred scripts (annotate.js's shortcuts) are there."""
    page.wait_for_load_state()
    for key in keys:
        page.keyboard.press(key)


def upload(page, kind: str, path, *, format: str = "", **fields):
    """Upload ``path`` through the study page's import form (``kind``, ``format``, the other
    fields: a Path is a second file, text is typed) and wait until it is imported."""
    form = page.locator("#import-form")
    form.locator("#id_kind").select_option(kind)
    if format:
        form.locator("#id_format").select_option(format)
    for name, value in fields.items():
        if isinstance(value, Path):
            form.locator(f"#id_{name}").set_input_files(str(value))
        else:
            form.locator(f"#id_{name}").fill(value)
    form.locator("#id_file").set_input_files(str(path))
    form.locator("button[type=submit]").click()
    expect(page.locator(".messages")).to_contain_text("imported")


def label_keys(assignment, shift: int = 0) -> list[str]:
    """The key of one label per unit of a DeepScholar label task (``SPECS[task].options``),
    cycling through the labels from ``shift``: one key press per unit."""
    from annotation.annotate.page import TaskPage
    from annotation.annotate.registry import SPECS

    spec = SPECS[assignment.task]
    n_units = len(spec.units(TaskPage(assignment, assignment.annotator)))
    return [spec.options[(n + shift) % len(spec.options)][2] for n in range(n_units)]


def label_units(page, keys: list[str]):
    """Label a DeepScholar task page's units with the keyboard, ``keys[n]`` in card n (a
    label's key labels the unit and moves to the next card); no submit."""
    wait_ready(page)
    cards = page.locator("[data-ds-card]")
    cards.nth(0).locator("input").first.focus()
    for n, key in enumerate(keys):
        expect(cards.nth(n)).to_be_visible()
        press_keys(page, key)
