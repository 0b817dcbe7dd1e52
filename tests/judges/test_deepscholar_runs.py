"""Live DeepScholar-Bench label runs (seed 002 §8.11) against the local fake LLM server: one
judge task kind per Table 3 label kind, its prompt, its strict parser, and the label rows
it writes — the rows the judge-label importer writes, which the Table 3 loader joins with
the experts' labels. An unparseable answer and a refusal are failed units with the reason,
never a guessed label."""

from __future__ import annotations

import json
import re

import pytest

from annotation.models import DeepScholarLabel, Exemplar, ExemplarReference, Nugget, Report
from annotation.models.deepscholar import LABELS
from judges import prompts, runs
from judges.kinds import ORGANIZATION_VOTE
from judges.models import JudgeDeepScholarLabel, JudgeRun, JudgeUnit
from metaeval.loaders.deepscholar import load_deepscholar
from tests.builders.judged import build_study, make_judge

pytestmark = pytest.mark.django_db

KINDS = list(LABELS)


def deepscholar_study(questions: int = 1, systems=("alpha", "beta")):
    """The judged study (reports with two cited sources a paragraph) plus, per question,
    an exemplar, two nuggets and two exemplar references."""
    study = build_study("deepscholar", questions=questions, systems=systems, items=1,
                        paragraphs=2)  # fmt: skip
    for q in study.questions.all():
        Exemplar.objects.create(question=q, text=f"Prior work on topic {q.pk} is grouped well.")
        for i, text in enumerate(("Transformers use attention.", "RNNs are slow."), start=1):
            Nugget.objects.create(question=q, key=f"n{i}", position=i, text=text)
        for i, title in enumerate(("Attention is all you need", "A minor workshop note"), 1):
            ExemplarReference.objects.create(question=q, key=f"r{i}", position=i, title=title)
    return study


def answer(prompt: str) -> str:
    """A scripted judge: each DeepScholar prompt answered in its own format."""
    if "Candidate related-work section A" in prompt:
        # the exemplar beats alpha's report in both orders; beta's report beats the exemplar
        a = prompt.split("section A\n", 1)[1].split("### Candidate related-work section B")[0]
        pick = "A" if ("finds fact" in a) == ("beta finds" in prompt) else "B"
        return json.dumps({"decision": pick, "explanation": f"{pick} flows better."})
    if "NuggetizeScoreLLM" in prompt:
        return "### label: vital" if "Transformers" in prompt else "### label: okay"
    if "NuggetizeAssignerLLM" in prompt:
        return "### label: partial_support" if "RNNs" in prompt else "label: support"
    if "candidate reference paper" in prompt:
        return "### final score: 2" if "Paper one" in prompt else "### final score: 0"
    if "### Reference:" in prompt:
        return "### final label: important" if "Attention" in prompt else (
            "### final label: not_important")  # fmt: skip
    if "### CLAIM:" in prompt:
        return "Answer: 1" if "Paper one" in prompt else "Answer: 0"
    return "I do not know this prompt."


def labels(judge, kind):
    return {(r.report.system.name if r.report_id else None, r.unit): r.label
            for r in JudgeDeepScholarLabel.objects.filter(judge=judge, kind=kind)
            .select_related("report__system")}  # fmt: skip


