"""The judge card in a real browser (issue 27): from the report's judges section to a
judge's own page, which shows its figures and every judge of the study on one table."""

import io
import json
import os

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SLOW = 60_000
JUDGE = "sonnet-pairwise-sim"


def card(study) -> dict:
    out = io.StringIO()
    call_command("analysis", "--study", str(study.pk), "--kind", "judge_card", "--json",
                 stdout=out)  # fmt: skip
    return json.loads(out.getvalue())["judge_card"]


def test_report_to_a_judge_page(login, researcher_user, demo, shot):
    result = card(demo)
    page = login(researcher_user).new_page()
    page.goto(f"/reports/{demo.pk}/")
    section = page.locator("#section-judge_card")
    expect(section).to_be_visible(timeout=SLOW)
    for judge in result["judges"]:
        expect(section.locator(f'#table-judge_card tr[data-judge="{judge["judge"]}"]')
               ).to_have_count(len(judge["protocols"]))  # fmt: skip
    expect(section.locator("#figure-judge-card svg")).to_be_visible()
    shot(page, "judge-card-section")

    section.get_by_role("link", name=JUDGE).first.click()
    expect(page.get_by_role("heading", name=f"Judge card: {JUDGE}")).to_be_visible(timeout=SLOW)
    mine = next(j for j in result["judges"] if j["judge"] == JUDGE)["protocols"][0]
    expect(page.locator(f'ul[data-lines="{JUDGE}"]')).to_contain_text(mine["line"])
    consistency = mine["position"]["order_consistency"]["value"]
    expect(page.locator('tr[data-figure="order_consistency"] td').first
           ).to_have_text(f"{consistency:.2f}")  # fmt: skip
    # every judge of the study on the same page, this one marked
    expect(page.locator(f'#table-judge_card tr.current[data-judge="{JUDGE}"]')).to_have_count(1)
    expect(page.locator("#table-judge_card tbody tr")).to_have_count(
        sum(len(j["protocols"]) for j in result["judges"])
    )
    shot(page, "judge-page")
    # the downloads of the page answer
    with page.expect_download() as got:
        page.locator('#table-judge_operations a[data-download="judge_operations.csv"]').click()
    assert got.value.suggested_filename.endswith("judge_operations.csv")
