"""The offline HTML export: one file, inline CSS and SVG, no outside address."""

import re

import pytest
from django.urls import reverse

from tests.metaeval.test_views import _empty_cache, command_json, demo, page_values  # noqa: F401

pytestmark = pytest.mark.django_db


def test_offline_file_is_self_contained(client, demo, researcher_user):  # noqa: F811
    client.force_login(researcher_user)
    response = client.get(reverse("metaeval:offline", args=[demo.pk]) + "?ties=partial")
    assert response.status_code == 200
    assert response["Content-Disposition"].startswith("attachment")
    html = response.content.decode()
    assert (
        "http://" not in html
        and "https://" not in html
        and "//" not in re.sub(r"<style>.*?</style>", "", html, flags=re.S).replace("<!doctype", "")
    )
    assert not re.search(r"<(script|link|img|iframe)\b", html)
    targets = re.findall(r"\b(?:src|href)=\"([^\"]*)\"", html)
    assert [t for t in targets if not t.startswith("#")] == [], "only references inside the file"
    assert set(re.findall(r"url\(([^)]*)\)", html)) <= {
        u for u in re.findall(r"url\((#[^)]*)\)", html)
    }
    assert "<style>" in html and ".report-table" in html and ":root" in html
    assert html.count("<svg") >= 6
    report = command_json(demo, "--ties", "partial")
    values = page_values(html)
    for metric, fig in report["preference"].items():
        assert float(values[("preference", metric, None, "agreement")]) == fig["agreement"]
    assert 'id="report-options"' not in html and "data-download" not in html
