"""Issue 18: a researcher gets a paper's format out of the browser. On the progress page's
Download panel (derived from the format registry) they pick a system and click: the
browser receives the file the API export writes, under the writer's own file name."""

import json
import os

import pytest
from django.test import Client
from django.urls import reverse

os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SLOW = 60_000


def test_a_researcher_downloads_researchqa_responses_from_the_panel(login, researcher_user, demo):
    page = login(researcher_user).new_page()
    page.goto(reverse("studies:progress", args=[demo.pk]), timeout=SLOW)
    entry = page.locator('#downloads tr[data-kind="reports"][data-format="researchqa"]')
    systems = entry.locator('select[name="system"] option').all_inner_texts()
    assert len(systems) >= 2, systems
    entry.locator('select[name="system"]').select_option(systems[1])
    with page.expect_download(timeout=SLOW) as info:
        entry.get_by_role("button", name="Download .json").click()
    download = info.value
    assert download.suggested_filename == f"{systems[1]}.json"
    body = download.path().read_bytes()
    answers = json.loads(body)
    assert len(answers) == demo.questions.count()
    assert all(set(a) == {"answer"} and a["answer"] for a in answers.values())
    api = Client()
    api.force_login(researcher_user)
    same = api.get(
        reverse("study-export", args=[demo.pk]),
        {"kind": "reports", "file_format": "researchqa", "system": systems[1]},
    )
    assert same.status_code == 200 and same.content == body
