"""An annotator's report list, whole and of one question (``?question=``): the one-question
list reads only that question's assignments, and shows exactly what the whole list shows of
that question (a pairwise assignment's two of three reports, every report of an assignment
without an order, nothing of a question not assigned)."""

import pytest
from rest_framework.test import APIClient

from annotation.models import Assignment
from annotation.permissions import visible_reports
from tests.builders.content import make_assignment, make_question, make_study

pytestmark = pytest.mark.django_db


def test_one_question_list_equals_the_whole_list_of_that_question(annotator_user):
    annotator = annotator_user.annotator
    study = make_study("visible")
    pair, open_, unassigned = (make_question(study, n_reports=3) for _ in range(3))
    shown = make_assignment(annotator, pair, "pairwise")
    shown.report_order = shown.report_order[:2]
    shown.save()
    Assignment.objects.filter(pk=make_assignment(annotator, open_, "medal_ranking").pk).update(
        report_order=[]
    )
    expected = {
        pair.pk: set(shown.report_order),
        open_.pk: set(open_.reports.values_list("pk", flat=True)),
        unassigned.pk: set(),
    }
    assert set(visible_reports(annotator).values_list("pk", flat=True)) == (
        expected[pair.pk] | expected[open_.pk]
    )
    client = APIClient()
    client.force_login(annotator_user)
    public = dict(pair.reports.values_list("public_id", "pk")) | dict(
        open_.reports.values_list("public_id", "pk")
    )
    for question, ids in expected.items():
        assert set(visible_reports(annotator, question).values_list("pk", flat=True)) == ids
        got = client.get("/api/reports/", {"question": question, "limit": 50}).json()
        rows = got["results"] if isinstance(got, dict) else got
        assert {public[r["public_id"]] for r in rows} == ids, question
    refused = client.get("/api/reports/", {"question": "first"})
    assert refused.status_code == 400 and "question" in refused.json()


def test_an_annotator_reads_only_the_reports_their_tasks_show(annotator_user, researcher_user):
    """Least privilege: a claim check showing one report of three, beside a task about the
    question (query quality, whose page once drew an order of every report), gives the
    annotator that one report only; the other two are absent from the list and 404 by
    public id, while a researcher of the study still reads all three."""
    annotator = annotator_user.annotator
    study = make_study("least", tasks=["claim_check", "query_quality"])
    question = make_question(study, n_reports=3)
    check = make_assignment(annotator, question, "claim_check")
    shown, *unshown = check.report_order
    check.report_order = [shown]
    check.save()
    # the question's own task: its page draws (and stores) an order of every report
    make_assignment(annotator, question, "query_quality")
    public = dict(question.reports.values_list("pk", "public_id"))

    client = APIClient()
    client.force_login(annotator_user)
    got = client.get("/api/reports/", {"limit": 50}).json()
    rows = got["results"] if isinstance(got, dict) else got
    assert [r["public_id"] for r in rows] == [public[shown]]
    assert client.get(f"/api/reports/{public[shown]}/").status_code == 200
    for pk in unshown:
        assert client.get(f"/api/reports/{public[pk]}/").status_code == 404

    study.researchers.add(researcher_user)
    staff = APIClient()
    staff.force_login(researcher_user)
    got = staff.get("/api/reports/", {"study": study.pk, "limit": 50}).json()
    rows = got["results"] if isinstance(got, dict) else got
    assert {r["public_id"] for r in rows} == set(public.values())
    for pk in unshown:
        assert staff.get(f"/api/reports/{public[pk]}/").status_code == 200


def test_an_annotator_reads_only_the_rubrics_their_tasks_show(annotator_user, researcher_user):
    """Least privilege for rubrics too: an annotator with no task that shows rubrics (a
    pairwise and a query quality assignment of a question that has one) lists none and gets
    404 by public id; a rubric coverage assignment of another question gives exactly that
    question's rubric; a researcher of the study still reads both."""
    annotator = annotator_user.annotator
    study = make_study("rubrics", tasks=["pairwise", "query_quality", "rubric_coverage"])
    hidden_q, shown_q = (make_question(study, n_reports=2, rubric_items=2) for _ in range(2))
    make_assignment(annotator, hidden_q, "pairwise")
    make_assignment(annotator, hidden_q, "query_quality")
    hidden, shown = hidden_q.rubrics.get(), shown_q.rubrics.get()

    client = APIClient()
    client.force_login(annotator_user)
    got = client.get("/api/rubrics/", {"limit": 50}).json()
    assert (got["results"] if isinstance(got, dict) else got) == []
    assert client.get(f"/api/rubrics/{hidden.public_id}/").status_code == 404

    make_assignment(annotator, shown_q, "rubric_coverage")
    got = client.get("/api/rubrics/", {"limit": 50}).json()
    rows = got["results"] if isinstance(got, dict) else got
    assert [r["public_id"] for r in rows] == [shown.public_id]
    assert len(rows[0]["items"]) == 2
    assert client.get(f"/api/rubrics/{shown.public_id}/").status_code == 200
    assert client.get(f"/api/rubrics/{hidden.public_id}/").status_code == 404

    study.researchers.add(researcher_user)
    staff = APIClient()
    staff.force_login(researcher_user)
    got = staff.get("/api/rubrics/", {"study": study.pk, "limit": 50}).json()
    rows = got["results"] if isinstance(got, dict) else got
    assert {r["public_id"] for r in rows} == {hidden.public_id, shown.public_id}
