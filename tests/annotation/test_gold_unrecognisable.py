"""Gold items cannot be told apart and can be answered right (issue 24, "Gold items are
recognisable and cannot be answered right").

The red team saw a gold assignment show all four reports of its question where every
ordinary assignment showed three, its id created after every other, and an annotator who
ranked the gold answer's three systems as the answer scored 0.0. Here, for every task type
with a label: the admin plans ordinary work with the planner, enters a known answer on a
question with four reports and releases it; the gold assignment shows as many reports as an
ordinary one of that task, nothing in the annotator's API row differs in shape, its id sits
among the annotator's other unopened work, and an answer equal to the known one scores 1.0.
"""

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from annotation.models import Assignment, ExpertiseRating, GoldItem, Report, Study, System
from studio.studyadmin import planning, quality
from tests.builders.content import make_assignment, make_report
from tests.builders.quality import PROBES, WRITERS, probe_unit, qc_question
from tests.builders.users import make_user

S0, S1, S2 = "SecretSystem0", "SecretSystem1", "SecretSystem2"
#: The known answer per task: the probes', except a ranking of the three reports a medal
#: ranking shows (the question has four).
ANSWERS = {
    **{t: PROBES[t][1] for t in PROBES},
    "medal_ranking": f"{S0}=gold;{S1}=silver;{S2}=bronze",
}


def four_reports(study):
    """The quality probes' question (rubrics, claims, nuggets …) with four reports."""
    q = qc_question(study)
    for n in (2, 3):
        system, _ = System.objects.get_or_create(study=study, name=f"SecretSystem{n}")
        make_report(q, system, paragraphs=2)
    return q


@pytest.fixture
def world(db):
    admin = make_user("gu_admin", "admin")
    people = [make_user(f"gu_{n}", "annotator", annotator=True) for n in "ab"]
    study = Study.objects.create(name="Gold blind", tasks=list(Study.Task.values), config={})
    gold_q = four_reports(study)
    others = [four_reports(study) for _ in range(4)]
    return study, admin, gold_q, others, people


def plan_ordinary(study, task, annotator_ids):
    spec = planning.PlanSpec(
        task=task, overlap=len(annotator_ids), seed=3, annotators=tuple(annotator_ids)
    )
    planning.commit(study, spec)


def answer_as_known(task, gold, question, annotator):
    """The annotator submits, in the gold assignment, exactly the known answer."""
    common = {"study": question.study, "annotator": annotator, "question": question,
              "assignment": gold}  # fmt: skip
    reports = {r.system.name: r for r in question.reports.select_related("system")}
    WRITERS[task](common, reports, ANSWERS[task], question)
    Assignment.objects.filter(pk=gold.pk).update(status="submitted", submitted_at=timezone.now())


@pytest.mark.parametrize("task", sorted(PROBES))
def test_a_gold_item_looks_like_any_other_and_its_answer_scores_one(world, task):
    study, admin, q, others, (ua, ub) = world
    a, b = ua.annotator, ub.annotator
    try:
        planning.PlanSpec(task=task).validate(study)
        plannable = bool(planning.preview(study, planning.PlanSpec(task=task)).plan.assignments)
    except planning.StudyAdminError:
        plannable = False
    if not plannable:
        # tasks the planner cannot assign (yet): ordinary work as an admin adds it by hand,
        # every report of the question in a random order
        for n, other in enumerate(others):
            make_assignment(a, other, task, position=n + 1)
            make_assignment(b, other, task, position=n + 1)
        make_assignment(b, q, task)
        ordinary = Assignment.objects.filter(annotator=b, question=q, task=task).first()
    else:
        # both get every question; the other annotator's assignment on the gold question is
        # the comparison an ordinary assignment shows
        plan_ordinary(study, task, [a.pk, b.pk])
        ordinary = Assignment.objects.filter(annotator=b, question=q, task=task).first()
        Assignment.objects.filter(annotator=a, question=q, task=task).delete()
    unit = "" if task == "medal_ranking" else probe_unit(task, q)
    quality.mark_entered(study, task=task, question=q.external_id, answer=ANSWERS[task],
                         purpose="gold", user=admin, unit=unit)  # fmt: skip
    done = quality.release(study, admin, seed=1)
    assert done.created >= 1
    gold = Assignment.objects.get(annotator=a, question=q, task=task)
    mine = list(Assignment.objects.filter(annotator=a, study=study))
    # as many reports as an ordinary assignment of the task shows
    if ordinary.report_order:
        assert len(gold.report_order) == len(ordinary.report_order), task
        shown = set(
            Report.objects.filter(pk__in=gold.report_order).values_list("system__name", flat=True)
        )
        assert S0 in shown
    else:
        assert gold.report_order == ordinary.report_order == []
    # its id is not the newest: it sits among the annotator's unopened work
    assert gold.pk != max(x.pk for x in mine)
    # positions stay one per assignment
    assert len({x.position for x in mine}) == len(mine)
    # the annotator's API rows have the same shape and the same number of reports
    client = Client()
    client.force_login(ua)
    listed = client.get(reverse("assignment-list"), {"limit": 100}).json()
    rows = listed["results"] if isinstance(listed, dict) else listed
    by_id = {r["id"]: r for r in rows}
    same_task = [r for r in rows if r["task"] == task and r["id"] != gold.pk]
    assert {len(r["reports"]) for r in same_task} == {len(by_id[gold.pk]["reports"])}
    assert all(set(r) == set(by_id[gold.pk]) for r in rows)
    page = client.get(reverse("annotate:task", args=[gold.pk]))
    assert page.status_code == 200
    # an answer equal to the known answer scores 1.0
    answer_as_known(task, gold, q, a)
    row = {r.annotator.pk: r for r in quality.quality_rows(study)}[a.pk]
    assert (row.quality.gold_n, row.quality.gold_rate) == (1, 1.0), task
    assert GoldItem.objects.get(study=study).answer == ANSWERS[task]


