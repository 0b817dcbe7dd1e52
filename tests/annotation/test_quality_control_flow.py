"""The quality-control flow as an admin runs it from the quality page (issue 26, "Quality-
control flow"): a qualification round scores only work done as the qualification; "Add gold
and qualification items to every annotator's queue" adds them or says, per annotator, why
not; the known-answer help and the form read one notation."""

import re

import pytest
from django.urls import reverse
from django.utils import timezone
from django.utils.html import escape

from annotation.annotate.pairwise import QC as PAIRWISE_QC
from annotation.models import Assignment, Draft, GoldItem, PairwisePreference, QualificationResult
from tests.builders.content import make_assignment, make_question, make_study
from tests.builders.users import make_user

S0, S1 = "SecretSystem0", "SecretSystem1"


@pytest.fixture
def world(db, client):
    admin = make_user("qf_admin", "admin")
    people = [make_user(f"qf_{n}", "annotator", annotator=True) for n in "ab"]
    study = make_study("QC flow", tasks=["pairwise"])
    questions = [make_question(study, n_reports=2, paragraphs=1) for _ in range(3)]
    client.force_login(admin)
    return study, questions, [u.annotator for u in people], people


def post(client, study, **data):
    return client.post(reverse("studies:quality", args=[study.pk]), data, follow=True)


def answer(assignment, choice):
    """The annotator submits a pairwise choice in ``assignment`` (left = SecretSystem0)."""
    q = assignment.question
    left, right = q.reports.order_by("system__name")
    PairwisePreference.objects.create(
        study=q.study, annotator=assignment.annotator, question=q, left=left, right=right,
        choice=choice, reason="r", assignment=assignment,
    )  # fmt: skip
    Assignment.objects.filter(pk=assignment.pk).update(
        status="submitted", submitted_at=timezone.now()
    )
    Draft.objects.create(assignment=assignment, submitted_version=1, version=1)


def test_earlier_work_is_not_a_qualification_attempt_and_release_says_why(
    client, world, django_capture_on_commit_callbacks
):
    study, (q1, q2, q3), (a, b), (ua, ub) = world
    # a judged q1 (the "wrong" way) before q1 became a qualification item
    answer(make_assignment(a, q1, "pairwise"), "right")
    make_assignment(b, q3, "pairwise")
    r = post(client, study, action="enter", task="pairwise", question="q1",
             answer=f"{S0}>{S1}", purpose="qualification")  # fmt: skip
    assert r.status_code == 200
    post(client, study, action="settings", gold_threshold="0.7", qualification_required="on",
         qualification_pass="1")  # fmt: skip
    page = post(client, study, action="release").content.decode()
    # b gets it; a cannot (one assignment per task and question) and the admin is told why
    assert "1 gold and qualification assignments added" in page
    assert (
        "Pseudo-qf_a already has pairwise on question q1 from before it became a "
        "qualification item" in page
    )
    rows = dict(
        re.findall(r'data-annotator="(Pseudo-qf_\w)">.*?<td class="result">(\w+)', page, flags=re.S)
    )
    assert rows["Pseudo-qf_a"] == "pending"  # not "failed" for the earlier label
    assert QualificationResult.objects.get(annotator=a).answered == 0
    # b answers the qualification item as the answer says: passed
    with django_capture_on_commit_callbacks(execute=True):
        answer(Assignment.objects.get(annotator=b, question=q1), "left")
    result = QualificationResult.objects.get(annotator=b)
    assert (result.passed, result.correct, result.answered) == (True, 1, 1)


def test_release_adds_gold_to_every_queue_and_names_who_already_has_it(client, world):
    study, (q1, q2, q3), (a, b), _ = world
    answer(make_assignment(a, q1, "pairwise"), "left")
    make_assignment(a, q2, "pairwise")
    make_assignment(b, q2, "pairwise")
    post(client, study, action="mark", unit=f"pairwise|{q1.pk}|{S0}~{S1}", annotator=a.pk,
         purpose="gold")  # fmt: skip
    page = post(client, study, action="release").content.decode()
    assert "1 gold and qualification assignments added" in page
    assert "Pseudo-qf_a already has pairwise on question q1 (submitted" in page
    assert Assignment.objects.filter(annotator=b, question=q1).exists()
    # a second release adds nothing and still says why, for both
    page = post(client, study, action="release").content.decode()
    assert "0 gold and qualification assignments added" in page
    assert "Pseudo-qf_b already has pairwise on question q1 (in their queue" in page


def test_the_known_answer_help_and_form_read_one_notation(client, world):
    study, (q1, q2, _), _, _ = world
    page = client.get(reverse("studies:quality", args=[study.pk])).content.decode()
    # the help shows the task's declared notation …
    assert f"<code>{escape(PAIRWISE_QC.notation)}</code>" in page
    # … and the form takes every form it names: with the unit empty or given, or the winner
    pair = f"{S0}~{S1}"
    for question, unit, typed, label in (
        ("q1", "", f"{S0}>{S1}", S0),
        ("q2", pair, f"{S1}>{S0}", S1),
        ("q3", pair, "tie", "tie"),
    ):
        r = post(client, study, action="enter", task="pairwise", question=question, unit=unit,
                 answer=typed, purpose="gold")  # fmt: skip
        assert r.status_code == 200, r.content.decode()[:500]
        assert GoldItem.objects.get(question__external_id=question).answer == label
    # an answer naming another unit than the one given is refused, naming the field
    r = post(client, study, action="enter", task="pairwise", question="q1", unit=pair,
             answer=f"{S0}>SecretSystem2", purpose="gold")  # fmt: skip
    assert r.status_code == 400 and "answer: “SecretSystem0&gt;SecretSystem2” is not one of" in (
        r.content.decode()
    )


