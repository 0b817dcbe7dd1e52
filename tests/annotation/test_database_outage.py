"""A database outage during an autosave or submit: 503 with a clear message, nothing written.

The failures are real (see tests/outage.py): the driver cannot connect, or the server
kills the session in the middle of the submit's transaction.
"""

import pytest
from django.db import connection
from django.db.models.signals import pre_save
from django.urls import reverse

from annotation.models import Assignment, Draft, DraftVersion, MedalRanking, Report
from concord.outage import API_MESSAGE, SAVE_MESSAGE
from tests.builders.content import make_assignment, make_question, make_study
from tests.outage import database_outage, kill_backend

pytestmark = pytest.mark.django_db(transaction=True)
HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def task(annotator_user, client):
    """A medal ranking with one saved draft (version 1)."""
    question = make_question(make_study(), n_reports=3)
    assignment = make_assignment(annotator_user.annotator, question, "medal_ranking")
    client.force_login(annotator_user)
    by_pk = dict(Report.objects.values_list("pk", "public_id"))
    pids = [by_pk[pk] for pk in assignment.report_order]
    first = {"version": "0", f"medal-{pids[0]}": "gold", "reasoning": "A first thought."}
    response = client.post(reverse("annotate:autosave", args=[assignment.pk]), first, **HTMX)
    assert response.status_code == 200
    return assignment, pids


def stored(assignment) -> tuple:
    draft = Draft.objects.get(assignment=assignment)
    a = Assignment.objects.get(pk=assignment.pk)
    return (
        draft.version,
        draft.payload,
        draft.submitted_version,
        DraftVersion.objects.filter(assignment=assignment).count(),
        a.status,
        MedalRanking.objects.filter(assignment=assignment).count(),
    )


def full(pids, version: int) -> dict:
    medals = dict(zip((f"medal-{p}" for p in pids), ("gold", "silver", "bronze"), strict=True))
    return {"version": str(version), "reasoning": "A covers more.", **medals}


def test_autosave_during_an_outage_is_a_503_fragment_and_changes_nothing(task, client):
    assignment, pids = task
    before = stored(assignment)
    url = reverse("annotate:autosave", args=[assignment.pk])
    with database_outage():
        response = client.post(url, full(pids, 1), **HTMX)
    assert response.status_code == 503
    assert response["Retry-After"]
    html = response.content.decode()
    assert SAVE_MESSAGE in html and 'id="save-status"' in html and 'aria-live="polite"' in html
    assert "OperationalError" not in html and "Traceback" not in html
    assert stored(assignment) == before

    # once the database is back the same save goes through
    response = client.post(url, full(pids, 1), **HTMX)
    assert response.status_code == 200 and Draft.objects.get(assignment=assignment).version == 2


def test_submit_during_an_outage_is_a_503_and_changes_nothing(task, client):
    assignment, pids = task
    before = stored(assignment)
    with database_outage():
        response = client.post(
            reverse("annotate:submit", args=[assignment.pk]), full(pids, 1), **HTMX
        )
    assert response.status_code == 503 and SAVE_MESSAGE in response.content.decode()
    assert stored(assignment) == before


def test_a_page_and_the_api_during_an_outage(task, client):
    assignment, _ = task
    with database_outage():
        page = client.get(reverse("annotate:task", args=[assignment.pk]))
        api = client.get("/api/assignments/")
    assert page.status_code == 503
    assert "Concord is temporarily unavailable" in page.content.decode()
    assert api.status_code == 503 and api["Content-Type"] == "application/json"
    assert api.json() == {"detail": API_MESSAGE, "code": "database_unavailable"}


def test_a_server_killed_in_the_middle_of_a_submit_leaves_nothing_half_written(task, client):
    """The judgment rows are written, then the session dies before the submit's version."""
    if connection.vendor != "postgresql":
        pytest.skip("terminating a backend needs PostgreSQL")
    assignment, pids = task
    before = stored(assignment)

    def die(sender, instance, **kwargs):
        if instance.kind == DraftVersion.Kind.SUBMIT:
            assert MedalRanking.objects.filter(assignment=assignment).exists()  # half-way
            kill_backend()

    pre_save.connect(die, sender=DraftVersion)
    try:
        response = client.post(
            reverse("annotate:submit", args=[assignment.pk]), full(pids, 1), **HTMX
        )
    finally:
        pre_save.disconnect(die, sender=DraftVersion)
    assert response.status_code == 503 and SAVE_MESSAGE in response.content.decode()
    connection.close()  # this test's session was the one killed
    assert stored(assignment) == before  # the ranking written before the kill is gone

    response = client.post(reverse("annotate:submit", args=[assignment.pk]), full(pids, 1), **HTMX)
    assert response.status_code == 204
    assert MedalRanking.objects.filter(assignment=assignment).count() == 1
