"""The report page of a study whose judgments are not ScholarQA-CS2's (issue 26, "Reports
that fit the protocol"): in Chromium at 1,400 px the page is no wider than the window, the
selection line counts every judgment kind, and the sections over medal comparisons are
left out with one line saying why while the study's own analyses are shown."""

import os

import pytest
from django.core.cache import cache

from tests.builders.researchqa_study import researchqa_study

os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_researchqa_report_fits_the_window_and_the_protocol(browser, live_server,
                                                            researcher_user, shot):  # fmt: skip
    from django.test import Client

    cache.clear()
    study = researchqa_study()
    study.researchers.add(researcher_user)
    client = Client()
    client.force_login(researcher_user)
    context = browser.new_context(viewport={"width": 1400, "height": 900},
                                  base_url=live_server.url)  # fmt: skip
    context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value,
                          "url": live_server.url}])  # fmt: skip
    page = context.new_page()
    page.goto(f"/reports/{study.pk}/", timeout=60_000)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.evaluate("window.innerWidth"), width
    counts = page.eval_on_selector_all(
        ".selection [data-key^='study_n_']", "els => els.map(e => Number(e.dataset.value))"
    )
    assert counts == [18, 2, 3]  # 6 preferences + 12 coverage labels, 2 questions, 3 experts
    assert "pairwise preference 6" in page.inner_text("[data-key='by_kind']")
    absent = page.locator("p.section-absent")
    assert absent.count() == 1 and "no medal ranking" in absent.inner_text()  # one line
    for key in ("iaa", "agreement", "system", "judges", "annotators", "calibration"):
        assert page.locator(f"#section-{key}").count() == 0, key
        assert absent.locator(f"#section-{key}-absent").count() == 1, key
    for key in ("scoreboard", "researchqa_pairwise", "coverage_alignment", "label_iaa"):
        assert page.locator(f"#section-{key}").count() == 1, key
    assert "No IAA" not in page.content()
    shot(page, "researchqa-report")
    context.close()
    cache.clear()
