"""A live judge run grades ResearcherBench's binary rubric coverage (seed 004 §4.1.2,
Appendix E.3): each criterion covered or not, stored as ``JudgeCoverage.covered`` as the
ResearcherBench results import stores it, so the study's scoreboard S_c reads it. Before,
the only live coverage task graded 0–4, which a binary study's S_c and judge-vs-expert
coverage do not read; a 0–4 run on a binary study is now refused (and the binary task on
a graded study), each with a message saying what to run."""

from __future__ import annotations

import html
import json
import re

import pytest
from django.urls import reverse

from annotation.models import Report, RubricItem
from judges import prompts, runs
from judges.models import JudgeCoverage, JudgeRun, JudgeScore, JudgeUnit
from tests.builders.judged import build_study, make_judge
from tests.metaeval.section_checks import command

pytestmark = pytest.mark.django_db

WEIGHTS = (1, 2, 3)  # item positions 1, 2, 3
#: (system, question, aspect) the fake judge answers "yes" to; every other criterion "no"
YES = {("alpha", 1, 1), ("alpha", 1, 3), ("alpha", 2, 2),
       ("beta", 1, 2), ("beta", 2, 1), ("beta", 2, 2), ("beta", 2, 3)}  # fmt: skip
# By hand: S_c per report = Σ w·b / Σ w (Σ w = 6); a system's figure the mean over questions
SC = {("alpha", 1): (1 + 3) / 6, ("alpha", 2): 2 / 6, ("beta", 1): 2 / 6, ("beta", 2): 6 / 6}
ALPHA, BETA = (SC[("alpha", 1)] + SC[("alpha", 2)]) / 2, (SC[("beta", 1)] + SC[("beta", 2)]) / 2


def rb_study(name: str = "rb-live"):
    """Two questions × alpha, beta; three criteria a question, weights 1–3; the study's
    protocol binary coverage."""
    study = build_study(name, questions=2, systems=("alpha", "beta"), items=3, paragraphs=1)
    study.config = {"coverage_binary": True}
    study.save()
    for item in RubricItem.objects.filter(rubric__question__study=study):
        item.weight = WEIGHTS[item.position - 1]
        item.save()
    return study


def answer(prompt: str, *, malformed_for: str | None = None) -> str:
    """The fake judge: reads the system (the report's text names it) and each numbered
    criterion's aspect and topic, and answers YES as JSON."""
    system = "alpha" if "alpha finds" in prompt else "beta"
    block = prompt.split("\nCriteria:\n", 1)[1].split("\n\nAI response:", 1)[0]
    entries = []
    for line in block.splitlines():
        n, aspect, topic = map(
            int, re.match(r"(\d+)\. .*aspect (\d+) of topic (\d+)", line).groups()
        )
        if malformed_for == f"{system}:{topic}":
            return '{"criteria": [{"criterion": 1, "covered": "partly", "justification": ""}]}'
        entries.append({"criterion": n, "covered": "yes" if (system, topic, aspect) in YES
                        else "no", "justification": f"aspect {aspect} read"})  # fmt: skip
    return json.dumps({"criteria": entries})


def test_a_live_binary_run_writes_covered_verdicts_that_the_scoreboard_reads(fake_llm):
    study = rb_study()
    judge = make_judge(fake_llm, response_format="json_schema")
    fake_llm.responder = answer
    run = runs.start_run(judge, study, ["coverage_binary"])
    run.refresh_from_db()
    assert run.status == JudgeRun.Status.DONE, run.errors
    assert run.total_units == run.done_units == 4  # one call per report: 3 criteria ≤ 8
    rows = JudgeCoverage.objects.filter(judge=judge).select_related("report__system", "item")
    assert len(rows) == 12
    for row in rows:
        topic = int(row.report.question.external_id[1:])
        assert row.covered is ((row.report.system.name, topic, row.item.position) in YES)
        assert row.label is None and row.run_id == run.pk
        assert row.rationale == f"aspect {row.item.position} read"
    # the prompt: ResearcherBench's criterion judgment, the question, weights, strict JSON
    body = fake_llm.requests[0]["body"]
    text = body["messages"][0]["content"]
    assert "adequately covers" in text and "What is known about topic" in text
    assert "(weight 3)" in text and "semantic equivalence" in text
    assert body["response_format"]["json_schema"] == prompts.COVERAGE_BINARY_SCHEMA
    # S_c per report, as the ResearcherBench import sets it
    for r in Report.objects.filter(question__study=study).select_related("system", "question"):
        key = (r.system.name, int(r.question.external_id[1:]))
        score = JudgeScore.objects.get(judge=judge, report=r, metric="rubric_coverage")
        assert score.value == pytest.approx(SC[key])
    # the ResearcherBench scoreboard's S_c per system
    board = next(b for b in command(study, "scoreboard")["boards"]
                 if b["benchmark"] == "researcherbench" and b["judge"] == judge.name)  # fmt: skip
    figures = {row["system"]: row["figures"]["coverage"]["value"] for row in board["rows"]}
    assert figures == {"alpha": pytest.approx(ALPHA), "beta": pytest.approx(BETA)}
    # idempotent: nothing judged twice; a rejudge is answered from the cache
    calls = fake_llm.total_answered
    assert runs.start_run(judge, study, ["coverage_binary"]).total_units == 0
    again = runs.start_run(judge, study, ["coverage_binary"], {"rejudge": True})
    again.refresh_from_db()
    assert again.status == JudgeRun.Status.DONE and again.cache_hits == 4
    assert fake_llm.total_answered == calls and JudgeCoverage.objects.count() == 12


