"""Judge scores are checked against their metric's scale and name (judges.scoring.metrics,
METHODS §4): before, a CSV value of 1.7 or −3, a metric ``overal`` and a ScholarQA-CS2
``model_overall`` of 1.5 were stored (only NaN was refused), and an unknown system of a
CSV row was reported under the field ``question``."""

from __future__ import annotations

import json

import pytest
from rest_framework.test import APIClient

from annotation.importers import ImportFailed, run
from judges.importers import import_judge_scores
from judges.models import JudgeScore
from judges.scoring.metrics import JUDGE_METRICS
from tests.annotation.test_import_common import table_counts
from tests.builders.judged import build_study

pytestmark = pytest.mark.django_db

HEADER = "question,system,metric,value\n"


def _problems(payload: str, *, dry_run: bool = False) -> list[tuple[int, str, str]]:
    before = table_counts()
    with pytest.raises(ImportFailed) as info:
        import_judge_scores(payload.encode(), study="scales", judge="j", format="csv",
                            dry_run=dry_run)  # fmt: skip
    assert table_counts() == before
    return [(p.record, p.field, p.message) for p in info.value.problems]


@pytest.mark.parametrize("dry_run", [False, True])
def test_a_csv_value_outside_its_scale_is_refused_naming_the_range(dry_run):
    build_study("scales", questions=1, systems=("alpha", "beta"))
    got = _problems(HEADER + "q1,alpha,overall,1.7\nq1,beta,answer_recall,-3\n", dry_run=dry_run)
    assert got == [
        (1, "value", "1.7 is outside the scale of overall, [0, 1]"),
        (2, "value", "-3.0 is outside the scale of answer_recall, [0, 1]"),
    ]


def test_a_misspelt_csv_metric_is_refused_naming_the_close_one():
    build_study("scales", questions=1, systems=("alpha",))
    ((record, field, message),) = _problems(HEADER + "q1,alpha,overal,0.5\n")
    assert (record, field) == (1, "metric")
    assert message.startswith("unknown metric 'overal'; did you mean 'overall'?")
    assert "rubric_coverage" in message  # the metrics known are named


def test_an_unknown_system_is_reported_under_system():
    build_study("scales", questions=1, systems=("alpha",))
    got = _problems(HEADER + "q1,nosuch,overall,0.5\n")
    assert got == [(1, "system", "no system 'nosuch' in study 'scales'")]


def test_the_bounds_themselves_are_accepted():
    build_study("scales", questions=1, systems=("alpha", "beta"))
    import_judge_scores((HEADER + "q1,alpha,overall,0\nq1,beta,overall,1\n").encode(),
                        study="scales", judge="j", format="csv")  # fmt: skip
    assert sorted(JudgeScore.objects.values_list("value", flat=True)) == [0.0, 1.0]


PAIR = {
    "question": "How do sparse attention methods scale?",
    "models": ["alpha", "beta"],
    "model_overall": [0.5, 0.25],
    "model_citation_recall": [0.5, 0.25],
    "preference_ranking_norm": [1.0, 0.0],
}


@pytest.mark.parametrize(
    ("field", "values"),
    [("model_overall", [1.5, 0.25]), ("model_citation_recall", [0.5, -0.1])],
)
def test_a_scholarqa_judge_score_outside_its_scale_is_refused(field, values):
    record = {**PAIR, field: values}
    before = table_counts()
    with pytest.raises(ImportFailed) as info:
        run("pairwise", json.dumps([record]).encode(), study="S", annotator="a",
            judge="g", setting="near_expert")  # fmt: skip
    assert table_counts() == before
    ((p),) = info.value.problems
    assert (p.record, p.field) == (1, field) and "[0, 1]" in p.message


def test_the_api_refuses_an_unknown_metric_and_a_value_off_scale(admin_user):
    from judges.models import Judge

    build_study("scales", questions=1, systems=("alpha",))
    from annotation.models import Report

    report = Report.objects.get()
    judge = Judge.objects.create(name="j")
    api = APIClient()
    api.force_authenticate(admin_user)
    body = {"judge": judge.pk, "report": report.public_id, "metric": "overal", "value": 0.5}
    r = api.post("/api/judge-scores/", body, format="json")
    assert r.status_code == 400 and "did you mean 'overall'" in r.json()["metric"][0]
    r = api.post("/api/judge-scores/", {**body, "metric": "overall", "value": 2}, format="json")
    assert r.status_code == 400 and "[0, 1]" in r.json()["value"][0]
    r = api.post("/api/judge-scores/", {**body, "metric": "overall"}, format="json")
    assert r.status_code == 201, r.json()
    r = api.patch(f"/api/judge-scores/{r.json()['id']}/", {"value": -1}, format="json")
    assert r.status_code == 400 and not JudgeScore.objects.filter(value=-1).exists()


def test_every_metric_the_platform_stores_is_declared():
    from judges.formats.scholarqa_pairwise import FILE_METRICS
    from metaeval.frame import ALL_METRICS

    assert set(FILE_METRICS.values()) <= set(JUDGE_METRICS)
    assert set(ALL_METRICS) <= set(JUDGE_METRICS)
    assert "rubric_coverage" in JUDGE_METRICS
