"""A judge-results export gives back the file that was imported (issue 25, as report files
do): a ResearcherBench results record as released (its numeric id, m_weighted and
total_weight, its rounded recall, its integer weights, file order), and a ResearchQA
coverage file in the shape it came in."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from annotation.importers import run
from annotation.importers.registry import FORMATS
from annotation.models import Study
from judges.models import JudgeCoverage
from tests.builders.judged import build_study

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "annotation" / "importers" / "examples"
JUDGE_EXAMPLES = ROOT / "judges" / "formats" / "examples"
DATA = Path(__file__).parent / "data"


def dumped(fmt: str, study, **options):
    [text] = FORMATS[("judge_scores", fmt)].dump(study, **options).values()
    return json.loads(text)


def researcherbench_study(name: str) -> Study:
    run("questions", EXAMPLES / "researcherbench_questions.json", study=name,
        format="researcherbench", rubric=EXAMPLES / "researcherbench_rubric.json")  # fmt: skip
    run("reports", EXAMPLES / "researcherbench_responses.json", study=name,
        format="researcherbench", system="example-system")  # fmt: skip
    return Study.objects.get(name=name)


def test_researcherbench_results_come_back_as_released(client, admin_user):
    study = researcherbench_study("A")
    released = json.loads((JUDGE_EXAMPLES / "researcherbench_results.json").read_text())
    run("judge_scores", JUDGE_EXAMPLES / "researcherbench_results.json", study=study,
        format="researcherbench", judge="j")  # fmt: skip
    assert dumped("researcherbench", study, judge="j") == released
    client.force_login(admin_user)
    page = client.get(f"/studies/{study.pk}/export/judge_scores/researcherbench/?judge=j")
    assert page.status_code == 200 and json.loads(page.content) == released
    # re-imported unchanged, and again the same
    again = run("judge_scores", JUDGE_EXAMPLES / "researcherbench_results.json", study=study,
                format="researcherbench", judge="j")  # fmt: skip
    assert "JudgeScore" not in again.updated
    # a verdict changed since (a re-judged report): written from what is stored
    row = JudgeCoverage.objects.filter(judge__name="j", covered=True).first()
    row.covered = False
    row.save()
    [rebuilt] = dumped("researcherbench", study, judge="j")
    assert rebuilt != released[0] and rebuilt["id"] == "1"
    assert not rebuilt["result"]["coverage_results"][0]["covered"]


@pytest.mark.parametrize("name", ["researchqa_judge_listed_alpha.json",
                                  "researchqa_coverage_alpha.json"])  # fmt: skip
def test_researchqa_coverage_comes_back_in_its_shape(name):
    study = build_study("A")
    run("judge_scores", DATA / name, study=study, format="researchqa-coverage", judge="g",
        system="alpha")  # fmt: skip
    released = json.loads((DATA / name).read_text())
    got = dumped("researchqa-coverage", study, judge="g", system="alpha")
    assert type(got) is type(released)
    if isinstance(released, list):
        assert [r["corpusid_sectionid"] for r in got] == [r["corpusid_sectionid"] for r in released]
        assert got == [{k: r[k] for k in ("corpusid_sectionid", "rubric_judges_gpt")}
                       for r in released]  # fmt: skip
    else:
        assert got == released