def test_a_malformed_answer_fails_its_unit_only(fake_llm):
    study = rb_study()
    judge = make_judge(fake_llm, format_retries=1)
    fake_llm.responder = lambda p: answer(p, malformed_for="beta:1")
    run = runs.start_run(judge, study, ["coverage_binary"])
    run.refresh_from_db()
    assert run.status == JudgeRun.Status.FAILED
    assert (run.done_units, run.failed_units) == (3, 1)
    failed = JudgeUnit.objects.get(run=run, status=JudgeUnit.Status.FAILED)
    assert "malformed answer" in failed.error and "partly" in failed.error
    assert failed.attempts == 2  # asked again once (format_retries), then given up
    beta1 = Report.objects.get(question__study=study, system__name="beta",
                               question__external_id="q1")  # fmt: skip
    assert not JudgeCoverage.objects.filter(report=beta1).exists()
    assert JudgeCoverage.objects.filter(judge=judge).count() == 9
    assert not JudgeScore.objects.filter(report=beta1, metric="rubric_coverage").exists()
    # a resume asks again the failed unit only, and completes the evidence
    fake_llm.responder = answer
    run = runs.resume_run(run)
    run.refresh_from_db()
    assert run.status == JudgeRun.Status.DONE and JudgeCoverage.objects.count() == 12
    assert JudgeScore.objects.get(report=beta1, metric="rubric_coverage").value == pytest.approx(
        SC[("beta", 1)]
    )


def test_each_study_runs_the_coverage_task_of_its_protocol(fake_llm, admin_user, client):
    binary, graded = rb_study("rb-binary"), build_study("graded", questions=1, systems=("a",))
    judge = make_judge(fake_llm)
    for task in ("coverage", "ensemble"):
        with pytest.raises(runs.RunError, match="binary rubric coverage.*run coverage_binary"):
            runs.create_run(judge, binary, [task])
    with pytest.raises(runs.RunError, match="graded coverage 0–4.*coverage_binary"):
        runs.create_run(judge, graded, ["coverage_binary"])
    assert not JudgeRun.objects.exists() and not JudgeCoverage.objects.exists()
    # the run form offers the study's own coverage task only
    client.force_login(admin_user)
    for study, offered, absent in ((binary, "coverage_binary", "coverage"),
                                   (graded, "coverage", "coverage_binary")):  # fmt: skip
        page = html.unescape(
            client.get(reverse("judge-run-list", args=[study.pk])).content.decode()
        )
        assert f'value="{offered}"' in page and f'value="{absent}"' not in page
    page = html.unescape(client.get(reverse("judge-run-list", args=[binary.pk])).content.decode())
    assert "Rubric coverage, covered or not (ResearcherBench)" in page
    # the API says why
    r = client.post(reverse("api-judge-runs"), {"judge": judge.pk, "study": binary.pk,
                    "tasks": ["coverage"]}, content_type="application/json")  # fmt: skip
    assert r.status_code == 400 and "run coverage_binary" in json.dumps(r.json())


@pytest.mark.parametrize("content, problem", [
    ("yes: covered", "no JSON object"),
    ('{"criteria": {}}', "must be a list"),
    ('{"criteria": [{"criterion": 1, "covered": "yes"}]}', "no answer for criterion 2"),
    ('{"criteria": [{"criterion": 1, "covered": "yes"}, {"criterion": 1, "covered": "no"}]}',
     "answered twice"),
    ('{"criteria": [{"criterion": 3, "covered": "yes"}, {"criterion": 1, "covered": "no"}]}',
     "not one of 1–2"),
    ('{"criteria": [{"criterion": 1, "covered": true}, {"criterion": 2, "covered": "no"}]}',
     'is not "yes" or "no"'),
])  # fmt: skip
def test_the_parser_refuses_what_is_not_one_verdict_per_criterion(content, problem):
    with pytest.raises(prompts.MalformedAnswer, match=re.escape(problem)):
        prompts.parse_coverage_binary(content, 2)
    good = '{"criteria": [{"criterion": 2, "covered": "No", "justification": "x"}, {"criterion": "1", "covered": "yes"}]}'  # noqa: E501
    assert prompts.parse_coverage_binary(good, 2) == [(True, ""), (False, "x")]


def test_the_live_verdicts_feed_the_judge_vs_expert_binary_coverage(fake_llm):
    """ResearcherBench Table 2 (004 §4.3): the live judge's accuracy, precision, recall and
    F1 against an expert's covered / not covered, by hand."""
    from annotation.models import Annotator, RubricCoverage

    study = rb_study("rb-expert-live")
    human = (YES | {("alpha", 1, 2)}) - {("beta", 2, 3)}  # the expert differs on two
    expert = Annotator.objects.create(pseudonym="expert-1")
    for r in Report.objects.filter(question__study=study).select_related("system", "question"):
        topic = int(r.question.external_id[1:])
        for item in RubricItem.objects.filter(rubric__question=r.question):
            RubricCoverage.objects.create(study=study, question=r.question, annotator=expert,
                                          report=r, item=item,
                                          covered=(r.system.name, topic, item.position) in human)  # fmt: skip
    judge = make_judge(fake_llm)
    fake_llm.responder = answer
    assert runs.start_run(judge, study, ["coverage_binary"]).status == JudgeRun.Status.DONE
    got = next(j for j in command(study, "researcherbench")["judges"] if j["judge"] == judge.name)
    tp = len(YES & human)  # 6
    precision, recall = tp / len(YES), tp / len(human)
    assert got["n"] == 12
    assert got["unweighted"]["accuracy"]["value"] == pytest.approx(10 / 12)
    assert got["unweighted"]["precision"]["value"] == pytest.approx(precision)
    assert got["unweighted"]["recall"]["value"] == pytest.approx(recall)
    assert got["unweighted"]["f1"]["value"] == pytest.approx(
        2 * precision * recall / (precision + recall)
    )
