"""Metric-wise is never planned on a report that cannot hold the study's claims (found by a
tester: ``assign --task metric_wise`` on a ResearcherBench study gave Claude's report, which
cites nothing, and every submit answered "Claims (Report A): select 3–5 claims; you have 0").

A metric-wise claim ends in a citation and each report needs ``claims_min`` of them, so the
planner (the command, the admin page and the API all preview through it) leaves out a report
with fewer citation markers than that, and a question with no report left, saying why."""

import io

import pytest
from django.core.management import call_command
from django.utils import timezone

from annotation.assignment import SETTING_OF
from annotation.models import Assignment, Draft, Paragraph, Question, Report
from studio.api import plan_answer
from studio.studyadmin.planning import PlanSpec, commit, preview
from tests.builders.planning import make_annotators, make_study


def _uncite(reports, keep=0):
    """Leave each report ``keep`` of its citation markers (the builder's paragraph has 3)."""
    for r in reports:
        for p in Paragraph.objects.filter(report=r):
            p.anchors = p.anchors[:keep]
            p.save(update_fields=["anchors"])


@pytest.fixture
def study(db):
    study = make_study(questions=4, systems=3, tasks=["metric_wise"])
    make_annotators(2)
    q0, q1 = Question.objects.filter(study=study).order_by("pk")[:2]
    _uncite(Report.objects.filter(question=q0))  # ResearcherBench-like: no citation at all
    _uncite(Report.objects.filter(question=q1, system__name="S0"), keep=2)  # 2 of 3 needed
    return study, q0, q1


def test_a_report_without_the_claims_minimum_of_citations_is_never_shown(study):
    study, q0, q1 = study
    p = preview(study, PlanSpec(task="metric_wise", overlap=2, seed=1))
    [left] = p.left_out
    assert left.key == q0.external_id
    assert "fewer than 3 citations" in left.reason and "3–5 claims per report" in left.reason
    shown = {r for a in p.plan.assignments for r in a.reports}
    s0_of_q1 = Report.objects.get(question=q1, system__name="S0").pk
    assert s0_of_q1 not in shown
    assert {a.question for a in p.plan.assignments} == set(
        Question.objects.filter(study=study).exclude(pk=q0.pk).values_list("pk", flat=True)
    )
    commit(study, PlanSpec(task="metric_wise", overlap=2, seed=1))
    assert not Assignment.objects.filter(question=q0).exists()


def test_the_claims_minimum_is_the_studys(study):
    study, q0, q1 = study
    study.config = {"claims_min": 2, "claims_max": 5}
    study.save(update_fields=["config"])
    p = preview(study, PlanSpec(task="metric_wise", overlap=2, seed=1))
    assert [u.key for u in p.left_out] == [q0.external_id]
    assert "fewer than 2 citations" in p.left_out[0].reason
    s0_of_q1 = Report.objects.get(question=q1, system__name="S0").pk
    assert any(s0_of_q1 in a.reports for a in p.plan.assignments)


def test_the_command_says_how_many_questions_are_left_out_and_why(study):
    study, q0, _ = study
    out = io.StringIO()
    call_command("assign", study=study.name, task="metric_wise", overlap=2, stdout=out)
    text = out.getvalue()
    assert "questions left out: 1" in text
    assert "1: its reports have fewer than 3 citations each" in text


def test_other_tasks_still_show_a_report_without_citations(study):
    study, q0, _ = study
    study.tasks = ["medal_ranking"]
    study.save(update_fields=["tasks"])
    p = preview(study, PlanSpec(task="medal_ranking", overlap=1, seed=1))
    assert not p.left_out
    assert q0.pk in {a.question for a in p.plan.assignments}


