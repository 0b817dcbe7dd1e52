"""A qualification round cannot be brute-forced (issue 24).

With ``reopen_hours`` > 0 an annotator could submit a qualification item, learn from where the
submit sent them that they had failed, reopen it, answer again and pass. Now the first attempt
counts (a decided result is never recomputed; only an admin's override changes it), the author
cannot reopen a qualification item, and every response to the submit is the same whether the
answer was right or wrong.
"""

from __future__ import annotations

import pytest
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse

from annotation.models import Assignment, GoldItem, QualificationResult, Report
from tests.builders.content import make_assignment, make_question, make_study
from tests.builders.users import make_user

RIGHT = {"SecretSystem0": "gold", "SecretSystem1": "silver", "SecretSystem2": "bronze"}
WRONG = {"SecretSystem0": "bronze", "SecretSystem1": "silver", "SecretSystem2": "gold"}


@pytest.fixture
def world(db):
    study = make_study("Qualified study", qualification_required=True, reopen_hours=24)
    entry, real = make_question(study), make_question(study)
    GoldItem.objects.create(
        study=study,
        task="medal_ranking",
        question=entry,
        answer=";".join(f"{s}={m}" for s, m in sorted(RIGHT.items())),
        purpose=GoldItem.Purpose.QUALIFICATION,
    )
    people = {}
    for name in ("wrong", "right"):
        user = make_user(f"qual_{name}", "annotator", annotator=True)
        qualifying = make_assignment(user.annotator, entry, "medal_ranking", position=0)
        held = make_assignment(user.annotator, real, "medal_ranking", position=1)
        client = Client()
        client.force_login(user)
        people[name] = (user, qualifying, client, held)
    return study, people


def submit(client, assignment, medals: dict[str, str], version: int, htmx: bool = True):
    client.get(reverse("annotate:task", args=[assignment.pk]))  # draws the report order
    data = {"version": str(version), "reasoning": "Because of the evidence."}
    for report in Report.objects.filter(question=assignment.question).select_related("system"):
        data[f"medal-{report.public_id}"] = medals[report.system.name]
    extra = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    return client.post(reverse("annotate:submit", args=[assignment.pk]), data, **extra)


def seen(client, response) -> tuple:
    """What a submit tells its author: status, where it sends them, the messages."""
    where = response.get("HX-Redirect") or response.get("Location")
    return response.status_code, where, [m.message for m in get_messages(response.wsgi_request)]


def passed(study, user):
    result = QualificationResult.objects.filter(study=study, annotator=user.annotator).first()
    return result.passed if result else None


@pytest.mark.parametrize("htmx", [True, False])
def test_a_right_and_a_wrong_answer_get_the_same_answer(transactional_db, world, htmx):
    """Real commits (the result is computed when the submit commits, before the response)."""
    study, people = world
    answers = {}
    for name, medals in (("wrong", WRONG), ("right", RIGHT)):
        user, qualifying, client, held = people[name]
        answers[name] = seen(client, submit(client, qualifying, medals, 0, htmx=htmx))
    assert (passed(study, people["wrong"][0]), passed(study, people["right"][0])) == (False, True)
    assert answers["wrong"] == answers["right"]


def test_the_author_cannot_reopen_a_qualification_item(world, django_capture_on_commit_callbacks):
    study, people = world
    user, qualifying, client, held = people["wrong"]
    with django_capture_on_commit_callbacks(execute=True):
        submit(client, qualifying, WRONG, 0)
    page = client.get(reverse("annotate:task", args=[qualifying.pk])).content.decode()
    assert reverse("annotate:reopen", args=[qualifying.pk]) not in page
    response = client.post(reverse("annotate:reopen", args=[qualifying.pk]))
    assert response.status_code == 400
    assert "qualification" in response.content.decode()
    qualifying.refresh_from_db()
    assert qualifying.status == Assignment.Status.SUBMITTED


def test_the_first_attempt_counts_even_after_a_return_for_revision(
    world, admin_user, django_capture_on_commit_callbacks
):
    study, people = world
    user, qualifying, client, held = people["wrong"]
    with django_capture_on_commit_callbacks(execute=True):
        submit(client, qualifying, WRONG, 0)
    assert passed(study, user) is False
    admin = Client()
    admin.force_login(admin_user)
    url = reverse("studies:return_for_revision", args=[study.pk])
    assert (
        admin.post(url, {"assignment": qualifying.pk, "reason": "Look again."}).status_code == 302
    )
    with django_capture_on_commit_callbacks(execute=True):
        assert submit(client, qualifying, RIGHT, 1).status_code == 204
    qualifying.refresh_from_db()
    assert qualifying.status == Assignment.Status.SUBMITTED
    assert passed(study, user) is False
    queue = client.get(reverse("annotate:queue")).content.decode()
    assert reverse("annotate:task", args=[held.pk]) not in queue
