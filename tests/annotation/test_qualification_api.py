"""The API cannot change a qualification answer (issue 24, QUALITY.md): as the review page
refuses to return a qualification item for revision, an admin's write to
``/api/assignments/<id>/`` may not reopen a submitted one (it would show unsubmitted while
save and submit refuse it), withdraw, move, re-date it or change its setting, nor mark an
unanswered one submitted; nor may the judgments API write, change or delete its answer. Each refusal is a
400 (a delete a 409) naming the field and changes nothing; ordinary work is unaffected."""

import pytest
from django.urls import reverse

from annotation.models import Assignment, GoldItem, PairwisePreference
from tests.annotation.test_quality_control_flow import S0, S1, answer, world  # noqa: F401
from tests.builders.content import make_assignment
from tests.builders.users import make_user

UNIT = f"{S0}~{S1}"


@pytest.fixture
def items(world):  # noqa: F811
    study, (q1, q2, _), (a, b), _ = world
    GoldItem.objects.create(
        study=study, task="pairwise", question=q1, unit=UNIT, answer=S0, purpose="qualification"
    )
    done = make_assignment(a, q1, "pairwise")
    answer(done, "right")
    waiting = make_assignment(b, q1, "pairwise")
    ordinary = make_assignment(a, q2, "pairwise")
    answer(ordinary, "left")
    return Assignment.objects.get(pk=done.pk), waiting, Assignment.objects.get(pk=ordinary.pk)


def patch(client, assignment, **data):
    url = reverse("assignment-detail", args=[assignment.pk])
    return client.patch(url, data, content_type="application/json")


def state(assignment):
    row = Assignment.objects.get(pk=assignment.pk)
    return row.status, row.submitted_at, row.question_id, row.annotator_id, row.task


@pytest.mark.parametrize("status", ["in_progress", "not_started", "withdrawn"])
def test_a_submitted_qualification_item_cannot_be_reopened_through_the_api(client, items, status):
    done, _, _ = items
    before = state(done)
    response = patch(client, done, status=status)
    assert response.status_code == 400
    said = response.json()
    assert [e["field"] for e in said["errors"]] == ["status"]  # one shape: concord.error_body
    assert said["status"][0].startswith("Qualification items cannot be reopened: assignment")
    assert state(done) == before


def test_nor_moved_or_redated_but_its_place_in_the_queue_may_change(client, world, items):  # noqa: F811
    _, (_, q2, q3), _, _ = world
    done, _, _ = items
    other = make_user("qf_other", "annotator", annotator=True).annotator
    before = state(done)
    for field, value in (("question", q3.pk), ("annotator", other.pk),
                         ("submitted_at", "2020-01-01T00:00:00Z")):  # fmt: skip
        response = patch(client, done, **{field: value})
        assert response.status_code == 400, (field, response.json())
        assert response.json()[field][0].startswith("Cannot change: assignment"), response.json()
    assert state(done) == before
    # a full write of the same values, or its position: fine
    assert patch(client, done, status="submitted", position=7).status_code == 200
    assert Assignment.objects.get(pk=done.pk).position == 7 and state(done) == before


def test_nor_its_setting_which_its_answer_carries(client, items):
    """Its judgment carries the setting: rewriting the assignment's would make them disagree
    (a tester's finding: ``expertise_matched`` was written with a 200)."""
    done, _, _ = items
    response = patch(client, done, setting="expertise_matched")
    assert response.status_code == 400
    assert [e["field"] for e in response.json()["errors"]] == ["setting"]
    assert Assignment.objects.get(pk=done.pk).setting == "assigned"


def test_an_unanswered_qualification_item_cannot_be_marked_submitted(client, items):
    _, waiting, _ = items
    response = patch(client, waiting, status="submitted")
    assert response.status_code == 400
    assert "the API cannot mark it submitted" in response.json()["status"][0]
    assert Assignment.objects.get(pk=waiting.pk).status == "not_started"
    # created as a submitted qualification item: refused too
    url = reverse("assignment-list")
    data = {"study": waiting.study_id, "annotator": waiting.annotator_id,
            "question": waiting.question_id, "task": "pairwise", "status": "submitted"}  # fmt: skip
    Assignment.objects.filter(pk=waiting.pk).delete()
    response = client.post(url, data, content_type="application/json")
    assert response.status_code == 400 and "status" in response.json()


def test_its_answer_cannot_be_written_changed_or_deleted_through_the_judgments_api(client, items):
    done, waiting, _ = items
    judgment = PairwisePreference.objects.get(assignment=done)
    url = reverse("pairwise-preference-detail", args=[judgment.pk])
    response = client.patch(url, {"choice": "left"}, content_type="application/json")
    assert response.status_code == 400
    assert response.json()["assignment"][0].startswith(f"assignment {done.pk} is a qualification")
    assert client.delete(url).status_code == 409
    judgment.refresh_from_db()
    assert judgment.choice == "right"
    # nor written for the annotator who has not answered yet
    left, right = waiting.question.reports.order_by("system__name")
    data = {"study": waiting.study_id, "annotator": waiting.annotator_id,
            "question": waiting.question_id, "assignment": waiting.pk, "setting": waiting.setting,
            "left": left.public_id, "right": right.public_id, "choice": "left", "reason": "x"}  # fmt: skip
    response = client.post(
        reverse("pairwise-preference-list"), data, content_type="application/json"
    )
    assert response.status_code == 400 and "assignment" in response.json()
    assert not PairwisePreference.objects.filter(assignment=waiting).exists()


def test_ordinary_work_is_unaffected(client, items):
    _, _, ordinary = items
    assert patch(client, ordinary, status="in_progress").status_code == 200
    judgment = PairwisePreference.objects.get(assignment=ordinary)
    url = reverse("pairwise-preference-detail", args=[judgment.pk])
    response = client.patch(url, {"choice": "right"}, content_type="application/json")
    assert response.status_code == 200
