"""Deleting a judge from the Django admin follows the API's rule (judges.removal).

The admin's delete page and its "delete selected" action cascaded: a judge's results in
every study went with it, silently, where ``DELETE /api/judges/{id}/`` refuses (409) while
they lie in several studies or annotators adjudicate its verdicts. Now both admin ways are
refused the same, the message naming the studies (or the adjudication), nothing deleted;
an allowed deletion deletes the results as the API does and records it in the study's
audit trail.
"""

from __future__ import annotations

from html import unescape

import pytest
from django.test import Client
from django.urls import reverse

from annotation.models import QualityEvent, RelevanceDisagreement
from judges.models import Judge, JudgeCoverage, JudgeRun, JudgeScore
from tests.builders import world
from tests.builders.content import make_adjudication
from tests.builders.users import make_user
from tests.judges.test_judge_results_removal import JUDGE, judged_study, rows_in

pytestmark = pytest.mark.django_db

CHANGELIST = "admin:judges_judge_changelist"


@pytest.fixture
def admin(admin_user):
    admin_user.is_staff = admin_user.is_superuser = True
    admin_user.save()
    client = Client()
    client.force_login(admin_user)
    return client


def delete_page(judge: Judge) -> str:
    return reverse("admin:judges_judge_delete", args=[judge.pk])


def bulk_delete(admin, judges, *, confirmed: bool):
    data = {"action": "delete_selected", "_selected_action": [j.pk for j in judges]}
    if confirmed:
        data["post"] = "yes"
    return admin.post(reverse(CHANGELIST), data, follow=True)


def shown(response) -> str:
    return unescape(response.content.decode())


@pytest.fixture
def spread():
    """One judge with results in studies A and B."""
    judge = Judge.objects.create(name=JUDGE)
    a, _ = judged_study(judge, "A")
    b, _ = judged_study(judge, "B")
    return judge, a, b


@pytest.fixture
def adjudicated():
    """A judge whose relevance verdicts an annotator adjudicates in study Adj."""
    annotator = make_user("ann", "annotator", annotator=True).annotator
    study = world.study("Adj")
    question = world.question(study)
    world.report(question, world.system(study, "S"))
    make_adjudication(annotator, question, judge_name=JUDGE)
    return Judge.objects.get(name=JUDGE), study


def test_the_delete_page_refuses_a_judge_with_results_in_two_studies(admin, spread):
    judge, a, b = spread
    before = (rows_in(judge, a), rows_in(judge, b))
    page = admin.get(delete_page(judge), follow=True)  # not even the confirmation page
    text = shown(page)
    assert "'A' (id" in text and "'B' (id" in text and "Not deleted" in text
    assert "Are you sure" not in text
    r = admin.post(delete_page(judge), {"post": "yes"}, follow=True)
    assert "'A' (id" in shown(r) and "'B' (id" in shown(r)
    assert Judge.objects.filter(pk=judge.pk).exists()
    assert (rows_in(judge, a), rows_in(judge, b)) == before
    assert not QualityEvent.objects.exists()


def test_the_delete_page_refuses_a_judge_annotators_adjudicate(admin, adjudicated):
    judge, study = adjudicated
    disagreements = RelevanceDisagreement.objects.filter(judge=judge).count()
    assert disagreements
    r = admin.post(delete_page(judge), {"post": "yes"}, follow=True)
    assert "adjudicate" in shown(r) and "'Adj'" in shown(r)
    assert Judge.objects.filter(pk=judge.pk).exists()
    assert RelevanceDisagreement.objects.filter(judge=judge).count() == disagreements


def test_the_delete_page_refuses_while_a_run_writes(admin):
    judge = Judge.objects.create(name=JUDGE)
    a, _ = judged_study(judge, "A")
    run = JudgeRun.objects.create(judge=judge, study=a, tasks=["coverage"], status="running")
    r = admin.post(delete_page(judge), {"post": "yes"}, follow=True)
    assert f"run {run.pk}" in shown(r) and "'A'" in shown(r)
    assert Judge.objects.filter(pk=judge.pk).exists() and rows_in(judge, a)["scores"] == 1


def test_the_delete_page_deletes_a_judge_of_one_study_and_audits_it(admin, admin_user):
    judge = Judge.objects.create(name=JUDGE)
    a, _ = judged_study(judge, "A")
    assert "Are you sure" in shown(admin.get(delete_page(judge)))
    r = admin.post(delete_page(judge), {"post": "yes"})
    assert r.status_code == 302
    assert not Judge.objects.filter(pk=judge.pk).exists()
    assert not JudgeScore.objects.exists() and not JudgeCoverage.objects.exists()
    event = QualityEvent.objects.get(study=a, action="delete_judge_results")
    assert event.actor == admin_user and event.detail["judge_name"] == JUDGE
    assert event.detail["deleted"]["JudgeCoverage"] == 2


def test_delete_selected_refuses_whole_naming_each_refusal(admin, spread):
    judge, a, b = spread
    fine = Judge.objects.create(name="unused judge")
    before = (rows_in(judge, a), rows_in(judge, b))
    for confirmed in (False, True):
        r = bulk_delete(admin, [judge, fine], confirmed=confirmed)
        text = shown(r)
        assert "'A' (id" in text and "'B' (id" in text and "Not deleted" in text
        assert "Successfully deleted" not in text
    assert Judge.objects.filter(pk__in=[judge.pk, fine.pk]).count() == 2  # nothing deleted
    assert (rows_in(judge, a), rows_in(judge, b)) == before
    assert not QualityEvent.objects.exists()


def test_delete_selected_refuses_a_judge_annotators_adjudicate(admin, adjudicated):
    judge, _ = adjudicated
    r = bulk_delete(admin, [judge], confirmed=True)
    assert "adjudicate" in shown(r) and "'Adj'" in shown(r)
    assert Judge.objects.filter(pk=judge.pk).exists()


def test_delete_selected_deletes_allowed_judges_and_audits_each_study(admin, admin_user):
    one, other = Judge.objects.create(name="one"), Judge.objects.create(name="other")
    a, _ = judged_study(one, "A")
    b, _ = judged_study(other, "B")
    assert "Are you sure" in shown(bulk_delete(admin, [one, other], confirmed=False))
    r = bulk_delete(admin, [one, other], confirmed=True)
    assert "Successfully deleted 2" in shown(r)
    assert not Judge.objects.exists() and not JudgeScore.objects.exists()
    events = QualityEvent.objects.filter(action="delete_judge_results", actor=admin_user)
    assert sorted((e.study_id, e.detail["judge_name"]) for e in events) == [
        (a.pk, "one"), (b.pk, "other"),
    ]  # fmt: skip
