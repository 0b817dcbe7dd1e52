"""A report download takes its format from its path (``report.json``, ``tables/iaa.csv``,
``figures/system.svg``): a ``format`` in the query string is refused, naming it. Found by
a tester: the report options skip ``format`` (the API's renderer parameter), so
``report.json?format=csv`` answered 200 JSON and ``tables/iaa.csv?format=json`` 200 CSV,
as if the value had been taken."""

import pytest
from django.test import Client

from tests.builders.ranked import ranked_study
from tests.builders.users import make_user, token_client

pytestmark = pytest.mark.django_db

#: Each download with a format its path does not name, and the one it does.
DOWNLOADS = [
    ("report.json", "csv", "json"),
    ("report.html", "json", "html"),
    ("tables/iaa.csv", "json", "csv"),
    ("tables/iaa.xlsx", "csv", "xlsx"),
    ("figures/system.svg", "png", "svg"),
]


@pytest.fixture
def world():
    study = ranked_study(3)
    researcher = make_user("format_researcher", "researcher")
    study.researchers.add(researcher)
    token = token_client(researcher, api=False)
    return study, token


@pytest.mark.parametrize(("download", "other", "own"), DOWNLOADS)
def test_a_format_in_the_query_is_refused_naming_it(world, download, other, own):
    study, token = world
    assert token.get(f"/reports/{study.pk}/{download}").status_code == 200
    for value in (other, own):  # even the path's own: no caller sends one
        answer = token.get(f"/reports/{study.pk}/{download}", {"format": value})
        assert answer.status_code == 400, (value, answer.content[:200])
        errors = answer.json()["errors"]
        assert [e["field"] for e in errors] == ["format"]
        assert repr(value) in errors[0]["message"] and f".{own}" in errors[0]["message"]


def test_a_browser_is_told_in_plain_text(world):
    study, _token = world
    browser = Client()
    browser.force_login(study.researchers.get())
    answer = browser.get(f"/reports/{study.pk}/report.json?format=csv")
    assert answer.status_code == 400
    assert answer.content.decode().startswith("format: ")


def test_an_empty_format_is_no_value_as_for_the_options(world):
    study, token = world
    assert token.get(f"/reports/{study.pk}/report.json?format=").status_code == 200


def test_a_study_not_theirs_is_still_a_404_before_the_format(world):
    _study, token = world
    assert token.get("/reports/No such study/report.json?format=csv").status_code == 404
