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

from annotation.models import Assignment, GoldItem, QualificationResult, Reopening, Report
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


def return_for_revision(study, admin_user, assignment):
    admin = Client()
    admin.force_login(admin_user)
    url = reverse("studies:return_for_revision", args=[study.pk])
    return admin.post(url, {"assignment": assignment.pk, "reason": "Look again."})


def test_an_admin_cannot_return_a_failed_qualification_item_for_revision(
    world, admin_user, django_capture_on_commit_callbacks
):
    """A tester's finding: the admin's return reopened it and the revision overwrote the
    answer the failed result was computed from."""
    study, people = world
    user, qualifying, client, held = people["wrong"]
    with django_capture_on_commit_callbacks(execute=True):
        submit(client, qualifying, WRONG, 0)
    assert passed(study, user) is False
    response = return_for_revision(study, admin_user, qualifying)
    assert response.status_code == 400
    said = response.content.decode()
    assert f"assignment {qualifying.pk}: it is a qualification item" in said
    assert "first answer decides" in said and "override" in said
    qualifying.refresh_from_db()
    assert qualifying.status == Assignment.Status.SUBMITTED
    assert not Reopening.objects.filter(assignment=qualifying).exists()
    assert submit(client, qualifying, RIGHT, 1).status_code != 204  # nothing to answer again
    assert passed(study, user) is False
    queue = client.get(reverse("annotate:queue")).content.decode()
    assert reverse("annotate:task", args=[held.pk]) not in queue


def test_a_return_cannot_turn_an_undecided_wrong_first_answer_into_a_pass(
    world, admin_user, django_capture_on_commit_callbacks
):
    """With two qualification items the result waits for both: a wrong first answer
    returned, corrected, then the second right gave "passed 2/2"."""
    study, people = world
    second = make_question(study)
    GoldItem.objects.create(
        study=study, task="medal_ranking", question=second, purpose=GoldItem.Purpose.QUALIFICATION,
        answer=";".join(f"{s}={m}" for s, m in sorted(RIGHT.items())),
    )  # fmt: skip
    user, qualifying, client, held = people["wrong"]
    other = make_assignment(user.annotator, second, "medal_ranking", position=2)
    with django_capture_on_commit_callbacks(execute=True):
        submit(client, qualifying, WRONG, 0)
    assert passed(study, user) is None
    assert return_for_revision(study, admin_user, qualifying).status_code == 400
    with django_capture_on_commit_callbacks(execute=True):
        submit(client, qualifying, RIGHT, 1)
        submit(client, other, RIGHT, 0)
    result = QualificationResult.objects.get(study=study, annotator=user.annotator)
    assert (result.passed, result.correct, result.items) == (False, 1, 2)


def test_the_review_page_offers_no_return_of_a_qualification_item(
    world, admin_user, django_capture_on_commit_callbacks
):
    study, people = world
    user, qualifying, client, held = people["wrong"]
    with django_capture_on_commit_callbacks(execute=True):
        submit(client, qualifying, WRONG, 0)
    admin = Client()
    admin.force_login(admin_user)
    page = admin.get(reverse("studies:review", args=[study.pk])).content.decode()
    row = page.split(f'data-assignment="{qualifying.pk}"')[1].split("</tr>")[0]
    assert "Qualification item" in row and 'name="assignment"' not in row
