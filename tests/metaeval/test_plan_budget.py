"""The budget planner from the database: the pilot loader, the `plan_budget` command, and the
"planner" strategy of the Assign page (issue 17 part 3)."""

from __future__ import annotations

import io
import json
import random
from collections import Counter

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
    """σ_b² > 0 on the pilot: every unit of the budget goes to a question nobody judged,
    none to the doubly annotated pilot questions; overlap 2 gives each chosen question two
    annotators (issue 26: it gave six questions one each)."""
    study = pilot_study()
    people = _pool(3)
    spec = PlanSpec(task="medal_ranking", strategy="planner", overlap=2, per_expert=2,
                    annotators=tuple(p.pk for p in people))  # fmt: skip
    result = preview(study, spec)
    planned = [a.question for a in result.plan.assignments]
    new = set(Question.objects.filter(study=study, external_id__startswith="new")
              .values_list("pk", flat=True))  # fmt: skip
    assert len(planned) == 6 and set(planned) <= new  # 3 annotators × 2
    assert sorted(Counter(planned).values()) == [2, 2, 2]  # K = 2 annotators per question
    assert all(a.reason == "planner" for a in result.plan.assignments)
    assert max(result.summary.per_annotator.values()) == 2
    before = Assignment.objects.filter(study=study).count()
    commit(study, spec, fingerprint=result.fingerprint)
    assert Assignment.objects.filter(study=study).count() == before + 6


@pytest.mark.django_db
def test_planner_overlap_k_is_k_annotators_per_question_or_says_why():
    """Overlap K means K annotators per planned question (issue 26: 30 questions got one
    annotator each at overlap 2); a pool too small for K is listed with why."""
    study = pilot_study(new_questions=30, name="thirty")
    people = _pool(6)
    spec = PlanSpec(task="medal_ranking", strategy="planner", overlap=2, per_expert=5,
                    annotators=tuple(p.pk for p in people))  # fmt: skip
    result = preview(study, spec)
    per_question = Counter(a.question for a in result.plan.assignments)
    assert len(result.plan.assignments) == 30 and set(per_question.values()) == {2}
    alone = PlanSpec(task="medal_ranking", strategy="planner", overlap=2, per_expert=5,
                     annotators=(people[0].pk,))  # fmt: skip
    short = preview(study, alone)
    assert short.short and all(u.got == 1 and u.wanted == 2 for u in short.short)
    assert "only 1 annotator(s) in the pool; 2 wanted" in dict(short.reasons())


@pytest.mark.django_db
def test_plan_preview_shows_hours_cost_and_the_expected_interval(client, admin_user):
    from django.urls import reverse

    from metaeval.stats import planner as stats
    from studio.studyadmin.budget import estimate

    study = pilot_study(name="costed")  # every pilot assignment took 300 s
    _pool(4)
    client.force_login(admin_user)
    page = client.post(reverse("studies:plan", args=[study.pk]), {
        "action": "preview", "task": "medal_ranking", "strategy": "planner", "overlap": 2,
        "seed": 0, "per_expert": 3, "hourly_rate": "40",
    })  # fmt: skip
    html = page.content.decode()
    assert page.status_code == 200, html[:2000]
    # 4 annotators × 3 = 12 assignments of 300 s = 1.0 h; at 40 an hour, 40.00
    assert "<strong>1.0</strong>expert hours" in html and "<strong>40.00</strong>cost" in html
    assert "Annotators per question (overlap K)" in html and "Questions per annotator" in html
    assert "How these are computed" in html
    got = estimate(
        study,
        "medal_ranking",
        preview(
            study, PlanSpec(task="medal_ranking", strategy="planner", overlap=2, per_expert=3)
        ).plan.assignments,
        2,
    )
    model = stats.fit(load_pilot(study.pk, "agreement").pilot, n_rounds=200)
    assert got.half_width_now == model.half_width
    # six more questions at two annotators each narrow the interval
    assert got.new_questions == 6 and got.half_width_after < got.half_width_now
    assert f"±{got.half_width_after:.3f}" in html
    assert got.cost is None and any("cost per expert hour" in n for n in got.notes)


def test_expert_time_never_reads_zero_for_some_work():
    """The tester: 12 tasks × 5 s at 60 an hour showed "0.0 expert hours" beside "1.00
    cost". The time is given in the unit that keeps it readable."""
    from studio.studyadmin.budget import Estimate

    def work(n, seconds):
        return Estimate(n, n, seconds, n * seconds / 3600, None, None, None, None).work

    assert work(12, 5.0) == ("1.0", "expert minutes")
    assert work(1, 5.0) == ("5", "expert seconds")
    assert work(1, 0.4) == ("< 1", "expert seconds")
    assert work(12, 300.0) == ("1.0", "expert hours")
    assert work(0, 5.0) == ("0", "expert hours")
    assert Estimate(1, 1, None, None, None, None, None, None).work is None


@pytest.mark.django_db
def test_a_task_that_does_not_feed_the_interval_says_so_beside_it(client, admin_user):
    """A plan of another task than the medal ranking (the tester's rubric coverage) gets no
    interval of its own: the page says so next to the prediction, not only in the collapsed
    "How these are computed"; with the budget planner, that its choice targets the
    medal-ranking agreement. Seconds are those of the task (5 s each): minutes, not 0.0 h."""
    from django.urls import reverse

    from studio.studyadmin.budget import estimate

    study = pilot_study(name="coverage-like")
    study.tasks = ["medal_ranking", "pairwise"]
    study.save()
    Assignment.objects.filter(study=study).update(task="pairwise", seconds_on_task=5)
    _pool(4)
    client.force_login(admin_user)
    page = client.post(reverse("studies:plan", args=[study.pk]), {
        "action": "preview", "task": "pairwise", "strategy": "random", "overlap": 2,
        "seed": 0, "per_expert": 3, "capacity": 3, "hourly_rate": "60",
    })  # fmt: skip
    html = page.content.decode()
    assert page.status_code == 200, html[:2000]
    # 4 annotators × 3 = 12 assignments of 5 s = 1 minute; at 60 an hour, 1.00
    assert "<strong>1.0</strong>expert minutes" in html and "<strong>1.00</strong>cost" in html
    said = html.split('id="interval-of">')[1].split("</p>")[0]
    assert "this task does not feed it" in said
    assert html.index('id="interval-of"') < html.index('id="estimate-how"')
    planned = preview(study, PlanSpec(task="pairwise", overlap=2, capacity=3)).plan.assignments
    got = estimate(study, "pairwise", planned, 2, strategy="planner")
    assert got.half_width_after is None and "targets that agreement" in got.interval_of
    mine = estimate(study, "medal_ranking", planned, 2)
    assert mine.interval_of == ""
