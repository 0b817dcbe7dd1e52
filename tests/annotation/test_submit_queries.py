"""The save path's queries (issue 29: 200 annotators autosaving every few seconds and
submitting every twenty): an autosave and a submit ask a fixed number of queries whatever
the size of the task; a submit writes its judgment rows in one statement per table, and
what it writes over (an earlier submit of the same judgment) is updated in place, as
``update_or_create`` did, keeping the row and its ``created_at``."""

import datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from annotation.models import HumanMetricScore, Medal, MedalRanking, Report
from tests.annotation.test_annotate_metric_wise import full_form, submit
from tests.builders.content import make_assignment, make_question, make_study

pytestmark = pytest.mark.django_db

LONG_AGO = timezone.now() - datetime.timedelta(days=3)


def _queries(client, url, data) -> list[str]:
    with CaptureQueriesContext(connection) as ctx:
        response = client.post(url, data, HTTP_HX_REQUEST="true")
    assert response.status_code in (200, 204), response.content.decode()
    return [q["sql"] for q in ctx.captured_queries]


def _medal_task(annotator_user, client, n_reports: int):
    study = make_study(f"Study {n_reports}")
    question = make_question(study, n_reports=n_reports, paragraphs=4)
    assignment = make_assignment(annotator_user.annotator, question, "medal_ranking")
    make_assignment(annotator_user.annotator, make_question(study), "medal_ranking", position=1)
    client.force_login(annotator_user)
    client.get(reverse("annotate:task", args=[assignment.pk]))  # the page makes the draft
    ids = dict(Report.objects.values_list("pk", "public_id"))
    medals = {
        f"medal-{ids[pk]}": m
        for pk, m in zip(assignment.report_order, ("gold", "silver", "bronze"), strict=False)
    }
    return assignment, medals


@pytest.mark.parametrize("n_reports", [2, 3])
def test_autosave_and_submit_ask_a_fixed_number_of_queries(annotator_user, client, n_reports):
    """Session, user, the assignment (with its annotator), the draft (locked), the history
    (a new version, or the latest replaced), the time on task, the draft's update; and the
    transaction's savepoint and its release (the test runs in a transaction). The submit
    adds the reports (three), the ranking check, the ranking, its old medals deleted, its
    medals, the webhooks, the next task, whether the task was a qualification item and the
    adjudication requests on its question (``annotation.quality.following``: one query when
    none was sent)."""
    assignment, medals = _medal_task(annotator_user, client, n_reports)
    save = reverse("annotate:autosave", args=[assignment.pk])
    assert len(_queries(client, save, {"version": "0", "reasoning": "One."})) == 9
    assert len(_queries(client, save, {"version": "1", "reasoning": "One, two."})) == 9
    body = {"version": "2", "reasoning": "One, two, three.", **medals}
    assert len(_queries(client, reverse("annotate:submit", args=[assignment.pk]), body)) == 20


def test_an_autosave_reads_the_assignment_and_its_history_once(annotator_user, client):
    assignment, _ = _medal_task(annotator_user, client, 3)
    save = reverse("annotate:autosave", args=[assignment.pk])
    _queries(client, save, {"version": "0", "reasoning": "One."})
    sql = _queries(client, save, {"version": "1", "reasoning": "One, two."})
    assert sum('FROM "annotation_assignment"' in q for q in sql) == 1
    assert not any('FROM "annotation_report"' in q for q in sql)  # the order is kept as drawn
    history = [q for q in sql if '"annotation_draftversion"' in q]
    assert len(history) == 1 and history[0].startswith("UPDATE")  # coalesced in one statement


def test_a_submit_writes_medals_in_one_statement_over_an_earlier_ranking(annotator_user, client):
    assignment, medals = _medal_task(annotator_user, client, 3)
    a = assignment
    old = MedalRanking.objects.create(
        study=a.study,
        annotator=a.annotator,
        question=a.question,
        setting=a.setting,
        assignment=a,
        reasoning="Before.",
    )
    MedalRanking.objects.filter(pk=old.pk).update(created_at=LONG_AGO)
    first, second, _ = a.report_order
    Medal.objects.create(ranking=old, report_id=first, medal="bronze")
    Medal.objects.create(ranking=old, report_id=second, medal="bronze")
    body = {"version": "0", "reasoning": "After.", **medals}
    sql = _queries(client, reverse("annotate:submit", args=[a.pk]), body)
    assert sum(q.startswith('INSERT INTO "annotation_medal"') for q in sql) == 1
    ranking = MedalRanking.objects.get()
    assert (ranking.pk, ranking.created_at, ranking.reasoning) == (old.pk, LONG_AGO, "After.")
    assert dict(Medal.objects.values_list("report_id", "medal")) == dict(
        zip(a.report_order, ("gold", "silver", "bronze"), strict=True)
    )


def test_a_metric_wise_submit_writes_its_scores_in_one_statement(annotator_user, client):
    study = make_study()
    question = make_question(study, n_reports=3, paragraphs=6)
    assignment = make_assignment(annotator_user.annotator, question, "metric_wise")
    client.force_login(annotator_user)
    by_pk = dict(Report.objects.values_list("pk", "public_id"))
    pids = [by_pk[pk] for pk in assignment.report_order]
    earlier = HumanMetricScore.objects.create(
        study=study,
        annotator=annotator_user.annotator,
        question=question,
        report_id=assignment.report_order[0],
        metric="answer_recall",
        value=0.25,
    )
    HumanMetricScore.objects.filter(pk=earlier.pk).update(created_at=LONG_AGO)
    with CaptureQueriesContext(connection) as ctx:
        assert submit(client, assignment, full_form(pids)).status_code == 204
    sql = [q["sql"] for q in ctx.captured_queries]
    assert sum('"annotation_humanmetricscore"' in q for q in sql) == 1
    assert HumanMetricScore.objects.count() == 15
    earlier.refresh_from_db()
    assert (earlier.value, earlier.created_at, earlier.assignment_id) == (
        1.0,
        LONG_AGO,
        assignment.pk,
    )


def _metric_wise_submit_queries(annotator_user, client, n_reports: int) -> list[str]:
    study = make_study(f"Metric-wise {n_reports}")
    question = make_question(study, n_reports=n_reports, paragraphs=6)
    assignment = make_assignment(annotator_user.annotator, question, "metric_wise")
    client.force_login(annotator_user)
    by_pk = dict(Report.objects.values_list("pk", "public_id"))
    pids = [by_pk[pk] for pk in assignment.report_order]
    with CaptureQueriesContext(connection) as ctx:
        assert submit(client, assignment, full_form(pids)).status_code == 204
    return [q["sql"] for q in ctx.captured_queries]


def test_a_metric_wise_submit_asks_as_many_queries_for_two_reports_as_for_three(
    annotator_user, client
):
    two = _metric_wise_submit_queries(annotator_user, client, 2)
    three = _metric_wise_submit_queries(annotator_user, client, 3)
    assert len(two) == len(three)
    assert sum(q.startswith('INSERT INTO "annotation_paragraphrelevance"') for q in three) == 1
