"""Live judge runs end to end against the local fake LLM server (tasks run eagerly here;
``test_worker`` runs them through a real Celery worker)."""

from __future__ import annotations

import json
import re

import pytest

from annotation.models import Paragraph, Report
from judges import runs
from judges.models import (
    JudgeClaimVerdict,
    JudgeCoverage,
    JudgePairwise,
    JudgeRelevance,
    JudgeRun,
    JudgeScore,
    JudgeUnit,
    LLMResponse,
)
from judges.scoring import researchqa
from tests.builders.judged import build_study, make_judge

pytestmark = pytest.mark.django_db


def questions_in(prompt: str) -> int:
    block = prompt.split("Questions:\n", 1)[1].rsplit("\n\nOutput:", 1)[0]
    return len([line for line in block.splitlines() if line.strip()])


def test_coverage_run_eight_items_a_call_with_tokens_and_cost(fake_llm):
    study = build_study()
    judge = make_judge(fake_llm)
    seen = []
    fake_llm.responder = lambda p: (seen.append(questions_in(p)), _default(p))[1]
    run = runs.start_run(judge, study, ["coverage"])
    run.refresh_from_db()
    assert run.status == JudgeRun.Status.DONE, run.errors
    # 2 questions × 3 reports × (8 + 2 items)
    assert run.total_units == run.done_units == 12
    assert sorted(seen) == [2] * 6 + [8] * 6
    assert JudgeCoverage.objects.filter(judge=judge).count() == 60
    assert set(fake_llm.answered.values()) == {1} and len(fake_llm.answered) == 12
    assert run.requests == 12 and run.cache_hits == 0
    units = JudgeUnit.objects.filter(run=run)
    assert run.prompt_tokens == sum(u.prompt_tokens for u in units) > 0
    assert run.completion_tokens == sum(u.completion_tokens for u in units) > 0
    assert run.cost == pytest.approx((run.prompt_tokens * 2 + run.completion_tokens * 8) / 1e6)
    assert fake_llm.models == {"fake-model": 12} and fake_llm.auth == {"Bearer sk-test"}
    # per-report coverage score = mean(label)/4 over the report's items
    report = Report.objects.filter(question__study=study).first()
    labels = list(
        JudgeCoverage.objects.filter(judge=judge, report=report).values_list("label", flat=True)
    )
    score = JudgeScore.objects.get(judge=judge, report=report, metric="rubric_coverage")
    assert score.value == pytest.approx(researchqa.answer_coverage(labels))


def _default(prompt):
    from tests.judges.fake_llm import default_answer

    return default_answer(prompt)


def test_rate_limits_server_errors_timeouts_and_bad_bodies_are_retried(fake_llm):
    study = build_study(questions=1, systems=("alpha",))
    judge = make_judge(fake_llm, timeout=0.5)
    fake_llm.faults.extend([429, 500, 503, "badjson", "timeout", 429])
    run = runs.start_run(judge, study, ["coverage"])
    run.refresh_from_db()
    assert run.status == JudgeRun.Status.DONE, run.errors
    assert fake_llm.statuses == {429: 2, 500: 1, 503: 1, "badjson": 1, "timeout": 1}
    assert run.done_units == 2 and run.requests == 2 + 6
    assert JudgeCoverage.objects.filter(judge=judge).count() == 10


def test_wrong_label_count_is_asked_again(fake_llm):
    study = build_study(questions=1, systems=("alpha",))
    judge = make_judge(fake_llm, concurrency=1)
    fake_llm.faults.append("malformed")  # two lines for an 8-item batch
    run = runs.start_run(judge, study, ["coverage"])
    run.refresh_from_db()
    assert run.status == JudgeRun.Status.DONE
    assert sorted(fake_llm.answered.values()) == [1, 2]  # the malformed batch asked twice
    unit = JudgeUnit.objects.get(run=run, key__endswith=":0")
    assert unit.attempts == 2
    assert not LLMResponse.objects.filter(content__contains="not sure").exists()


