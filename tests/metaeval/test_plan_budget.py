"""The budget planner from the database: the pilot loader, the `plan_budget` command, and the
"planner" strategy of the Assign page (issue 17 part 3)."""

from __future__ import annotations

import io
import json
import random

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command

from annotation import roles
from annotation.models import (
    Annotator,
    Assignment,
    MedalRanking,
    Paragraph,
    Question,
    Report,
    Section,
    System,
)
from judges.models import Judge, JudgeScore
from metaeval.loaders.planner import load_pilot
from studio.studyadmin.planning import PlanSpec, commit, preview
from tests.builders.ranked import ranked_study


def pilot_study(n_questions=12, new_questions=6, name="pilot"):
    """ranked_study (2 annotators × 3 systems per question, one judge), each ranking made in
    a submitted assignment of 300 s; plus ``new_questions`` questions nobody judged yet."""
    study = ranked_study(n_questions=n_questions, name=name)
    study.tasks = ["medal_ranking"]
    study.save()
    for r in MedalRanking.objects.filter(study=study):
        a = Assignment.objects.create(
            study=study, annotator=r.annotator, question=r.question, task="medal_ranking",
            status=Assignment.Status.SUBMITTED, seconds_on_task=300,
            report_order=list(Report.objects.filter(question=r.question).values_list("pk", flat=True)),
        )  # fmt: skip
        r.assignment = a
        r.save()
    systems = list(System.objects.filter(study=study))
    for k in range(new_questions):
        q = Question.objects.create(study=study, external_id=f"new{k}", text=f"New {k}?")
        for s in systems:  # a report with text: an empty one is never planned (issue 25)
            report = Report.objects.create(question=q, system=s)
            section = Section.objects.create(report=report, position=1)
            Paragraph.objects.create(report=report, section=section, number=1, text="A claim.")
    return study


def second_judge(study, name="other-judge", seed=1):
    rng = random.Random(seed)
    judge = Judge.objects.create(name=name)
    first = JudgeScore.objects.filter(report__question__study=study, metric="overall")
    JudgeScore.objects.bulk_create(
        JudgeScore(judge=judge, report_id=s.report_id, metric="overall",
                   value=round(s.value + rng.uniform(-0.3, 0.3), 3))
        for s in first
    )  # fmt: skip
    return judge


def run(*args) -> dict:
    out = io.StringIO()
    call_command("plan_budget", *args, "--json", stdout=out)
    return json.loads(out.getvalue())


@pytest.mark.django_db
def test_loader_builds_units_with_their_time():
    study = pilot_study()
    data = load_pilot(study.pk, "agreement")
    assert data.judge == "pilot-judge"
    assert data.pilot.sums.shape == (24, 5)  # 12 questions × 2 annotators
    assert data.pilot.comparisons.tolist() == [3.0] * 24  # 3 pairs per ranking
    assert data.pilot.seconds.tolist() == [300.0] * 24
    assert len(data.questions) == 12


@pytest.mark.django_db
def test_command_answers_both_routes_with_hours():
    study = pilot_study()
    out = run("--study", str(study.pk), "--figure", "agreement", "--target-half-width", "0.05")
    pilot = out["pilot"]
    assert (pilot["n_questions"], pilot["n_units"], pilot["n_comparisons"]) == (12, 24, 72)
    assert pilot["seconds_per_unit"] == 300.0 and pilot["half_width"] > 0.05
    new = out["routes"]["new_questions"]
    assert new["new_questions"] > 0 and new["units"] == 2 * new["new_questions"]
    assert new["comparisons"] == 3 * new["units"]
    assert new["hours"] == pytest.approx(new["units"] * 300 / 3600)
    assert new["half_width"] <= 0.05
    tau = run("--study", str(study.pk), "--figure", "tau_b", "--target-half-width", "0.1")
    assert tau["figure"] == "tau_b" and tau["pilot"]["estimate"] is not None
    text = io.StringIO()
    call_command("plan_budget", "--study", str(study.pk), "--target-half-width", "0.05",
                 stdout=text)  # fmt: skip
    assert "new_questions:" in text.getvalue() and "expert hours" in text.getvalue()


@pytest.mark.django_db
def test_command_judge_difference_has_power():
    study = pilot_study()
    other = second_judge(study)
    out = run("--study", str(study.pk), "--figure", "judge_difference", "--judge", "pilot-judge",
              "--judge-b", other.name, "--target-half-width", "0.05", "--detect", "0.1")  # fmt: skip
    assert out["judge_b"] == other.name
    power = out["power"]
    assert power["difference"] == 0.1 and 0 < power["power"] < 1
    assert power["questions_for_80"] >= 2
    with pytest.raises(CommandError, match="judge-b"):
        call_command("plan_budget", "--study", str(study.pk), "--figure", "judge_difference",
                     "--target-half-width", "0.05")  # fmt: skip


@pytest.mark.django_db
def test_command_one_question_is_null_with_a_note():
    study = pilot_study(n_questions=1, new_questions=0, name="tiny")
    out = run("--study", str(study.pk), "--target-half-width", "0.05")
    assert out["pilot"]["half_width"] is None and "at least 2" in out["pilot"]["note"]
    assert out["routes"]["new_questions"]["units"] is None
    assert out["routes"]["new_questions"]["note"]
    assert out["cheapest"] is None


def _pool(n):
    people = []
    for i in range(n):
        user = User.objects.create_user(username=f"planner{i}")
        roles.grant(user, roles.ANNOTATOR)
        people.append(Annotator.objects.create(user=user, pseudonym=f"planner-{i}"))
    return people


@pytest.mark.django_db
def test_planner_strategy_sends_the_budget_to_new_questions_and_commits():
    """σ_b² > 0 on the pilot: every unit of the budget goes to a question nobody judged
    (one each before any gets a second), none to the doubly annotated pilot questions."""
    study = pilot_study()
    people = _pool(3)
    spec = PlanSpec(task="medal_ranking", strategy="planner", overlap=2, per_expert=2,
                    annotators=tuple(p.pk for p in people))  # fmt: skip
    result = preview(study, spec)
    planned = [a.question for a in result.plan.assignments]
    new = set(Question.objects.filter(study=study, external_id__startswith="new")
              .values_list("pk", flat=True))  # fmt: skip
    assert len(planned) == 6 and set(planned) == new  # 3 annotators × 2, one per question
    assert all(a.reason == "planner" for a in result.plan.assignments)
    assert max(result.summary.per_annotator.values()) == 2
    before = Assignment.objects.filter(study=study).count()
    commit(study, spec, fingerprint=result.fingerprint)
    assert Assignment.objects.filter(study=study).count() == before + 6
