"""Headers and answers of the API and pages (issue 12, the last "Access and abuse" item):
``Cache-Control: private, no-store`` on personal answers, 401 for a bad token, a ceiling
on page size."""

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.models import Study
from tests.builders.content import make_study
from tests.builders.users import make_user, token_client


@pytest.fixture
def admin(db):
    return make_user("hyg_admin", "admin")


def no_store(response) -> bool:
    value = response.get("Cache-Control", "")
    return "no-store" in value and "private" in value


def test_signed_in_pages_api_answers_and_downloads_are_private_no_store(admin):
    study = make_study("Cache")
    client = Client()
    client.force_login(admin)
    for url in (
        reverse("home"),
        reverse("studies:list"),
        reverse("studies:progress_csv", args=[study.pk]),
        reverse("studies:export_judgments", args=[study.pk, "csv"]),  # empty: a 404 saying so
        "/api/studies/",
        f"/api/studies/{study.pk}/",
        reverse("account_token"),
    ):
        response = client.get(url)
        assert response.status_code in (200, 404), url
        assert no_store(response), (url, response.get("Cache-Control"))
    assert no_store(Client().get("/api/studies/"))  # even a refusal


def test_a_bad_token_is_a_401_and_names_the_scheme(admin):
    client = token_client(key="not-a-real-token")
    response = client.get("/api/studies/")
    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith("Token")
    assert APIClient().get("/api/studies/").status_code == 401  # no credentials at all


def test_pagination_has_a_ceiling(admin, settings):
    settings.CONCORD_API_MAX_LIMIT = 3
    Study.objects.bulk_create(Study(name=f"S{i}") for i in range(5))
    client = APIClient()
    client.force_login(admin)
    body = client.get("/api/studies/", {"limit": 10_000_000}).json()
    assert body["count"] == 5 and len(body["results"]) == 3


@pytest.mark.parametrize(
    "url", ["/api/studies/", "/api/judgments/deepscholar-labels/", "/api/judge-runs/"]
)
@pytest.mark.parametrize(
    "query, field",
    [({"limit": -5}, "limit"), ({"limit": 0}, "limit"), ({"limit": "ten"}, "limit"),
     ({"offset": -1}, "offset"), ({"offset": "1.5"}, "offset")],
)  # fmt: skip
def test_a_limit_or_offset_out_of_range_is_a_400_naming_it(admin, url, query, field):
    """Every list pages through one class: ``limit=-5`` answered the default page of 100."""
    client = APIClient()
    client.force_login(admin)
    response = client.get(url, query)
    assert response.status_code == 400, (url, query, response.status_code)
    assert field in response.json() and str(list(query.values())[0]) in str(response.json()[field])


def test_a_limit_and_offset_in_range_page_as_asked(admin):
    Study.objects.bulk_create(Study(name=f"S{i}") for i in range(5))
    client = APIClient()
    client.force_login(admin)
    body = client.get("/api/studies/", {"limit": 2, "offset": 4}).json()
    assert body["count"] == 5 and [s["name"] for s in body["results"]] == ["S4"]
    assert len(client.get("/api/studies/", {"offset": 0}).json()["results"]) == 5


def test_every_page_names_its_icon_so_no_browser_asks_for_a_missing_favicon(db):
    """Without a ``<link rel="icon">`` every browser requests ``/favicon.ico`` and logs a
    404 in the console of each page (found walking the pages in Chromium)."""
    import re

    from django.contrib.staticfiles import finders

    html = Client().get(reverse("login")).content.decode()
    href = re.search(r'<link rel="icon" href="([^"]+)"', html)
    assert href, "the base template names no icon"
    assert finders.find(href.group(1).split("/static/", 1)[1]), href.group(1)
