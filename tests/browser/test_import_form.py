"""The study page's import form lists only the chosen kind's formats (an admin's finding:
all 16 formats were offered whatever the kind, a mismatch met only as an error after the
upload). Without JavaScript the full list stays (and the import's error after a mismatch).
The options as rendered: tests/annotation/test_import_form_formats.py."""

from __future__ import annotations

import os

import pytest
from django.test import Client
from playwright.sync_api import expect

from annotation.importers.registry import FORMATS, format_names
from annotation.models import Study

os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

OFFERED = "os => os.filter(o => !o.hidden && !o.disabled).map(o => o.value)"


def test_the_format_list_follows_the_kind(login, browser, live_server, admin_user):
    study = Study.objects.create(name="Import form")
    page = login(admin_user).new_page()
    page.goto(f"/studies/{study.pk}/")
    form = page.locator("#import-form")
    kind, fmt = form.locator("#id_kind"), form.locator("#id_format")

    for name in ("judge_scores", "questions", "pairwise", "reports"):
        kind.select_option(name)
        shown = page.eval_on_selector_all("#id_format option", OFFERED)
        assert sorted(shown) == sorted(["", *format_names(name)]), name
    # a format of the new kind too stays chosen; one that is not is cleared
    kind.select_option("reports")
    fmt.select_option("researcherbench")
    kind.select_option("questions")
    expect(fmt).to_have_value("researcherbench")
    kind.select_option("judge_scores")
    fmt.select_option("researchqa-coverage")
    kind.select_option("questions")
    expect(fmt).to_have_value("")

    # without JavaScript: every format, as before
    client = Client()
    client.force_login(admin_user)
    plain = browser.new_context(java_script_enabled=False, base_url=live_server.url)
    plain.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value,
                        "url": live_server.url}])  # fmt: skip
    try:
        bare = plain.new_page()
        bare.goto(f"/studies/{study.pk}/")
        every = bare.eval_on_selector_all("#id_format option", OFFERED)
        assert set(every) == {"", *(f.name for f in FORMATS.values())}
    finally:
        plain.close()


def test_the_admin_import_page_follows_the_kind_too(login, admin_user):
    """The Django admin's import page (it offered every format whatever the kind)."""
    admin_user.is_staff = admin_user.is_superuser = True
    admin_user.save()
    page = login(admin_user).new_page()
    page.goto("/admin/annotation/study/import/")
    kind, fmt = page.locator("#id_kind"), page.locator("#id_format")
    for name in ("judge_scores", "questions", "pairwise", "reports"):
        kind.select_option(name)
        shown = page.eval_on_selector_all("#id_format option", OFFERED)
        assert sorted(shown) == sorted(["", *format_names(name)]), name
    kind.select_option("judge_scores")
    fmt.select_option("researchqa-coverage")
    kind.select_option("questions")
    expect(fmt).to_have_value("")


def test_fields_are_marked_required_only_where_they_are(login, admin_user):
    """System is required for reports, but not for a ResearcherBench responses file (its
    name is the system) nor a DeepScholar folder; Annotator of pairwise judgments until
    “Expert agreed” is ticked (all fields said optional before, the import refusing after)."""
    study = Study.objects.create(name="Required marks")
    page = login(admin_user).new_page()
    page.goto(f"/studies/{study.pk}/")
    form = page.locator("#import-form")
    kind, fmt = form.locator("#id_kind"), form.locator("#id_format")
    system, annotator = form.locator("#id_system"), form.locator("#id_annotator")
    required = "e => e.required"
    kind.select_option("reports")
    fmt.select_option("researchqa")
    assert system.evaluate(required)
    fmt.select_option("researcherbench")
    assert not system.evaluate(required)
    fmt.select_option("deepscholar")
    assert not system.evaluate(required)
    kind.select_option("questions")
    assert not system.evaluate(required)
    kind.select_option("pairwise")
    assert annotator.evaluate(required)
    form.locator("#id_expert_agreed").check()
    assert not annotator.evaluate(required)
