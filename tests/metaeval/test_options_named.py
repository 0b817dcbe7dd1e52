"""An option naming what the study does not have is refused naming the option, never an
empty report (found by a researcher with a token: ``?judge=nope``, ``?systems=nonexistent``
and ``?settings=bogus`` answered 200 with nothing in it; a report run started with
``{"study": 1, "bootstrap": 999999}`` ran with the defaults)."""

import pytest
from django.test import Client

from metaeval.models import ReportRun
from metaeval.reports import ReportOptions
from tests.builders.ranked import SYSTEMS, researcher_api
from tests.builders.users import token_client

pytestmark = pytest.mark.django_db


@pytest.fixture
def api(researcher_user):
    return researcher_api(researcher_user)


@pytest.mark.parametrize(
    "query, option",
    [
        ("judge=nope", "judge"),
        ("systems=nonexistent", "systems"),
        (f"systems={sorted(SYSTEMS)[0]},ghost", "systems"),
        ("exclude_systems=ghost", "exclude_systems"),
        ("settings=bogus", "settings"),
    ],
)
def test_a_name_the_study_lacks_is_a_400_naming_the_option(api, query, option):
    client, study = api
    for url in (f"/api/studies/{study.pk}/agreement/?{query}",
                f"/api/studies/{study.pk}/agreement/?{query}&tables=true"):  # fmt: skip
        response = client.get(url)
        assert response.status_code == 400, (url, response.content[:300])
        assert f"{option}:" in str(response.json())
    browser = Client()
    browser.force_login(client.researcher)
    download = browser.get(f"/reports/{study.pk}/report.json?{query}")
    assert download.status_code == 400 and option in download.content.decode()


def test_names_the_study_has_still_select(api):
    client, study = api
    first, second = sorted(SYSTEMS)[:2]
    response = client.get(f"/api/studies/{study.pk}/agreement/?systems={first},{second}")
    assert response.status_code == 200
    assert response.json()["selection"]["systems"] == [first, second]


def test_a_report_run_refuses_options_outside_options_and_unknown_names(api):
    client, study = api
    for body, field in (
        ({"study": study.pk, "bootstrap": 999999}, "bootstrap"),
        ({"study": study.pk, "ties": "bogus"}, "ties"),
        # a name the study does not have: refused under the option that named it
        ({"study": study.pk, "options": {"judge": "nope"}}, "judge"),
        ({"study": study.pk, "options": {"systems": "ghost"}}, "systems"),
    ):
        response = client.post("/api/report-runs/", body, format="json")
        assert response.status_code == 400, (body, response.content)
        assert field in response.json()
    response = client.post("/api/report-runs/", f"study={study.pk}&bootstrap=2",
                           content_type="application/x-www-form-urlencoded")  # fmt: skip
    assert response.status_code == 400 and "bootstrap" in response.json()
    assert not ReportRun.objects.exists()


def test_settings_outside_the_declared_ones_are_refused_by_the_options():
    with pytest.raises(ValueError, match="settings: 'bogus' is not one of"):
        ReportOptions(settings=("bogus",))


def test_repeated_systems_are_every_system_given_over_the_api_and_the_downloads(api):
    """``?systems=a&systems=b`` kept only ``b`` over the API; it is ``systems=a,b``, as the
    report page's ticked boxes (repeated) always were."""
    client, study = api
    first, second, third = sorted(SYSTEMS)[:3]
    url = f"/api/studies/{study.pk}/agreement/?systems={first}&systems={second},{third}"
    response = client.get(url)
    assert response.status_code == 200, response.content[:300]
    assert response.json()["selection"]["systems"] == [first, second, third]
    browser = Client()
    browser.force_login(client.researcher)
    download = browser.get(f"/reports/{study.pk}/report.json?systems={first}&systems={second}")
    assert download.status_code == 200
    assert download.json()["selection"]["systems"] == [first, second]