def test_a_replan_withdraws_unstarted_metric_wise_work_on_uncited_reports_only(study):
    """Assignments made before the rule (by hand here: the plan no longer gives them) on a
    report citing too little: a re-plan withdraws the unstarted one and says so; started and
    submitted work on such a report stays, and so does unstarted work on cited reports."""
    study, q0, q1 = study
    ann = make_annotators(3, prefix="Old")
    s0_of_q1 = Report.objects.get(question=q1, system__name="S0").pk
    others = sorted(Report.objects.filter(question=q1).exclude(pk=s0_of_q1)
                    .values_list("pk", flat=True))  # fmt: skip
    q2 = Question.objects.filter(study=study).order_by("pk")[2]
    cited = sorted(Report.objects.filter(question=q2).values_list("pk", flat=True))[:2]
    setting = SETTING_OF["random"]

    def given(annotator, question, reports, **status):
        return Assignment.objects.create(
            study=study, annotator=annotator, question=question, task="metric_wise",
            setting=setting, report_order=reports, **status,
        )  # fmt: skip

    unstarted = given(ann[0], q1, [s0_of_q1, others[0]])
    started = given(ann[1], q1, [s0_of_q1, others[0]], status=Assignment.Status.IN_PROGRESS,
                    started_at=timezone.now())  # fmt: skip
    Draft.objects.create(assignment=started, version=1)
    submitted = given(ann[2], q0, list(Report.objects.filter(question=q0).values_list("pk",
                      flat=True))[:2], status=Assignment.Status.SUBMITTED)  # fmt: skip
    fine = given(ann[0], q2, cited)
    spec = PlanSpec(task="metric_wise", overlap=2, seed=1)
    shown = preview(study, spec)
    assert [pk for pk, _, _ in shown.withdrawn] == [unstarted.pk]
    assert Assignment.objects.get(pk=unstarted.pk).status == Assignment.Status.NOT_STARTED
    done = commit(study, spec, fingerprint=shown.fingerprint)
    status = dict(Assignment.objects.values_list("pk", "status"))
    assert status[unstarted.pk] == Assignment.Status.WITHDRAWN
    assert status[started.pk] == Assignment.Status.IN_PROGRESS
    assert Draft.objects.filter(assignment=started).exists()
    assert status[submitted.pk] == Assignment.Status.SUBMITTED
    assert status[fine.pk] == Assignment.Status.NOT_STARTED
    # the admin is told what was withdrawn and why (page message, API, command)
    assert "1 unstarted assignments on reports with fewer than 3 citations" in (
        done.withdrawn_said()
    )
    answer = plan_answer(done, True)
    assert answer["withdrawn"] == 1
    assert "fewer than 3 citations" in answer["withdrawn_reasons"][0]["reason"]
    # the question is planned again on its cited reports only
    new = Assignment.objects.filter(question=q1, pk__gt=fine.pk)
    assert new.exists() and all(s0_of_q1 not in a.report_order for a in new)
    assert preview(study, spec).withdrawn == ()


def test_the_command_says_it_withdraws_unstarted_work_on_uncited_reports(study):
    study, _q0, q1 = study
    [ann] = make_annotators(1, prefix="Old")
    s0_of_q1 = Report.objects.get(question=q1, system__name="S0").pk
    Assignment.objects.create(study=study, annotator=ann, question=q1, task="metric_wise",
                              setting=SETTING_OF["random"], report_order=[s0_of_q1])  # fmt: skip
    out = io.StringIO()
    call_command("assign", study=study.name, task="metric_wise", overlap=2, stdout=out)
    assert "would withdraw 1 unstarted assignments on reports with fewer than 3 citations" in (
        out.getvalue()
    )


# --- Distinct claims, not markers -----------------------------------------------------------

#: Three markers, two claims: ``[1] [1]`` side by side end one claim (the page takes a run
#: of markers as one claim's citations, each key once), as ResearcherBench question 27's
#: OpenAI report ("…regulatory inertia [1] [1].) … hiring) [2].").
TWICE = "A claim [1] [1]. A second claim [2]."
TWICE_ANCHORS = [[8, 11, "[1]"], [12, 15, "[1]"], [33, 36, "[2]"]]