def test_failures_are_recorded_and_a_resume_retries_only_them(fake_llm):
    study = build_study(questions=1, systems=("alpha",))
    judge = make_judge(fake_llm, concurrency=1, max_retries=1)
    fake_llm.faults.extend([500, 500])  # the first unit exhausts its retries
    run = runs.start_run(judge, study, ["coverage"])
    run.refresh_from_db()
    assert run.status == JudgeRun.Status.FAILED
    assert (run.done_units, run.failed_units) == (1, 1)
    assert "coverage:" in run.errors[0]["unit"] and "500" in run.errors[0]["error"]
    before = dict(fake_llm.answered)
    run = runs.resume_run(run)
    run.refresh_from_db()
    assert run.status == JudgeRun.Status.DONE and (run.done_units, run.failed_units) == (2, 0)
    new = {k: v - before.get(k, 0) for k, v in fake_llm.answered.items() if v != before.get(k, 0)}
    assert list(new.values()) == [1]  # only the failed unit was asked again


def test_permanent_errors_are_not_retried(fake_llm):
    study = build_study(questions=1, systems=("alpha",), items=3)
    judge = make_judge(fake_llm)
    fake_llm.faults.append(401)
    run = runs.start_run(judge, study, ["coverage"])
    run.refresh_from_db()
    assert run.status == JudgeRun.Status.FAILED
    assert sum(fake_llm.statuses.values()) == 1 and "401" in run.errors[0]["error"]


def test_response_cache_answers_a_rejudge_without_calls(fake_llm):
    study = build_study(questions=1)
    judge = make_judge(fake_llm)
    runs.start_run(judge, study, ["coverage"])
    calls = fake_llm.total_answered
    again = runs.start_run(judge, study, ["coverage"])
    assert again.total_units == 0  # nothing left to judge: never judged twice
    rerun = runs.start_run(judge, study, ["coverage"], {"rejudge": True})
    rerun.refresh_from_db()
    assert rerun.status == JudgeRun.Status.DONE
    assert rerun.cache_hits == rerun.total_units == 6 and rerun.requests == 0
    assert rerun.cost == 0 and fake_llm.total_answered == calls


def test_concurrency_limit(fake_llm):
    study = build_study(questions=2)
    judge = make_judge(fake_llm, concurrency=3)
    fake_llm.delay = 0.05
    run = runs.start_run(judge, study, ["coverage"])
    run.refresh_from_db()
    assert run.status == JudgeRun.Status.DONE
    assert 1 < fake_llm.max_inflight <= 3


def test_pairwise_both_orders_and_the_ensemble_decision(fake_llm):
    study = build_study(questions=1)
    judge = make_judge(fake_llm)
    run = runs.start_run(judge, study, ["ensemble"])
    run.refresh_from_db()
    assert run.status == JudgeRun.Status.DONE, run.errors
    direct = JudgePairwise.objects.filter(judge=judge, protocol="direct")
    assert direct.count() == 6  # 3 comparisons × 2 orders
    assert set(direct.values_list("choice", flat=True)) == {"left"}  # "Response 1" always
    assert all(p.rationale for p in direct)
    ensembles = JudgePairwise.objects.filter(judge=judge, protocol="ensemble")
    assert ensembles.count() == 3
    for e in ensembles:
        assert e.left.system.name < e.right.system.name
        first = direct.get(left=e.left, right=e.right).choice == "left"
        swapped = direct.get(left=e.right, right=e.left).choice == "right"
        cov = {
            r: list(
                JudgeCoverage.objects.filter(judge=judge, report=r).values_list("label", flat=True)
            )
            for r in (e.left, e.right)
        }
        a = researchqa.ensemble_score(first, swapped, cov[e.left])
        b = researchqa.ensemble_score(not first, not swapped, cov[e.right])
        assert (e.score_left, e.score_right) == (a, b)
        assert e.choice == {1: "left", -1: "right", 0: "tie"}[researchqa.ensemble_decision(a, b)]


def test_relevance_flags_with_rationale(fake_llm):
    study = build_study(questions=1)
    judge = make_judge(fake_llm)

    def answer(prompt):
        if "beta finds" in prompt:
            return '```json\n{"irrelevant": [{"paragraph": 2, "reason": "off topic"}]}\n```'
        return '{"irrelevant": []}'

    fake_llm.responder = answer
    run = runs.start_run(judge, study, ["relevance"])
    run.refresh_from_db()
    assert run.status == JudgeRun.Status.DONE
    flagged = JudgeRelevance.objects.get(judge=judge, relevant=False)
    assert flagged.paragraph.number == 2 and flagged.rationale == "off topic"
    beta = Report.objects.get(question__study=study, system__name="beta")
    assert JudgeScore.objects.get(judge=judge, report=beta, metric="answer_relevance").value == (
        pytest.approx(2 / 3)
    )
    assert (
        JudgeRelevance.objects.filter(judge=judge).count()
        == Paragraph.objects.filter(report__question__study=study).count()
    )


