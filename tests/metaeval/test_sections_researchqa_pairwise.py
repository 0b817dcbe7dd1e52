"""ResearchQA pairwise preference and leaderboard sections (issue 16) on the page, the
API (typed), the command, the downloads and the offline HTML."""

import pytest

from annotation.models import Annotator, PairwisePreference, Question
from judges.models import Judge, JudgePairwise
from tests.builders.analysis import analysis_world

from .section_checks import assert_typed, everywhere, svg

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(client, researcher_user):
    study, judge = analysis_world(3)
    study.researchers.add(researcher_user)
    client.force_login(researcher_user)
    return study, judge


def test_pairwise_section_everywhere(client, world):
    study, _ = world
    got = everywhere(client, study, "researchqa_pairwise", "pairwise_judges",
                     "researchqa-pairwise", "?bootstrap=100")  # fmt: skip
    assert got["comparisons"] == 3
    assert got["binarised_pa"]["value"] == 1.0  # both experts say beta in every question
    assert got["binarised_pa"]["low"] is not None  # bootstrap asked: the CI is there
    assert {(j["judge"], j["protocol"]) for j in got["judges"]} == {("world-j1", "direct"),
                                                                    ("world-j1", "ensemble")}  # fmt: skip
    assert got["judge_differences"][0]["pvalue"] is not None
    assert_typed("researchqa_pairwise", {"binarised_pa", "judges", "judge_differences"})


def test_leaderboard_section_everywhere(client, world):
    study, _ = world
    got = everywhere(client, study, "leaderboard", "leaderboard", "leaderboard")
    human = next(b for b in got["boards"] if b["source"] == "human")
    points = {r["system"]: r["points"] for r in human["rows"]}
    assert points == {"beta": 3, "alpha": 0}  # the experts prefer beta in every question
    # beta always wins: Bradley-Terry has no finite rating; null with a note, no probability
    assert all(r["rating"] is None for r in human["rows"]) and human["notes"]
    assert got["win_probability"] == []
    assert_typed("leaderboard", {"boards", "win_probability"})


def test_pairwise_figure_changes_with_a_judgment(client, world):
    study, judge = world
    before = svg(client, study, "researchqa-pairwise")
    q = Question.objects.filter(study=study).first()
    alpha, beta = (q.reports.get(system__name=n) for n in ("alpha", "beta"))
    # a third expert prefers alpha: beta no longer unanimous, the PA drops
    ann3 = Annotator.objects.create(pseudonym="world-ann3")
    PairwisePreference.objects.create(study=study, question=q, annotator=ann3, left=alpha,
                                      right=beta, choice="left", reason="r")  # fmt: skip
    assert svg(client, study, "researchqa-pairwise") != before
    before = svg(client, study, "leaderboard")
    j2 = Judge.objects.create(name="world-j2")
    JudgePairwise.objects.create(judge=j2, left=alpha, right=beta, choice="left")
    assert svg(client, study, "leaderboard") != before


def test_a_study_without_pairwise_judgments_has_no_section(client, researcher_user):
    from tests.builders.ranked import ranked_study

    study = ranked_study(3)
    study.researchers.add(researcher_user)
    client.force_login(researcher_user)
    from django.urls import reverse

    page = client.get(reverse("metaeval:report", args=[study.pk])).content.decode()
    assert 'id="section-researchqa_pairwise"' not in page
    api = client.get(reverse("api-agreement", args=[study.pk])).json()
    assert api.get("researchqa_pairwise") is None


def test_the_leaderboard_section_with_1000_rounds_on_14_questions_4_systems():
    """Issue 29: ``analysis --kind leaderboard --bootstrap 500`` took 26 s on 14 questions ×
    4 systems. 1,000 rounds give every rating its interval; how long they take is
    measured by ``bench/leaderboard_bootstrap.py`` (no timed assertion here)."""
    from metaeval import sections
    from metaeval.reports import ReportOptions
    from tests.builders.leaderboard import leaderboard_study

    study = leaderboard_study()
    section = {s.key: s for s in sections.registered()}["leaderboard"]
    sections.Analysis(study.pk, ReportOptions(bootstrap=100)).result(section)  # warm up
    analysis = sections.Analysis(study.pk, ReportOptions(bootstrap=1000))
    board = analysis.result(section)["boards"][0]
    assert board["rounds"] == 1000 and len(board["rows"]) == 4
    assert all(r["low"] < r["rating"] < r["high"] for r in board["rows"])
