"""Medal ranking and metric-wise both write the one ranking of a question and setting
(``MedalRanking.one_ranking``). A metric-wise submit silently replaced the same annotator's
medal ranking of the question (found by the ScholarQA-CS2 protocol walk, issue 26): the
planner never gives both, and a submit refuses to replace another assignment's ranking."""

import pytest
from django.contrib.auth.models import User

from annotation import assignment as strategies
from annotation.models import (
    Annotator,
    Assignment,
    HumanMetricScore,
    Medal,
    MedalRanking,
    Report,
)
from studio.studyadmin.planning import PlanSpec, commit, preview, reassign
from tests.annotation.test_annotate_metric_wise import full_form, submit
from tests.builders.content import make_assignment, make_question, make_study

pytestmark = pytest.mark.django_db


def annotators(n):
    return [
        Annotator.objects.create(user=User.objects.create_user(f"ann{i}"), pseudonym=f"Ann-{i}")
        for i in range(n)
    ]


def plan(study, task, people, overlap):
    spec = PlanSpec(task=task, overlap=overlap, annotators=tuple(a.pk for a in people))
    shown = preview(study, spec)
    commit(study, spec, fingerprint=shown.fingerprint)
    return shown


def test_a_barred_annotator_is_never_chosen_and_does_not_count():
    """Question 1 has one annotator it may go to, so it cannot reach overlap 2: it gets
    nobody (a plan gives a question K annotators or none), question 2 gets both."""
    items = [strategies.Item(question=1, barred=frozenset({1})), strategies.Item(question=2)]
    people = [strategies.Person(1), strategies.Person(2)]
    for seed in range(20):
        got = strategies.random_assignment(items, people, overlap=2, seed=seed).assignments
        assert {(a.question, a.annotator) for a in got} == {(2, 1), (2, 2)}
        got = strategies.random_assignment(items, people, overlap=1, seed=seed).assignments
        assert (1, 2) in {(a.question, a.annotator) for a in got}


def test_the_planner_leaves_out_who_ranks_the_question_in_the_other_task():
    study = make_study("One ranking", tasks=["medal_ranking", "metric_wise"])
    make_question(study, n_reports=3)
    a, b, c = annotators(3)
    plan(study, "medal_ranking", [a, b], overlap=2)
    # a and b rank it already in the medal ranking task: only c is left, short of 2
    shown = preview(study, PlanSpec(task="metric_wise", overlap=2, annotators=(a.pk, b.pk, c.pk)))
    assert shown.plan.assignments == ()
    assert "rank it already in another task" in shown.short[0].reason
    plan(study, "metric_wise", [a, b, c], overlap=1)
    got = set(Assignment.objects.filter(task="metric_wise").values_list("annotator", flat=True))
    assert got == {c.pk}
    # and the other way round: medal ranking is not given to the metric-wise annotator
    spec = PlanSpec(task="medal_ranking", overlap=3, annotators=(c.pk,))
    shown = preview(study, spec)
    assert shown.plan.assignments == ()
    assert "rank it already in another task" in shown.short[0].reason


def test_a_reassignment_does_not_give_the_other_ranking_task(annotator_user):
    study = make_study("One ranking", tasks=["medal_ranking", "metric_wise"])
    make_question(study, n_reports=3)
    a, b = annotators(2)
    plan(study, "medal_ranking", [a], overlap=1)
    plan(study, "metric_wise", [b], overlap=1)
    with pytest.raises(Exception, match="nobody left"):
        reassign(study, b, pool_ids=(a.pk, b.pk), dry_run=True)


def test_a_submit_never_replaces_the_ranking_of_another_assignment(annotator_user, client):
    study = make_study("One ranking", tasks=["medal_ranking", "metric_wise"])
    question = make_question(study, n_reports=3, paragraphs=6)
    me = annotator_user.annotator
    mine = make_assignment(me, question, "medal_ranking")
    ranking = MedalRanking.objects.create(
        study=study, annotator=me, question=question, setting=mine.setting, assignment=mine,
        reasoning="My medal ranking.",
    )  # fmt: skip
    reports = list(Report.objects.filter(question=question).order_by("pk"))
    Medal.objects.bulk_create(
        Medal(ranking=ranking, report=r, medal=m)
        for r, m in zip(reports, ("bronze", "silver", "gold"), strict=True)
    )
    by_hand = make_assignment(me, question, "metric_wise")  # an admin's assignment by hand
    client.force_login(annotator_user)
    pids = dict(Report.objects.values_list("pk", "public_id"))
    response = submit(client, by_hand, full_form([pids[pk] for pk in by_hand.report_order]))
    assert response.status_code == 422
    assert "reports in your medal ranking assignment" in response.content.decode()
    ranking.refresh_from_db()
    assert ranking.reasoning == "My medal ranking." and ranking.assignment == mine
    assert sorted(Medal.objects.values_list("medal", flat=True)) == ["bronze", "gold", "silver"]
    assert not HumanMetricScore.objects.exists()