def test_claim_citation_support_and_the_overall_score(fake_llm):
    study = build_study(questions=1, systems=("alpha", "beta"))
    judge = make_judge(fake_llm)
    run = runs.start_run(judge, study, ["coverage", "relevance", "citations"])
    run.refresh_from_db()
    assert run.status == JudgeRun.Status.DONE, run.errors
    report = Report.objects.filter(question__study=study).first()
    verdicts = JudgeClaimVerdict.objects.filter(judge=judge, report=report)
    assert verdicts.count() == 6  # 3 paragraphs × 2 claims
    assert {tuple(c["key"] for c in v.citations) for v in verdicts} == {("1",), ("2",)}
    scores = dict(
        JudgeScore.objects.filter(judge=judge, report=report).values_list("metric", "value")
    )
    # claim [1] has a snippet (credit 1), claim [2] is title-only (credit ½)
    assert scores["citation_precision"] == pytest.approx(0.75)
    assert scores["citation_recall"] == pytest.approx(0.75)
    assert scores["answer_relevance"] == 1.0
    parts = [scores[m] for m in ("answer_relevance", "answer_recall", "citation_precision",
                                 "citation_recall")]  # fmt: skip
    assert scores["overall"] == pytest.approx(sum(parts) / 4)


def test_claim_answers_naming_unknown_citations_are_malformed(fake_llm):
    study = build_study(questions=1, systems=("alpha",), paragraphs=1)
    judge = make_judge(fake_llm, format_retries=1)
    fake_llm.responder = lambda p: json.dumps({"verdict": "supported", "supporting": ["9"]})
    run = runs.start_run(judge, study, ["citations"])
    run.refresh_from_db()
    assert run.status == JudgeRun.Status.FAILED
    assert re.search(r"'9' is not a citation", run.errors[0]["error"])


def test_a_run_needs_an_endpoint_and_known_tasks(fake_llm, settings):
    from judges.models import Judge

    study = build_study(questions=1, systems=("alpha",))
    settings.LLM_BASE_URL = ""
    bare = Judge.objects.create(name="no-endpoint", model="m")
    with pytest.raises(runs.RunError, match="no endpoint"):
        runs.create_run(bare, study, ["coverage"])
    judge = make_judge(fake_llm)
    with pytest.raises(runs.RunError, match="tasks: bogus"):
        runs.create_run(judge, study, ["bogus"])
    odd = make_judge(fake_llm, name="odd", colour="blue")
    with pytest.raises(runs.RunError, match="unknown parameter"):
        runs.create_run(odd, study, ["coverage"])


def test_a_superseded_execution_does_nothing(fake_llm):
    study = build_study(questions=1, systems=("alpha",))
    judge = make_judge(fake_llm)
    run = runs.create_run(judge, study, ["coverage"])
    old = run.lease
    JudgeRun.objects.filter(pk=run.pk).update(lease="newer")
    assert runs.execute_run(run.pk, old) == "skipped"
    assert fake_llm.total_answered == 0


def test_a_run_writes_in_batches_not_per_unit(fake_llm):
    """Per-unit transactions limited a run against a fast endpoint (issue 18): the whole
    run — units read in chunks, answers cached and results upserted in batches, the
    heartbeat, finalize — takes fewer queries than it has units."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    study = build_study(questions=4, systems=("a", "b", "c", "d", "e"), items=16)
    judge = make_judge(fake_llm, concurrency=8)
    run = runs.create_run(judge, study, ["coverage", "pairwise"])
    assert run.total_units == 4 * 5 * 2 + 4 * 10 * 2  # 40 coverage + 80 pairwise
    with CaptureQueriesContext(connection) as queries:
        assert runs.execute_run(run.pk, run.lease) == JudgeRun.Status.DONE
    run.refresh_from_db()
    assert run.done_units == run.total_units == 120 and run.requests == 120
    assert JudgeCoverage.objects.filter(judge=judge).count() == 4 * 5 * 16
    assert JudgePairwise.objects.filter(judge=judge, protocol="direct").count() == 80
    assert len(queries) < run.total_units, len(queries)  # was ~25 a unit