@pytest.mark.parametrize(
    ("text", "anchors", "claims"),
    [
        (TWICE, TWICE_ANCHORS, 2),
        ("A [1][2]. B [3].", [[2, 5, "[1]"], [5, 8, "[2]"], [12, 15, "[3]"]], 2),
        ("A [1], [2]. B [3].", [[2, 5, "[1]"], [7, 10, "[2]"], [14, 17, "[3]"]], 2),
        ("[1] opens it. B [2].", [[0, 3, "[1]"], [16, 19, "[2]"]], 1),  # no words before [1]
        ("Yes [1]. Yes [2].", [[4, 7, "[1]"], [13, 16, "[2]"]], 1),  # the same claim twice
        ("A [1]. B [9].", [[2, 5, "[1]"], [9, 12, "[9]"]], 1),  # [9] is no source: no marker
        ("A claim [1]. A second claim [2]. A third claim [3].", None, 3),
    ],
)
def test_the_claims_a_paragraph_can_give_are_what_the_submit_accepts(text, anchors, claims):
    from annotation.annotate.metric_wise import possible_claims
    from tests.builders.planning import ANCHORS

    keys = {"[1]", "[2]", "[3]"}
    assert possible_claims(text, ANCHORS if anchors is None else anchors, keys) == claims


def test_a_report_whose_markers_end_fewer_claims_than_the_minimum_is_never_shown(study):
    """Three markers but two distinct claims: counted by markers it was planned, and its
    submit could never pass (the same claim twice, or a citation listed twice, is refused)."""
    study, q0, q1 = study
    q2 = Question.objects.filter(study=study).order_by("pk")[2]
    twice = Report.objects.get(question=q2, system__name="S1")
    Paragraph.objects.filter(report=twice).update(text=TWICE, anchors=TWICE_ANCHORS)
    p = preview(study, PlanSpec(task="metric_wise", overlap=2, seed=1))
    shown = {r for a in p.plan.assignments for r in a.reports}
    assert twice.pk not in shown
    assert Report.objects.get(question=q2, system__name="S0").pk in shown
    study.config = {"claims_min": 2, "claims_max": 5}
    study.save(update_fields=["config"])
    p = preview(study, PlanSpec(task="metric_wise", overlap=2, seed=1))
    assert twice.pk in {r for a in p.plan.assignments for r in a.reports}


@pytest.mark.shared_data
def test_researcherbench_question_27s_openai_report_is_never_planned(db, tmp_path):
    """The released report the tester could not submit: OpenAI's answer to question 27
    cites three markers, two of them side by side (``[1] [1]``): two distinct claims."""
    import json
    from pathlib import Path

    from annotation.importers import run
    from annotation.models import Study

    folder = Path(__file__).resolve().parents[3] / "shared" / "data" / "researcherbench"
    if not (folder / "user_data").is_dir():
        pytest.skip("../shared/data/researcherbench not available")
    for system in ("OpenAI", "Perplexity", "gpt-4o-search-preview"):
        records = json.loads((folder / "user_data" / f"{system}.json").read_text())
        path = tmp_path / f"{system}.json"
        path.write_text(json.dumps([r for r in records if r["id"] == 27]))
        run("reports", path, study="RB", format="researcherbench", system=system)
    study = Study.objects.get(name="RB")
    study.tasks = ["metric_wise"]
    study.save(update_fields=["tasks"])
    make_annotators(2)
    openai = Report.objects.get(system__name="OpenAI")
    assert sum(len(p.anchors) for p in Paragraph.objects.filter(report=openai)) == 3
    p = preview(study, PlanSpec(task="metric_wise", overlap=2, seed=1))
    shown = {r for a in p.plan.assignments for r in a.reports}
    assert openai.pk not in shown
    assert shown == set(Report.objects.exclude(pk=openai.pk).values_list("pk", flat=True))
