"""Settings are never pooled (agreement is computed within a setting), so neither the
planner nor the assignment API may mix them: a random plan's overlap counts only random
assignments (though nobody gets a question they have read in another setting), an
expertise-matched assignment stays with an expert of the question's field (moved through
the API or reassigned), and an assignment with work under it keeps its setting."""

from __future__ import annotations

from collections import Counter

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from annotation import assignment as A
from annotation.models import Assignment, MedalRanking, Setting
from studio.studyadmin import StudyAdminError
from studio.studyadmin.planning import PlanSpec, commit, preview, reassign
from tests.builders.planning import make_annotators, make_study


def _by_setting():
    rows = Assignment.objects.exclude(status="withdrawn")
    return Counter((q, s) for q, s in rows.values_list("question_id", "setting"))


@pytest.mark.django_db
def test_a_random_plan_after_an_expertise_plan_reaches_its_own_overlap():
    """The tester's sequence: by expertise, overlap 2, committed; then random, overlap 3.
    The old planner counted the 2 expertise-matched annotators towards the random K and gave
    each question 1 random annotator (overlap 1 in the random setting)."""
    study = make_study(questions=8)
    make_annotators(16)  # two experts of each of the 8 fields
    commit(study, PlanSpec(task="medal_ranking", strategy="expertise", overlap=2))
    shown = preview(study, PlanSpec(task="medal_ranking", strategy="random", overlap=3, seed=1))
    assert shown.summary.short == []
    commit(study, PlanSpec(task="medal_ranking", strategy="random", overlap=3, seed=1))
    counts = _by_setting()
    questions = {q for q, _ in counts}
    assert len(questions) == 8
    for q in questions:
        assert counts[(q, Setting.EXPERTISE_MATCHED)] == 2
        assert counts[(q, Setting.ASSIGNED)] == 3, "the random setting's own overlap"
    # nobody got a question they had read in the other setting
    pairs = list(Assignment.objects.values_list("annotator_id", "question_id"))
    assert len(pairs) == len(set(pairs)) == 8 * 5


@pytest.mark.django_db
def test_the_random_plan_says_why_when_those_who_read_it_leave_it_short():
    """Four annotators, two of them expertise-matched on each question: a random plan of
    overlap 3 cannot be completed (only 2 have not read it) and says so."""
    study = make_study(questions=2, fields=["Field 0"])
    make_annotators(4, fields=["Field 0", "Field 0", "Other", "Other"])
    commit(study, PlanSpec(task="medal_ranking", strategy="expertise", overlap=2))
    shown = preview(study, PlanSpec(task="medal_ranking", strategy="random", overlap=3))
    assert shown.plan.assignments == ()
    assert {u.got for u in shown.short} == {0}
    assert all("have read it already" in u.reason for u in shown.short), shown.short


def test_seen_annotators_are_never_given_the_item_and_do_not_count():
    items = [
        A.Item(question=1, seen=frozenset({1, 2})),
        A.Item(question=2, assigned=frozenset({3})),
    ]
    people = [A.Person(i) for i in range(1, 6)]
    plan = A.random_assignment(items, people, overlap=2)
    got = {(a.question, a.annotator) for a in plan.assignments}
    assert sum(q == 1 for q, _ in got) == 2 and not {(1, 1), (1, 2)} & got
    assert sum(q == 2 for q, _ in got) == 1 and (2, 3) not in got


# --- reassigning expertise-matched work -----------------------------------------------------


@pytest.mark.django_db
def test_reassigning_expertise_matched_work_needs_an_expert_of_the_field():
    """Both experts of each field hold every question of it: reassigning one gives the work
    to nobody (the old code gave it to a non-expert, still filed ``expertise_matched``)."""
    study = make_study(questions=2, fields=["Field 0"])
    anns = make_annotators(4, fields=["Field 0", "Field 0", "Other", "Other"])
    commit(study, PlanSpec(task="medal_ranking", strategy="expertise", overlap=2))
    before = sorted(Assignment.objects.values_list("pk", "annotator_id", "status"))
    with pytest.raises(StudyAdminError, match="expertise in the question's field") as exc:
        reassign(study, anns[0])
    assert exc.value.field == "annotators"
    assert sorted(Assignment.objects.values_list("pk", "annotator_id", "status")) == before
    # with a third expert in the pool the work goes to them
    third = make_annotators(1, fields=["Field 0"], prefix="Third")[0]
    done = reassign(study, anns[0])
    assert done.to == {third.pseudonym: 2}
    moved = Assignment.objects.filter(annotator=third)
    assert set(moved.values_list("setting", flat=True)) == {Setting.EXPERTISE_MATCHED}


# --- the assignment API ---------------------------------------------------------------------