def test_every_kind_is_a_run_task_with_its_labels(fake_llm):
    study = deepscholar_study()
    judge = make_judge(fake_llm)
    fake_llm.responder = answer
    run = runs.start_run(judge, study, KINDS)
    run.refresh_from_db()
    assert run.status == JudgeRun.Status.DONE, run.errors
    # 2 reports × 2 orders + 2 nuggets + 2 reports × 2 nuggets + 2 reports × 2 sources
    # + 2 references + 2 reports × 2 paragraphs × 2 sources
    assert (run.total_units, run.done_units) == (4 + 2 + 4 + 4 + 2 + 8, 24)
    assert labels(judge, "organization") == {("alpha", ""): "lose", ("beta", ""): "win"}
    assert labels(judge, "nugget_importance") == {(None, "n1"): "vital", (None, "n2"): "non_vital"}
    assert labels(judge, "nugget_support") == {
        (s, n): lab for s in ("alpha", "beta")
        for n, lab in (("n1", "supported"), ("n2", "partially_supported"))
    }  # fmt: skip
    assert labels(judge, "retrieval_relevance") == {
        (s, k): g for s in ("alpha", "beta") for k, g in (("1", "2"), ("2", "0"))
    }
    assert labels(judge, "reference_importance") == {
        (None, "r1"): "important",
        (None, "r2"): "not_important",
    }
    assert labels(judge, "entailment") == {
        (s, f"{p}:{k}"): lab for s in ("alpha", "beta") for p in (1, 2)
        for k, lab in (("1", "entailed"), ("2", "not_entailed"))
    }  # fmt: skip
    for kind in KINDS:  # every live label is one of the experts' labels
        got = set(JudgeDeepScholarLabel.objects.filter(judge=judge, kind=kind)
                  .values_list("label", flat=True))  # fmt: skip
        assert got and got <= set(LABELS[kind]), kind
    # the one-order answers stay apart: two per report, not read as labels
    assert JudgeDeepScholarLabel.objects.filter(judge=judge, kind=ORGANIZATION_VOTE).count() == 4
    # a second run has nothing to judge; a rejudge rewrites without duplicating a label
    again = runs.start_run(judge, study, KINDS)
    assert again.total_units == 0
    before = JudgeDeepScholarLabel.objects.filter(judge=judge).count()
    redo = runs.start_run(judge, study, KINDS, {"rejudge": True})
    redo.refresh_from_db()
    assert redo.status == JudgeRun.Status.DONE and redo.done_units == 24
    assert JudgeDeepScholarLabel.objects.filter(judge=judge).count() == before


def test_live_labels_feed_table3_like_imported_ones(fake_llm, annotator_user):
    study = deepscholar_study()
    judge = make_judge(fake_llm)
    fake_llm.responder = answer
    runs.start_run(judge, study, ["nugget_importance", "organization"])
    q = study.questions.get()
    alpha = Report.objects.get(question=q, system__name="alpha")
    for kind, report, unit, label in (("nugget_importance", None, "n1", "vital"),
                                      ("nugget_importance", None, "n2", "vital"),
                                      ("organization", alpha, "", "lose")):  # fmt: skip
        DeepScholarLabel.objects.create(study=study, annotator=annotator_user.annotator,
                                        question=q, kind=kind, report=report, unit=unit,
                                        label=label)  # fmt: skip
    data = load_deepscholar(study.pk)
    assert data.judges == [judge.name]
    pairs = sorted(zip(data.kind, data.human, data.verdict, strict=True))
    assert pairs == [("nugget_importance", "vital", "non_vital"),
                     ("nugget_importance", "vital", "vital"),
                     ("organization", "lose", "lose")]  # fmt: skip


def test_an_unparseable_answer_is_a_failed_unit_with_the_reason(fake_llm):
    study = deepscholar_study(systems=("alpha",))
    judge = make_judge(fake_llm, format_retries=1)
    fake_llm.responder = lambda p: "### final score: 3" if "candidate reference" in p else answer(p)
    run = runs.start_run(judge, study, ["retrieval_relevance", "reference_importance"])
    run.refresh_from_db()
    assert run.status == JudgeRun.Status.FAILED
    assert (run.done_units, run.failed_units) == (2, 2)
    failed = JudgeUnit.objects.filter(run=run, status=JudgeUnit.Status.FAILED)
    assert {u.task for u in failed} == {"retrieval_relevance"}
    assert all(re.search(r"malformed answer: '3' is not one of 0, 1, 2", u.error) for u in failed)
    assert all(u.attempts == 2 for u in failed)  # asked again once, then given up
    assert not JudgeDeepScholarLabel.objects.filter(judge=judge, kind="retrieval_relevance")
    assert (
        JudgeDeepScholarLabel.objects.filter(judge=judge, kind="reference_importance").count() == 2
    )


def test_a_refusal_is_a_failed_unit_and_no_label(fake_llm):
    study = deepscholar_study(systems=("alpha",))
    judge = make_judge(fake_llm, concurrency=1)
    fake_llm.responder = answer
    fake_llm.faults.append("refusal")
    run = runs.start_run(judge, study, ["nugget_importance"])
    run.refresh_from_db()
    assert run.status == JudgeRun.Status.FAILED and (run.done_units, run.failed_units) == (1, 1)
    unit = JudgeUnit.objects.get(run=run, status=JudgeUnit.Status.FAILED)
    assert "refused" in unit.error and "refused" in run.errors[0]["error"]
    assert JudgeDeepScholarLabel.objects.filter(judge=judge).count() == 1
    # a resume asks the refused unit again, and only it
    run = runs.resume_run(run)
    run.refresh_from_db()
    assert run.status == JudgeRun.Status.DONE
    assert labels(judge, "nugget_importance") == {(None, "n1"): "vital", (None, "n2"): "non_vital"}


