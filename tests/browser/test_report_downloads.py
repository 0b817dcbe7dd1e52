"""Issue 15: the whole-report downloads carry the selection changed in the page (they
downloaded the default judge's report)."""

import json
import os
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import expect

os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SLOW = 60_000


def query_of(page, selector: str) -> dict:
    return parse_qs(urlparse(page.locator(selector).get_attribute("href")).query)


def test_download_links_follow_the_selectors(login, researcher_user, demo):
    page = login(researcher_user).new_page()
    page.goto(f"/reports/{demo.pk}/", timeout=SLOW)
    judges = page.locator("#opt-judge option").all_inner_texts()
    assert len(judges) >= 2, judges
    other = judges[1]
    page.select_option("#opt-judge", other)
    page.wait_for_url("**judge=**", timeout=SLOW)
    page.select_option("#opt-ties", "partial")
    page.wait_for_url("**ties=partial**", timeout=SLOW)
    expect(page.locator("#figure-calibration-preference svg")).to_be_visible(timeout=SLOW)
    for link in ("#download-json", "#download-offline"):
        query = query_of(page, link)
        assert query.get("judge") == [other], (link, query)
        assert query.get("ties") == ["partial"], (link, query)
    # a figure's and a table's links carry it too
    for link in page.locator("#report-body a[download]").all()[:5]:
        query = parse_qs(urlparse(link.get_attribute("href")).query)
        assert query.get("judge") == [other] and query.get("ties") == ["partial"]
    with page.expect_download() as info:
        page.locator("#download-json").click()
    report = json.loads(info.value.path().read_text(encoding="utf-8"))
    assert report["selection"]["judge"] == other