def test_a_ranking_known_answer_names_the_reports_a_ranking_shows(world):
    study, admin, q, _, _ = world
    # four reports: a ranking of three is a known answer; of four is not (three medals,
    # a task shows at most three reports)
    with pytest.raises(quality.QualityError, match="rank 2 to 3 reports"):
        quality.mark_entered(
            study, task="medal_ranking", question=q.external_id, purpose="gold", user=admin,
            answer=f"{S0}=gold;{S1}=silver;{S2}=bronze;SecretSystem3=bronze",
        )  # fmt: skip
    item = quality.mark_entered(study, task="medal_ranking", question=q.external_id,
                                purpose="gold", user=admin, answer=ANSWERS["medal_ranking"])  # fmt: skip
    assert item.answer == ANSWERS["medal_ranking"]


def test_without_a_comparison_a_gold_item_shows_no_more_reports_than_its_task_does(world):
    study, admin, q, _, (ua, _) = world
    a = ua.annotator
    make_assignment(a, q, "query_quality")  # work of another task: a is in the study
    quality.mark_entered(study, task="metric_wise", question=q.external_id, answer="4",
                         unit=f"rating answer_quality@{S0}", purpose="gold", user=admin)  # fmt: skip
    quality.release(study, admin, seed=2)
    gold = Assignment.objects.get(annotator=a, question=q, task="metric_wise")
    shown = Report.objects.filter(pk__in=gold.report_order)
    assert len(gold.report_order) == 3  # metric-wise shows 2-3 reports; the question has 4
    assert S0 in set(shown.values_list("system__name", flat=True))


def test_a_ranking_answer_ranks_as_many_reports_as_the_comparison_shows(world):
    study, admin, q, _, (ua, ub) = world
    plan_ordinary(study, "medal_ranking", [ua.annotator.pk, ub.annotator.pk])
    shown = len(Assignment.objects.filter(question=q, task="medal_ranking").first().report_order)
    assert shown == 3
    with pytest.raises(quality.QualityError, match="answer: rank 3 reports, as the assignments"):
        quality.mark_entered(study, task="medal_ranking", question=q.external_id,
                             answer=f"{S0}=gold;{S1}=silver", purpose="gold", user=admin)  # fmt: skip
    assert not GoldItem.objects.exists()


@pytest.mark.parametrize("rated", [True, False])
def test_a_gold_item_takes_the_setting_of_the_annotators_work_when_it_is_true(world, rated):
    """The annotator's near-expert setting when they rated the gold question within their
    expertise; otherwise the setting would lie (docs/QUALITY.md, "Gold and settings"): it
    is ``assigned``, and the admin is told the item is recognisable."""
    study, admin, q, others, (ua, _) = world
    a = ua.annotator
    for n, other in enumerate(others):
        Assignment.objects.create(study=study, annotator=a, question=other, task="pairwise",
                                  setting="near_expert", position=n + 1)  # fmt: skip
    if rated:
        ExpertiseRating.objects.create(annotator=a, question=q, level="within")
    quality.mark_entered(study, task="pairwise", question=q.external_id, answer=f"{S0}>{S1}",
                         purpose="gold", user=admin)  # fmt: skip
    done = quality.release(study, admin, seed=4)
    setting = Assignment.objects.get(annotator=a, question=q).setting
    assert setting == ("near_expert" if rated else "assigned")
    told = [r for r in done.recognisable if r.startswith(a.pseudonym)]
    assert len(told) == (0 if rated else 1), done.recognisable
