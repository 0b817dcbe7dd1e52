"""A report's downloads take the study as its page does, by id or by name
(``/reports/<id or name>/report.json``, ``…/tables/iaa.csv``), and a study that is missing
or not the researcher's is the same JSON 404 to a token, by id or by name
(``annotation.permissions.staff_study_by_key_or_404``). Found by a tester with a
researcher's token: ``/reports/<name>/`` opened the page, but its downloads by name gave
Django's HTML 404 while a missing id gave a JSON one."""

import pytest
from django.test import Client

from tests.builders.content import make_study
from tests.builders.ranked import ranked_study
from tests.builders.users import make_user, token_client

pytestmark = pytest.mark.django_db

DOWNLOADS = ("report.json", "tables/iaa.csv", "report.html")


@pytest.fixture
def world():
    study = ranked_study(3)
    other = make_study("Someone else's")
    researcher = make_user("named_researcher", "researcher")
    study.researchers.add(researcher)
    token = token_client(researcher, api=False)
    return study, other, token


@pytest.mark.parametrize("download", DOWNLOADS)
def test_a_download_by_name_is_the_download_by_id(world, download):
    study, _other, token = world
    by_id = token.get(f"/reports/{study.pk}/{download}")
    by_name = token.get(f"/reports/{study.name}/{download}")
    assert by_id.status_code == 200, by_id.content[:300]
    assert by_name.status_code == 200, by_name.content[:300]
    assert by_name["Content-Disposition"] == by_id["Content-Disposition"]
    if download != "report.html":  # the offline page carries the time it was written
        assert by_name.content == by_id.content


@pytest.mark.parametrize("download", DOWNLOADS)
def test_missing_and_not_theirs_are_one_json_404_by_id_or_by_name(world, download):
    _study, other, token = world
    missing = other.pk + 1000
    answers = [token.get(f"/reports/{key}/{download}")
               for key in (missing, "No such study", other.pk, other.name)]  # fmt: skip
    for answer in answers:
        assert answer.status_code == 404
        assert answer["Content-Type"].startswith("application/json"), answer.content[:200]
    assert len({answer.content for answer in answers}) == 1


def test_the_page_by_name_refuses_as_its_downloads(world):
    _study, other, _token = world
    researcher = make_user("named_browser", "researcher")
    browser = Client()
    browser.force_login(researcher)
    assert browser.get(f"/reports/{other.name}/").status_code == 404
    assert browser.get("/reports/No such study/").status_code == 404