def test_one_organization_order_failing_leaves_the_report_unlabelled(fake_llm):
    study = deepscholar_study(systems=("alpha",))
    judge = make_judge(fake_llm, format_retries=0)
    fake_llm.responder = lambda p: ("Section A, surely." if "section A\n## Findings" in p
                                    else answer(p))  # fmt: skip
    run = runs.start_run(judge, study, ["organization"])
    run.refresh_from_db()
    assert (run.done_units, run.failed_units) == (1, 1)
    assert "no JSON object" in run.errors[0]["error"]
    assert not JudgeDeepScholarLabel.objects.filter(judge=judge, kind="organization").exists()


@pytest.mark.parametrize(
    ("parse", "content", "expected"),
    [
        (prompts.parse_organization, '{"decision": "b", "explanation": "x"}', ("B", "x")),
        (prompts.parse_nugget_importance, "### Label: **Okay**", "non_vital"),
        (prompts.parse_nugget_support, "label: not_support", "not_supported"),
        (prompts.parse_retrieval_relevance, "Reasoning first.\n### final score: 1", "1"),
        (prompts.parse_reference_importance, "### final label: not important", "not_important"),
        (prompts.parse_entailment, "Answer: 0", "not_entailed"),
    ],
)
def test_parsers_read_the_asked_format(parse, content, expected):
    assert parse(content) == expected


@pytest.mark.parametrize(
    ("parse", "content", "why"),
    [
        (prompts.parse_organization, '{"decision": "tie"}', 'is not "A" or "B"'),
        (prompts.parse_organization, "A is better", "no JSON object"),
        (prompts.parse_nugget_importance, "vital", "no 'label: <label>' line"),
        (prompts.parse_nugget_support, "label: maybe", "'maybe' is not one of"),
        (prompts.parse_retrieval_relevance, "final score: 1\nfinal score: 2", "several"),
        (prompts.parse_entailment, "Answer: 1 or Answer: 0", "is not one of"),
    ],
)
def test_parsers_refuse_anything_else(parse, content, why):
    with pytest.raises(prompts.MalformedAnswer, match=re.escape(why)):
        parse(content)


def test_started_from_the_run_page_the_api_and_the_command(fake_llm, admin_user, client):
    """The DeepScholar kinds start where every judge run starts: the run page's form
    offers them, the API and the ``judge_run`` command accept them."""
    import io

    from django.core.management import call_command
    from django.urls import reverse
    from rest_framework.test import APIClient

    study = deepscholar_study(systems=("alpha",))
    judge = make_judge(fake_llm)
    fake_llm.responder = answer
    client.force_login(admin_user)
    page = client.get(reverse("judge-run-list", args=[study.pk])).content.decode()
    for kind in KINDS:
        assert f'value="{kind}"' in page, kind
    r = client.post(reverse("judge-run-start", args=[study.pk]),
                    {"judge": judge.pk, "tasks": ["organization"]})  # fmt: skip
    assert r.status_code == 302
    assert labels(judge, "organization") == {("alpha", ""): "lose"}
    api = APIClient()
    api.force_authenticate(admin_user)
    body = {"judge": judge.pk, "study": study.pk, "tasks": ["entailment", "nugget_support"]}
    got = api.post("/api/judge-runs/", body, format="json")
    assert got.status_code == 202 and got.json()["status"] == "done", got.json()
    assert len(labels(judge, "entailment")) == 4 and len(labels(judge, "nugget_support")) == 2
    out = io.StringIO()
    call_command("judge_run", study=study.name, judge=judge.name,
                 tasks="reference_importance", stdout=out)  # fmt: skip
    assert "2/2 units done, 0 failed" in out.getvalue()
    assert labels(judge, "reference_importance") == {
        (None, "r1"): "important",
        (None, "r2"): "not_important",
    }
