"""Rubric coverage sections (issue 16): ResearchQA 0–4 alignment and ResearcherBench
binary coverage on the page, the API (typed), the command, the downloads and the offline
HTML; each figure changes when an expert adds a label."""

import pytest
from django.urls import reverse

from annotation.models import Annotator, Report, RubricCoverage, RubricItem
from tests.builders.analysis import analysis_world

from .section_checks import assert_typed, everywhere, svg

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(client, researcher_user):
    study, judge = analysis_world(3)
    study.researchers.add(researcher_user)
    client.force_login(researcher_user)
    return study, judge


def _label(study, system, position, **label):
    report = Report.objects.filter(question__study=study, system__name=system).first()
    item = RubricItem.objects.get(rubric__question=report.question, rubric__kind="hybrid",
                                  position=position)  # fmt: skip
    ann = Annotator.objects.create(pseudonym=f"extra-{system}-{position}")
    RubricCoverage.objects.create(study=study, question=report.question, annotator=ann,
                                  report=report, item=item, **label)  # fmt: skip


def test_coverage_alignment_everywhere(client, world):
    study, judge = world
    got = everywhere(client, study, "coverage_alignment", "coverage_judges",
                     "coverage-alignment", "?bootstrap=100")  # fmt: skip
    block = got["judges"][0]["all"]
    # human 3, 2 vs judge 4 and human 0 vs judge 1: never exact, always on the same side
    assert block["exact"]["value"] == 0.0 and block["binarised"]["value"] == 1.0
    assert block["binarised"]["low"] is not None
    assert block["confusion"][3][4] == 3 and block["confusion"][0][1] == 3
    assert got["human_vs_human"]["pairs"] == 3
    assert "NLP" in got["judges"][0]["fields"]
    assert_typed("coverage_alignment", {"judges", "human_vs_human", "judge_differences"})
    before = svg(client, study, "coverage-alignment")
    _label(study, "alpha", 1, label=4)  # agrees exactly with the judge
    assert svg(client, study, "coverage-alignment") != before


def test_researcherbench_everywhere(client, world):
    study, judge = world
    got = everywhere(client, study, "researcherbench", "researcherbench_judges",
                     "researcherbench")  # fmt: skip
    j = got["judges"][0]
    assert j["unweighted"]["accuracy"]["value"] == 1.0  # not covered on both sides
    assert j["unweighted"]["precision"]["value"] is None  # the judge never says covered
    assert j["unweighted"]["precision"]["note"]
    assert_typed("researcherbench", {"judges", "human_coverage_by_system", "systems"})
    before = svg(client, study, "researcherbench")
    _label(study, "beta", 2, covered=True)  # disagrees with the judge
    assert svg(client, study, "researcherbench") != before
    again = client.get(reverse("api-agreement", args=[study.pk])).json()["researcherbench"]
    assert again["judges"][0]["unweighted"]["accuracy"]["value"] < 1.0