@pytest.mark.parametrize("bad", ["abc", "²", "1.5", ""])
def test_a_posted_id_that_is_not_one_is_a_400_naming_the_field(client, world, bad):
    study, (q1, _, _), (a, b), (ua, _) = world
    make_assignment(a, q1, "pairwise")
    r = client.post(reverse("studies:quality", args=[study.pk]), {"action": "remove", "item": bad})
    assert r.status_code == 400 and "item: “" in r.content.decode()
    r = client.post(reverse("studies:quality", args=[study.pk]),
                    {"action": "override", "annotator": bad, "verdict": "pass", "reason": "x"})  # fmt: skip
    assert r.status_code == 400 and "annotator: “" in r.content.decode()
    r = client.post(reverse("studies:quality", args=[study.pk]),
                    {"action": "mark", "unit": f"pairwise|{q1.pk}|x", "annotator": bad})  # fmt: skip
    assert r.status_code == 400 and "annotator: “" in r.content.decode()
    client.force_login(ua)
    r = client.post(reverse("studies:my_adjudications"), {"request": bad, "label": "0"})
    assert r.status_code == 400 and "request: “" in r.content.decode()


def test_work_submitted_once_the_item_is_a_qualification_item_counts(
    client, world, django_capture_on_commit_callbacks
):
    """An assignment made before the item became a qualification item but submitted after
    (the annotator saw it in the qualification-only queue) is a qualification attempt."""
    study, (q1, _, _), (a, _), _ = world
    make_assignment(a, q1, "pairwise")  # made before the item exists, not opened
    post(client, study, action="enter", task="pairwise", question="q1", answer=f"{S0}>{S1}",
         purpose="qualification")  # fmt: skip
    post(client, study, action="settings", gold_threshold="0.7", qualification_required="on",
         qualification_pass="1")  # fmt: skip
    page = post(client, study, action="release").content.decode()
    assert "Pseudo-qf_a already has pairwise on question q1 (in their queue: their " in page
    assert "submission there is their qualification answer" in page
    with django_capture_on_commit_callbacks(execute=True):
        mine = Assignment.objects.get(annotator=a, question=q1)  # as the page loads it
        answer(mine, "left")
    result = QualificationResult.objects.get(annotator=a)
    assert (result.passed, result.correct, result.answered) == (True, 1, 1)
    # released again, the item is not said to be work "from before" that does not count
    # (the admin was told to pass or fail by hand an annotator already passed)
    page = post(client, study, action="release").content.decode()
    assert "from before it became" not in page
    assert "Pseudo-qf_a already has pairwise on question q1 (submitted once it was a " in page


def test_release_gives_no_new_qualification_item_to_a_decided_annotator(
    client, world, django_capture_on_commit_callbacks
):
    """A decided result is never recomputed: a qualification item added later would be work
    that changes nothing while looking like a retry. Passed or failed, computed or by hand,
    the annotator is skipped and the admin told why; an undecided one still gets it."""
    study, (q1, q2, q3), (a, b), _ = world
    c = make_user("qf_c", "annotator", annotator=True).annotator
    d = make_user("qf_d", "annotator", annotator=True).annotator
    for person in (a, b, c, d):
        make_assignment(person, q3, "pairwise")
    post(client, study, action="enter", task="pairwise", question="q1",
         answer=f"{S0}>{S1}", purpose="qualification")  # fmt: skip
    post(client, study, action="settings", gold_threshold="0.7", qualification_required="on",
         qualification_pass="1")  # fmt: skip
    post(client, study, action="release")
    with django_capture_on_commit_callbacks(execute=True):
        answer(Assignment.objects.get(annotator=a, question=q1), "right")  # wrong: failed
        answer(Assignment.objects.get(annotator=b, question=q1), "left")  # right: passed
    assert QualificationResult.objects.get(annotator=a).passed is False
    assert QualificationResult.objects.get(annotator=b).passed is True
    post(client, study, action="override", annotator=d.pk, verdict="fail", reason="absent")
    post(client, study, action="enter", task="pairwise", question="q2",
         answer=f"{S0}>{S1}", purpose="qualification")  # fmt: skip
    page = post(client, study, action="release").content.decode()
    given = set(
        Assignment.objects.filter(question=q2).values_list("annotator__pseudonym", flat=True)
    )
    assert given == {c.pseudonym}  # undecided: q1 still unanswered
    assert "1 gold and qualification assignments added" in page
    for who, verdict in (("a", "failed"), ("b", "passed"), ("d", "failed")):
        how = " (set by hand)" if who == "d" else ""
        assert (
            escape(
                f"Pseudo-qf_{who} has already {verdict} the qualification round{how}: pairwise on "
                "question q2 would not change a decided result (only an override does)"
            )
            in page
        )
    assert QualificationResult.objects.get(annotator=a).passed is False