def _api(admin_user) -> APIClient:
    client = APIClient()
    client.force_login(admin_user)
    return client


def _patch(client, assignment, **data):
    url = reverse("assignment-detail", args=[assignment.pk])
    return client.patch(url, data, format="json")


@pytest.fixture
def matched(db):
    study = make_study(questions=1, fields=["Field 0"])
    expert, other_expert, stranger = make_annotators(3, fields=["Field 0", "Field 0", "Other"])
    commit(study, PlanSpec(task="medal_ranking", strategy="expertise", overlap=1))
    row = Assignment.objects.get()
    return row, {expert.pk, other_expert.pk} - {row.annotator_id}, stranger


def test_an_expertise_matched_assignment_is_not_moved_to_a_non_expert(admin_user, matched):
    row, (expert,), stranger = matched
    client = _api(admin_user)
    said = _patch(client, row, annotator=stranger.pk)
    assert said.status_code == 400, said.json()
    assert [e["field"] for e in said.json()["errors"]] == ["annotator"], said.json()
    assert "no expertise in the question's field" in said.json()["annotator"][0]
    assert Assignment.objects.get(pk=row.pk).annotator_id == row.annotator_id
    # to another expert of the field: fine
    assert _patch(client, row, annotator=expert).status_code == 200
    # a random assignment moves to anyone
    Assignment.objects.filter(pk=row.pk).update(setting=Setting.ASSIGNED)
    assert _patch(client, row, annotator=stranger.pk).status_code == 200


def test_the_setting_of_submitted_work_cannot_change(admin_user, matched):
    row, _, _ = matched
    client = _api(admin_user)
    Assignment.objects.filter(pk=row.pk).update(status=Assignment.Status.SUBMITTED)
    said = _patch(client, row, setting=Setting.ASSIGNED)
    assert said.status_code == 400, said.json()
    assert [e["field"] for e in said.json()["errors"]] == ["setting"], said.json()
    assert Assignment.objects.get(pk=row.pk).setting == Setting.EXPERTISE_MATCHED
    # the same value, and other fields, still write
    assert _patch(client, row, setting=Setting.EXPERTISE_MATCHED, position=4).status_code == 200


def test_the_setting_of_work_with_judgments_cannot_change(admin_user, matched):
    row, _, _ = matched
    MedalRanking.objects.create(
        study=row.study,
        annotator=row.annotator,
        question=row.question,
        setting=row.setting,
        assignment=row,
    )
    said = _patch(_api(admin_user), row, setting=Setting.ASSIGNED)
    assert said.status_code == 400 and "setting" in said.json(), said.json()
    assert Assignment.objects.get(pk=row.pk).setting == Setting.EXPERTISE_MATCHED
    # an unstarted one without judgments may still change its setting
    MedalRanking.objects.all().delete()
    assert _patch(_api(admin_user), row, setting=Setting.ASSIGNED).status_code == 200


def test_the_plan_api_gives_the_reasons_the_page_gives(admin_user):
    study = make_study(questions=2, fields=["Field 0"])
    make_annotators(1, fields=["Other"])
    url = reverse("study-plan", args=[study.pk])
    body = {"task": "medal_ranking", "strategy": "expertise", "overlap": 2}
    said = _api(admin_user).post(url, body, format="json")
    assert said.status_code == 200, said.content
    answer = said.json()
    shown = preview(study, PlanSpec(task="medal_ranking", strategy="expertise", overlap=2))
    assert answer["short"] == [
        {"question": u.key, "got": u.got, "wanted": u.wanted, "reason": u.reason}
        for u in shown.short
    ]
    assert {s["reason"] for s in answer["short"]} == {
        "no annotator in the pool has the expertise “Field 0”"
    }
    assert answer["reasons"] == [
        {"reason": "no annotator in the pool has the expertise “Field 0”", "questions": 2}
    ]
    assert answer["wanted"] == 2


def test_a_plan_that_asks_nothing_never_says_short_of_0(client, admin_user):
    """A plan that wants no annotator anywhere (no question to plan; the demo study's budget
    planner with 0 new assignments) showed "0 questions short of 0"; the API says null."""
    study = make_study(questions=0)
    make_annotators(2)
    client.force_login(admin_user)
    data = {"task": "medal_ranking", "strategy": "random", "overlap": 2, "seed": 0}
    page = client.post(
        reverse("studies:plan", args=[study.pk]),
        {**data, "per_expert": 5, "action": "preview"},
    )
    body = page.content.decode()
    assert page.status_code == 200 and "Preview: 0 new assignments" in body
    assert "short of 0" not in body
    answer = _api(admin_user).post(reverse("study-plan", args=[study.pk]), data, format="json")
    assert answer.status_code == 200 and answer.json()["wanted"] is None
