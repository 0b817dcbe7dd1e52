"""A qualification round is decided over the items the annotator was given (found by a
tester: ChattySquirrel-1 was given 1 of 3 items, the others "not added", and after
answering it stayed pending for good, locked out of real work until an admin overrode).

An item the release could not give them (here: a question they had done before it became
an item) is none of theirs; one it gave them counts whatever they do with it (a skip is an
item not passed). Given none, they stay pending and the quality page says why.
"""

import re

from django.urls import reverse

from annotation.models import Assignment, Flag, QualificationResult
from tests.annotation.test_quality_control_flow import S0, S1, answer, post, world  # noqa: F401
from tests.builders.content import make_assignment


def _items(client, study, *questions):
    """Pairwise qualification items on ``questions`` (pass mark 1), then one release."""
    for q in questions:
        post(client, study, action="enter", task="pairwise", question=q.external_id,
             answer=f"{S0}>{S1}", purpose="qualification")  # fmt: skip
    post(client, study, action="settings", gold_threshold="0.7", qualification_required="on",
         qualification_pass="1")  # fmt: skip
    return post(client, study, action="release").content.decode()


def _result_cell(page: str, annotator) -> str:
    row = re.search(
        rf'data-annotator="{annotator.pseudonym}">.*?<td class="result">(.*?)</td>', page, re.S
    )
    return row.group(1)


def test_the_round_is_decided_over_the_items_the_annotator_was_given(
    client,
    world,  # noqa: F811
    django_capture_on_commit_callbacks,
):
    study, (q1, q2, _), (a, b), _ = world
    answer(make_assignment(a, q1, "pairwise"), "right")  # done before it was an item
    make_assignment(b, q1, "pairwise", position=5)  # b holds q1 unstarted: their answer counts
    page = _items(client, study, q1, q2)
    assert "already has pairwise on question q1 from before" in page
    assert Assignment.objects.filter(annotator=b, question=q1).count() == 1
    with django_capture_on_commit_callbacks(execute=True):
        answer(Assignment.objects.get(annotator=a, question=q2), "left")
        answer(Assignment.objects.get(annotator=b, question=q1), "left")
    mine = QualificationResult.objects.get(study=study, annotator=a)
    assert (mine.passed, mine.correct, mine.answered, mine.items) == (True, 1, 1, 1)
    # b was given both (q1 already in their queue): one answered is not the round
    theirs = QualificationResult.objects.get(study=study, annotator=b)
    assert (theirs.passed, theirs.answered, theirs.items) == (None, 1, 2)


def test_a_skipped_item_given_still_fails_the_round(
    client,
    world,  # noqa: F811
    django_capture_on_commit_callbacks,
):
    study, (q1, q2, _), (a, _b), _ = world
    answer(make_assignment(a, q1, "pairwise"), "left")  # done before: right, but no attempt
    _items(client, study, q1, q2)
    item = Assignment.objects.get(annotator=a, question=q2)
    with django_capture_on_commit_callbacks(execute=True):
        Flag.objects.create(assignment=item, annotator=a, reason="none_given", skipped=True)
    result = QualificationResult.objects.get(study=study, annotator=a)
    assert (result.passed, result.correct, result.items) == (False, 0, 1)


def test_given_no_item_they_stay_pending_and_the_quality_page_says_why(
    client,
    world,  # noqa: F811
):
    study, (q1, _, q3), (a, b), _ = world
    answer(make_assignment(a, q1, "pairwise"), "left")
    make_assignment(b, q3, "pairwise")
    page = _items(client, study, q1)
    result = QualificationResult.objects.get(study=study, annotator=a)
    assert (result.passed, result.items) == (None, 0)
    said = _result_cell(page, a)
    assert said.startswith("pending")
    assert "given no qualification item" in said
    assert "pass or fail them by hand" in said
    # b was given it and has not answered yet: pending, nothing to explain
    assert _result_cell(page, b) == "pending"
    page = client.get(reverse("studies:quality", args=[study.pk])).content.decode()
    assert "given no qualification item" in _result_cell(page, a)