@pytest.mark.parametrize(
    "query, option",
    [
        ("judge=a&judge=b", "judge"),
        ("seed=1&seed=2", "seed"),
        ("expert_agreed=maybe", "expert_agreed"),
        ("expert_agreed=true&expert_agreed=false", "expert_agreed"),
        ("tables=maybe", "tables"),
        ("tables=true&tables=false", "tables"),
    ],
)
def test_an_option_given_twice_or_a_flag_not_true_or_false_is_a_400_naming_it(api, query, option):
    """A second value was dropped (the last one won) and ``expert_agreed=maybe`` read as
    false: both are refused naming the option (and, for a flag, the words it takes)."""
    client, study = api
    response = client.get(f"/api/studies/{study.pk}/agreement/?{query}")
    assert response.status_code == 400, response.content[:300]
    # the one error body (concord.error_body): detail, errors, and the option's own key
    assert set(response.json()) == {"detail", "errors", option}
    assert [e["field"] for e in response.json()["errors"]] == [option]
    if "maybe" in query:
        said = str(response.json()[option])
        assert "maybe" in said and "true" in said and "false" in said
    if option != "tables":
        response = client.get(f"/api/studies/{study.pk}/judge-alignment/?{query}")
        assert response.status_code == 400 and option in response.json()
        browser = Client()
        browser.force_login(client.researcher)
        download = browser.get(f"/reports/{study.pk}/report.json?{query}")
        assert download.status_code == 400 and option in download.content.decode()


@pytest.mark.parametrize(
    "query, option",
    [("systems=ghost", "systems"), ("ties=bogus", "ties"), ("bootstrap=many", "bootstrap"),
     ("judge=a&judge=b", "judge")],
)  # fmt: skip
def test_a_refused_download_answers_as_the_study_exports_do(api, query, option):
    """A token got plain text from the report downloads and JSON naming the field from the
    study exports: both now answer an API client the API's error body (``detail``, and
    ``errors`` items naming the field) and a browser ``<field>: <message>`` in plain text."""

    client, study = api
    token = token_client(client.researcher, api=False)
    export = token.get(f"/studies/{study.pk}/export/reports/researchqa/")  # no system given
    assert export.status_code == 400 and export.json()["errors"][0]["field"] == "system"
    for path in ("report.json", "tables/system.csv", "figures/system.svg", "report.html"):
        refused = token.get(f"/reports/{study.pk}/{path}?{query}")
        assert refused.status_code == 400, (path, refused.content[:200])
        assert refused["Content-Type"] == "application/json"
        errors = refused.json()["errors"]
        assert [e["field"] for e in errors] == [option] and errors[0]["message"], path
    browser = Client()
    browser.force_login(client.researcher)
    refused = browser.get(f"/reports/{study.pk}/report.json?{query}")
    assert refused.status_code == 400 and refused["Content-Type"].startswith("text/plain")
    assert refused.content.decode().startswith(f"{option}: ")


def test_a_judge_of_another_study_is_refused_as_a_made_up_name_is(api):
    """``?judge=secret-judge`` (a judge that scored only a study the researcher cannot
    read) answered an empty report, where a made-up name was a 400: the difference told
    which judge names exist in hidden studies. Both are now the same 400, at the API, the
    downloads, a report run and the judge-alignment endpoint."""
    from tests.builders.ranked import ranked_study

    client, study = api
    ranked_study(2, name="secret")  # its judge "secret-judge" scores only this study
    browser = Client()
    browser.force_login(client.researcher)
    for name in ("secret-judge", "definitely-not"):
        said = f"judge: {name!r} has no score in this study"
        for url in (f"/api/studies/{study.pk}/agreement/?judge={name}",
                    f"/api/studies/{study.pk}/agreement/?judge={name}&tables=true",
                    f"/api/studies/{study.pk}/judge-alignment/?judge={name}"):  # fmt: skip
            response = client.get(url)
            assert response.status_code == 400, (url, response.content[:300])
            assert said in response.json()["detail"]
            assert response.json()["errors"][0]["field"] == "judge", url
        for url in (f"/reports/{study.pk}/tables/preference.csv?judge={name}",
                    f"/reports/{study.pk}/report.json?judge={name}"):  # fmt: skip
            download = browser.get(url)
            assert download.status_code == 400, (url, download.content[:300])
            assert said in download.content.decode()
        body = {"study": study.pk, "options": {"judge": name}}
        response = client.post("/api/report-runs/", body, format="json")
        assert response.status_code == 400 and response.json()["errors"][0]["field"] == "judge"
        assert said in response.json()["detail"]
    assert not ReportRun.objects.exists()
