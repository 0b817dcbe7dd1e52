"""The page after a selector change (issue 29): what the previous request of the same study
version loaded or computed and the change does not touch is not loaded or computed
again, and the figures are those of a page computed from nothing."""

import pytest
from django.core.cache import cache
from django.urls import reverse

from annotation.models import Study
from judges.models import JudgeScore
from metaeval import cache as report_cache
from metaeval import reports
from metaeval.sections import scoreboard

pytestmark = pytest.mark.django_db


@pytest.fixture
def researcher(client, demo_module, researcher_user):
    Study.objects.get(pk=demo_module).researchers.add(researcher_user)
    client.force_login(researcher_user)
    return client


def _body(client, study_id: int, query: str) -> str:
    url = reverse("metaeval:report", args=[study_id]) + (f"?{query}" if query else "")
    response = client.get(url, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    return response.content.decode()


@pytest.fixture
def counted(monkeypatch):
    """How many times the selection's rows were loaded and the scoreboard computed."""
    calls = {"load": 0, "scoreboard": 0}
    load, board = reports.load_selection, scoreboard.analyse_scoreboard

    def counting_load(*args, **kwargs):
        calls["load"] += 1
        return load(*args, **kwargs)

    def counting_board(*args, **kwargs):
        calls["scoreboard"] += 1
        return board(*args, **kwargs)

    monkeypatch.setattr(reports, "load_selection", counting_load)
    monkeypatch.setattr(scoreboard, "analyse_scoreboard", counting_board)
    return calls


def test_a_ties_change_reuses_the_rows_and_the_scoreboard(researcher, demo_module, counted):
    _body(researcher, demo_module, "")
    assert counted["load"] >= 1 and counted["scoreboard"] == 1
    loads = counted["load"]
    changed = _body(researcher, demo_module, "ties=partial")
    assert counted["load"] == loads  # the same rows: not read again
    assert counted["scoreboard"] == 1  # it reads no tie option
    # the same body as the page computed from nothing
    cache.clear()
    report_cache.forget_selections()
    assert _body(researcher, demo_module, "ties=partial") == changed
    assert counted["load"] > loads and counted["scoreboard"] == 2


def test_a_changed_judge_score_is_read_again(researcher, demo_module, counted):
    _body(researcher, demo_module, "")
    loads = counted["load"]
    score = JudgeScore.objects.filter(report__question__study_id=demo_module).first()
    score.value = score.value + 0.25
    score.save()
    _body(researcher, demo_module, "ties=partial")
    assert counted["load"] > loads  # a new study version: the rows are loaded again
    assert counted["scoreboard"] == 2


def test_a_process_keeps_a_bounded_number_of_selections(settings):
    settings.CONCORD_SHARED_SELECTIONS = 2
    report_cache.forget_selections()
    for k in range(5):
        report_cache.shared_selection(1, "v1", (k,), lambda k=k: [k])
    assert report_cache.shared_selection(1, "v1", (4,), lambda: "loaded") == [4]
    assert report_cache.shared_selection(1, "v1", (3,), lambda: "loaded") == [3]
    assert report_cache.shared_selection(1, "v1", (2,), lambda: "loaded") == "loaded"
    assert report_cache.shared_selection(1, "v2", (4,), lambda: "new version") == "new version"
    settings.CONCORD_SHARED_SELECTIONS = 0
    assert report_cache.shared_selection(1, "v1", (4,), lambda: "fresh") == "fresh"
