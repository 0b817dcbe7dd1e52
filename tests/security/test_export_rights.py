"""One rule for every export of a study's judgments (issue 24): the study's researchers and
admins read them, blinded as the API blinds them (annotators by pseudonym); annotators get
403, a researcher not added to the study 404, on every route; API clients (a token, or
``Accept: application/json``) get the errors as JSON.

Before, a researcher got an HTML 403 on ``judgments.{json,jsonl,csv,xlsx,parquet}`` and
``pairwise.zip`` and the same records with 200 from ``export/judgments/jsonl/`` and the API.
"""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from annotation.exporters import JUDGMENT_FORMATS
from annotation.models import Annotator, Medal, MedalRanking
from tests.annotation.test_quality_views import judge
from tests.builders.content import make_question, make_study
from tests.builders.users import make_user, token_client


@pytest.fixture
def world(db):
    study = make_study("Export rights", tasks=["pairwise"])
    q = make_question(study, n_reports=2)
    for name, choice in (("a", "left"), ("b", "right")):
        judge(make_user(f"rights_{name}", "annotator", annotator=True).annotator, q, choice)
    # a medal ranking: pairwise.zip has records to write (an empty one is a 404 for everyone)
    ranking = MedalRanking.objects.create(
        study=study, annotator=Annotator.objects.order_by("pk").first(), question=q, reasoning="r"
    )
    for report, medal in zip(q.reports.order_by("pk"), ("gold", "silver"), strict=True):
        Medal.objects.create(ranking=ranking, report=report, medal=medal)
    people = {
        "researcher": make_user("rights_researcher", "researcher"),
        "outsider": make_user("rights_outsider", "researcher"),
        "annotator": make_user("rights_annotator", "annotator", annotator=True),
        "admin": make_user("rights_admin", "admin"),
    }
    study.researchers.add(people["researcher"])
    return study, people


def judgment_urls(study) -> list[str]:
    urls = [reverse("studies:export_judgments", args=[study.pk, fmt]) for fmt in JUDGMENT_FORMATS]
    urls.append(reverse("studies:export_pairwise", args=[study.pk]))
    urls.append(reverse("studies:export_format", args=[study.pk, "judgments", "jsonl"]))
    urls.append(f"/api/studies/{study.pk}/export/?kind=judgments")
    return urls


EXPECTED = {"researcher": 200, "admin": 200, "annotator": 403, "outsider": 404}


@pytest.mark.parametrize("how", ["session", "token", "json"])
def test_every_judgment_export_answers_each_role_alike(world, how):
    study, people = world
    wrong = []
    for role, user in people.items():
        if how == "token":
            client = token_client(user, api=False)
        else:
            client = Client(HTTP_ACCEPT="application/json") if how == "json" else Client()
            client.force_login(user)
        for url in judgment_urls(study):
            response = client.get(url)
            if response.status_code != EXPECTED[role]:
                wrong.append(f"{how} {role} {url}: {response.status_code}")
            elif response.status_code >= 400 and how != "session":
                if response["Content-Type"] != "application/json":
                    wrong.append(f"{how} {role} {url}: {response['Content-Type']}")
                elif not response.json().get("detail"):
                    wrong.append(f"{how} {role} {url}: no detail")
    assert not wrong, "\n".join(wrong)


def test_the_researcher_reads_pseudonyms_as_in_the_api(world):
    study, people = world
    client = Client()
    client.force_login(people["researcher"])
    text = client.get(reverse("studies:export_judgments", args=[study.pk, "jsonl"])).content
    assert b'"Pseudo-rights_a"' in text and b'"rights_a"' not in text  # no user name


def test_an_api_client_without_credentials_gets_a_json_401(world):
    study, _ = world
    url = reverse("studies:export_judgments", args=[study.pk, "json"])
    response = Client(HTTP_ACCEPT="application/json").get(url)
    assert response.status_code == 401 and response.json()["detail"]
    assert Client().get(url).status_code == 302  # a browser still goes to the login page


def test_the_progress_page_links_the_researcher_to_every_judgment_export(world):
    study, people = world
    client = Client()
    client.force_login(people["researcher"])
    page = client.get(reverse("studies:progress", args=[study.pk])).content.decode()
    for url in judgment_urls(study)[:-2]:  # pairwise.zip too: the world has a medal ranking
        assert f'href="{url}"' in page, url


def test_an_api_export_of_a_study_id_that_is_not_a_number_is_a_404(world):
    _, people = world
    client = token_client(people["admin"], api=False)
    response = client.get("/api/studies/abc/export/?kind=judgments")
    assert response.status_code == 404 and response.json()["detail"]


@pytest.mark.parametrize("route", ["studies:export_pairwise", "studies:export_judgments"])
def test_nothing_to_export_is_json_to_an_api_client_and_text_to_a_browser(db, route):
    """An empty study's judgments and pairwise records are a 404 saying so: JSON to a token
    client, as every other refusal of a download (it was plain text), text to a browser."""
    study = make_study("Empty exports")
    admin = make_user("empty_admin", "admin")
    args = [study.pk, "jsonl"] if route == "studies:export_judgments" else [study.pk]
    url = reverse(route, args=args)
    token = token_client(admin, api=False)
    response = token.get(url)
    assert response.status_code == 404 and response["Content-Type"] == "application/json"
    assert "nothing to export" in response.json()["errors"][0]["message"]
    browser = Client()
    browser.force_login(admin)
    response = browser.get(url)
    assert response.status_code == 404 and response["Content-Type"].startswith("text/plain")
    assert "nothing to export" in response.content.decode()
