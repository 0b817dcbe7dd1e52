"""The study report in a real browser: from the home page to a complete report, selectors
updating in place, downloads, the offline file, and the progress bar of a bootstrap run."""

import io
import json
import os

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from metaeval import views
from metaeval.models import ReportRun
from metaeval.reports import ReportOptions, agreement_report

os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SLOW = 60_000  # a new selection computes the report and draws its figures


def command_json(study, *args) -> dict:
    out = io.StringIO()
    call_command("agreement", "--study", str(study.pk), "--json", *args, stdout=out)
    return json.loads(out.getvalue())


def table_values(page, table: str, key: str) -> dict:
    return page.eval_on_selector_all(
        f'#table-{table} tr[data-metric] td[data-key="{key}"]',
        "cells => Object.fromEntries(cells.map(c => [c.closest('tr').dataset.metric,"
        " c.dataset.value === '' ? null : Number(c.dataset.value)]))",
    )


def assert_matches(page, report: dict):
    for table in ("preference", "metric_wise"):
        for key in ("agreement", "tau_b", "threshold"):
            assert table_values(page, table, key) == {
                m: f[key] for m, f in report[table].items()
            }, (table, key)
    tau = page.locator("#system-tau").get_attribute("data-value")
    assert (float(tau) if tau else None) == report["system"]["tau_b"]


def test_home_to_report_and_selectors(login, researcher_user, demo, shot):
    page = login(researcher_user).new_page()
    page.goto("/")
    page.get_by_role("link", name="report").first.click()
    expect(page.get_by_role("heading", name=f"Agreement report: {demo.name}")).to_be_visible()
    expect(page.locator("#figure-calibration-preference svg")).to_be_visible()
    assert_matches(page, command_json(demo))
    shot(page, "default")

    page.select_option("#opt-ties", "partial")
    page.wait_for_url("**ties=partial**", timeout=SLOW)
    expect(page.locator('#table-preference tr[data-metric="overall"] td[data-key="threshold"]')
           ).to_have_attribute("data-value", "0.0", timeout=SLOW)  # fmt: skip
    assert_matches(page, command_json(demo, "--ties", "partial"))

    page.check("#opt-expert-agreed")
    page.wait_for_url("**expert_agreed=true**", timeout=SLOW)
    expect(page.locator("#section-notes")).to_contain_text("Expert-agreed subset", timeout=SLOW)
    assert_matches(page, command_json(demo, "--ties", "partial", "--expert-agreed"))
    page.uncheck("#opt-expert-agreed")

    page.get_by_role("checkbox", name="baseline-llm").uncheck()
    page.wait_for_url("**systems=**", timeout=SLOW)
    expect(page.locator('#table-system tr[data-system="baseline-llm"]')).to_have_count(
        0, timeout=SLOW
    )
    kept = "atlas-dr,quill-rag,scholarbot-v2"
    assert_matches(page, command_json(demo, "--ties", "partial", "--systems", kept))

    page.select_option("#opt-compat", "scholarqa-cs2")
    expect(page.locator("#section-notes h2")).to_have_text(
        "Differences from the default computation", timeout=SLOW
    )
    shot(page, "compat")

    # the address keeps the selection: a reload shows the same report
    page.reload()
    expect(page.locator("#opt-compat")).to_have_value("scholarqa-cs2")
    expect(page.locator("#opt-ties")).to_have_value("partial")


def test_downloads_and_offline_file(login, researcher_user, demo, browser, tmp_path):
    page = login(researcher_user).new_page()
    page.goto(f"/reports/{demo.pk}/?ties=exclude")
    expect(page.locator("#table-preference")).to_be_visible()
    report = command_json(demo, "--ties", "exclude")

    with page.expect_download() as info:
        page.locator('#table-preference a[data-download="preference.csv"]').click()
    text = info.value.path().read_text(encoding="utf-8")
    assert text.startswith("table,metric,agreement")
    assert str(report["preference"]["overall"]["agreement"]) in text

    with page.expect_download() as info:
        page.locator('#table-preference a[data-download="preference.json"]').click()
    rows = json.loads(info.value.path().read_text(encoding="utf-8"))
    assert {r["metric"]: r["tau_b"] for r in rows} == {
        m: f["tau_b"] for m, f in report["preference"].items()
    }

    with page.expect_download() as info:
        page.locator('#table-system a[data-download="system.xlsx"]').click()
    assert info.value.path().read_bytes()[:2] == b"PK"

    with page.expect_download() as info:
        page.locator('#figure-system a[data-download="system.svg"]').click()
    assert b"<svg" in info.value.path().read_bytes()
    with page.expect_download() as info:
        page.locator('#figure-annotator-judge a[data-download="annotator-judge.png"]').click()
    assert info.value.path().read_bytes()[:4] == b"\x89PNG"

    with page.expect_download() as info:
        page.locator("#download-offline").click()
    offline = tmp_path / "report.html"
    offline.write_bytes(info.value.path().read_bytes())

    # open the file with the network cut: nothing is requested, everything renders
    context = browser.new_context(offline=True)
    requests = []
    context.on("request", lambda r: requests.append(r.url))
    try:
        view = context.new_page()
        view.goto(offline.as_uri())
        expect(view.locator("#figure-calibration-preference svg")).to_be_visible()
        cell = view.locator('#table-preference tr[data-metric="overall"] td[data-key="agreement"]')
        assert (
            float(cell.get_attribute("data-value")) == report["preference"]["overall"]["agreement"]
        )
        color = view.eval_on_selector("body", "b => getComputedStyle(b).color")
        assert color == "rgb(27, 31, 36)", "the inline style sheet applies"
        assert requests == [offline.as_uri()]
    finally:
        context.close()


def test_bootstrap_progress_bar(login, researcher_user, demo, monkeypatch, shot):
    def queued(study, options, user=None):
        return ReportRun.objects.create(study=study, options=options.to_dict(),
                                        status=ReportRun.Status.RUNNING, progress=0.2)  # fmt: skip

    monkeypatch.setattr(views, "start_report", queued)
    page = login(researcher_user).new_page()
    page.goto(f"/reports/{demo.pk}/")
    expect(page.locator("#table-preference")).to_be_visible()
    page.select_option("#opt-bootstrap", "1000")
    page.locator("#start-run").click(timeout=SLOW)  # a GET never starts a run: the button posts
    progress = page.locator("#report-progress")
    expect(progress).to_be_visible(timeout=SLOW)
    expect(page.locator("#report-progress-text")).to_have_text("20%")
    run = ReportRun.objects.get()
    ReportRun.objects.filter(pk=run.pk).update(progress=0.7)
    expect(page.locator("#report-progress-text")).to_have_text("70%", timeout=5_000)
    expect(progress).to_have_attribute("value", "70")
    shot(page, "progress")
    result = json.loads(json.dumps(agreement_report(demo.pk, ReportOptions(bootstrap=1000))))
    ReportRun.objects.filter(pk=run.pk).update(
        status=ReportRun.Status.DONE, progress=1.0, result=result
    )
    # the finished run's page draws every section with its intervals: on a CI machine at
    # load 20 that took over a minute (a wait, not a speed figure)
    expect(page.locator("#table-preference")).to_be_visible(timeout=3 * SLOW)
    expect(progress).to_have_count(0)
    ci = page.locator('#table-preference tr[data-metric="overall"] td[data-key="agreement"]')
    lo, hi = ci.get_attribute("data-ci").split(",")
    assert [float(lo), float(hi)] == result["preference"]["overall"]["ci"]["agreement"]
    expect(ci.locator(".ci")).to_be_visible()
    assert_matches(page, result)
