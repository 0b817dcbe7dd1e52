"""Turning the qualification round on partway through a study (docs/QUALITY.md, "Turning
the round on partway"), what the queue tells an annotator who has not passed ("What the
annotator is told"), and the "Enter a known answer" form's question field.

Found by a tester: the experts who had already worked saw their queue drop to a single
item (their 6–7 submitted tasks gone) and the annotator whose labels were the known answers
was blocked too; a failed annotator read "being reviewed"; the form's "Question (id)"
refused the question's id.
"""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from annotation import history
from annotation.models import (
    Assignment,
    DraftVersion,
    GoldItem,
    QualificationResult,
    QualityEvent,
    Reopening,
)
from studio.studyadmin import quality
from tests.builders.content import make_assignment, make_question, make_study
from tests.builders.quality import S0, S1, label, qc_question
from tests.builders.users import make_user

UNIT = f"{S0}~{S1}"
NOTICE = 'data-testid="qualification-notice"'


def queue_of(user) -> str:
    client = Client()
    client.force_login(user)
    return client.get(reverse("annotate:queue")).content.decode()


def opens(user, assignment) -> int:
    client = Client()
    client.force_login(user)
    return client.get(reverse("annotate:task", args=[assignment.pk])).status_code


def task_link(assignment) -> str:
    return f'href="{reverse("annotate:task", args=[assignment.pk])}"'


@pytest.fixture
def study_underway(db):
    """Two experts who each submitted pairwise on three questions and have a fourth not
    started; the round is not required yet."""
    admin = make_user("pw_admin", "admin")
    study = make_study("Underway", tasks=["pairwise"])
    questions = [qc_question(study) for _ in range(4)]
    users = [make_user(f"pw_{n}", "annotator", annotator=True) for n in ("author", "expert")]
    done, pending = {}, {}
    for u in users:
        done[u] = [label("pairwise", u.annotator, q, second=u.username == "pw_expert")
                   for q in questions[:3]]  # fmt: skip
        pending[u] = make_assignment(u.annotator, questions[3], "pairwise", position=9)
    client = Client()
    client.force_login(admin)
    return study, questions, users, done, pending, client


def turn_on(client, study) -> None:
    r = client.post(
        reverse("studies:quality", args=[study.pk]),
        {"action": "settings", "gold_threshold": "0.7", "qualification_pass": "0.8",
         "qualification_required": "on"},
    )  # fmt: skip
    assert r.status_code == 302
    study.refresh_from_db()
    assert study.config["qualification_required"] is True


def test_turning_the_round_on_partway_keeps_submitted_work_and_qualifies_the_author(
    study_underway,
):
    study, questions, (author, expert), done, pending, client = study_underway
    # the author's label on the first question becomes the qualification answer
    r = client.post(
        reverse("studies:quality", args=[study.pk]),
        {"action": "mark", "unit": f"pairwise|{questions[0].pk}|{UNIT}",
         "annotator": author.annotator.pk, "purpose": "qualification"},
    )  # fmt: skip
    assert r.status_code == 302
    turn_on(client, study)  # no look at the quality page in between

    # the expert: every submitted task still listed and readable, not-started work waits
    page = queue_of(expert)
    for a in done[expert]:
        assert task_link(a) in page
        assert opens(expert, a) == 200
    assert task_link(pending[expert]) not in page
    assert opens(expert, pending[expert]) == 404
    assert "3 of 3 submitted" in page
    # nothing left for them to do: the round waits for the admin, and the queue says so
    assert "being reviewed" in page and "did not qualify" not in page
    # their history keeps the submitted work, not the held-back one
    # (opening it above made its stored answers version 1: ``drafts.adopt``)
    v = DraftVersion.objects.get(assignment=done[expert][1], version=1)
    hidden = DraftVersion.objects.create(
        assignment=pending[expert], version=1, author=expert.annotator, payload={"r": "y"}
    )
    shown = set(history.of_annotator(expert.annotator).values_list("pk", flat=True))
    assert v.pk in shown and hidden.pk not in shown

    # the author: qualified by having written the known answer, nothing held back
    result = QualificationResult.objects.get(study=study, annotator=author.annotator)
    assert result.passed is True and not result.overridden
    assert QualityEvent.objects.filter(
        study=study, annotator=author.annotator, action="qualified_as_author"
    ).exists()
    page = queue_of(author)
    for a in [*done[author], pending[author]]:
        assert task_link(a) in page
    assert opens(author, pending[author]) == 200
    assert NOTICE not in page
    # the quality page says why they passed
    qpage = client.get(reverse("studies:quality", args=[study.pk])).content.decode()
    row = qpage.split(f'data-annotator="{author.annotator.pseudonym}"')[1].split("</tr>")[0]
    assert "passed" in row and "wrote a known answer" in row


def test_work_reopened_after_the_round_was_turned_on_stays_listed(study_underway):
    """Submitted, then reopened by its author (or returned for revision): still their
    submitted work, so it does not vanish while they revise it."""
    study, questions, (author, expert), done, pending, client = study_underway
    turn_on(client, study)
    a = done[expert][2]
    Reopening.objects.create(assignment=a, version=1, by=expert, by_author=True)
    Assignment.objects.filter(pk=a.pk).update(status="in_progress", submitted_at=None)
    assert task_link(a) in queue_of(expert)
    assert opens(expert, a) == 200


def test_an_annotator_with_an_item_to_do_sees_it_and_their_submitted_work_without_a_notice(
    study_underway,
):
    study, questions, (author, expert), done, pending, client = study_underway
    turn_on(client, study)
    fresh = qc_question(study)
    GoldItem.objects.create(study=study, task="pairwise", question=fresh, unit=UNIT,
                            answer=S0, purpose="qualification")  # fmt: skip
    item = make_assignment(expert.annotator, fresh, "pairwise", position=0)
    page = queue_of(expert)
    assert task_link(item) in page and all(task_link(a) in page for a in done[expert])
    assert task_link(pending[expert]) not in page
    # not "being reviewed": the round waits for them, not the admin; they are told to do
    # their qualification items first, and that their other task of the study waits
    assert "being reviewed" not in page and "did not qualify" not in page
    assert "complete them first" in page
    assert "1 further task of it is waiting for you once you qualify" in page


def test_a_failed_annotator_is_told_plainly_and_a_pending_one_that_it_is_being_reviewed(db):
    study = make_study("Gated", tasks=["pairwise"], qualification_required=True)
    other = make_study("Elsewhere", tasks=["pairwise"])
    q = qc_question(study)
    GoldItem.objects.create(study=study, task="pairwise", question=q, unit=UNIT, answer=S0,
                            purpose="qualification")  # fmt: skip
    failed, waiting = (make_user(f"fp_{n}", "annotator", annotator=True) for n in "fw")
    for u in (failed, waiting):
        label("pairwise", u.annotator, q, second=u is failed)  # their submitted item
        make_assignment(u.annotator, make_question(other, n_reports=2), "pairwise")
    QualificationResult.objects.create(
        study=study, annotator=failed.annotator, items=1, answered=1, correct=0, passed=False
    )
    # undecided, nothing left to do (e.g. an item they were given none of): admin's turn
    QualificationResult.objects.create(study=study, annotator=waiting.annotator)

    page = queue_of(failed)
    gated = page.split("Gated</h2>")[1]
    assert "You did not qualify for this study" in gated
    assert "other studies is not affected" in gated and "contact the study admin" in gated
    assert "being reviewed" not in page
    for secret in ("failed", "wrong", "incorrect", "gold", S0, S1):
        assert secret not in page.split("<h1>My queue</h1>")[1], secret
    elsewhere = page.split("Elsewhere</h2>")[1].split("Gated</h2>")[0]
    assert NOTICE not in elsewhere

    page = queue_of(waiting)
    assert "being reviewed" in page.split("Gated</h2>")[1]
    assert "did not qualify" not in page
    assert NOTICE not in page.split("Elsewhere</h2>")[1].split("Gated</h2>")[0]


def test_a_held_study_with_nothing_shown_is_still_listed_with_its_notice(db):
    """An annotator whose only work there is held back sees the study and why, not
    "Nothing is assigned to you yet"."""
    study = make_study("Held", tasks=["pairwise"], qualification_required=True)
    u = make_user("fp_only", "annotator", annotator=True)
    make_assignment(u.annotator, make_question(study, n_reports=2), "pairwise")
    page = queue_of(u)
    assert "Held</h2>" in page and "being reviewed" in page
    assert "Nothing is assigned to you yet" not in page


def test_enter_a_known_answer_takes_the_question_s_id_or_external_id(db):
    admin = make_user("ek_admin", "admin")
    study = make_study("Entered", tasks=["pairwise"])
    q1, q2, q3 = (qc_question(study) for _ in range(3))
    client = Client()
    client.force_login(admin)
    url = reverse("studies:quality", args=[study.pk])
    assert "Question (id or external id)" in client.get(url).content.decode()

    def enter(question):
        return client.post(url, {"action": "enter", "task": "pairwise", "question": question,
                                 "answer": f"{S0}>{S1}", "purpose": "gold"})  # fmt: skip

    assert enter(str(q1.pk)).status_code == 302  # the id
    assert enter(q2.external_id).status_code == 302  # the external id
    assert set(GoldItem.objects.values_list("question_id", flat=True)) == {q1.pk, q2.pk}
    # digits that are an external id of the study name that question, not the id
    q3.external_id = str(q1.pk)
    q3.save()
    GoldItem.objects.all().delete()
    assert enter(str(q1.pk)).status_code == 302
    assert GoldItem.objects.get().question_id == q3.pk
    # neither: refused, naming what was read
    r = enter("987654")
    assert r.status_code == 400
    assert "question: no question “987654” in this study (by id or external id)" in (
        r.content.decode()
    )
    # an import names questions by external id only: an id is no question there
    with pytest.raises(quality.QualityError, match="no question"):
        quality.import_items(
            study, "g.jsonl",
            f'{{"question": "{q2.pk}", "task": "pairwise", "answer": "{S0}>{S1}"}}'.encode(),
            purpose="gold", user=admin,
        )  # fmt: skip


def test_a_study_without_the_round_hides_nothing_and_passes_no_author(study_underway):
    study, questions, (author, expert), done, pending, client = study_underway
    quality.mark_from_judgment(study, unit=f"pairwise|{questions[0].pk}|{UNIT}",
                               annotator_id=str(author.annotator.pk), purpose="gold",
                               user=None)  # fmt: skip
    assert not QualificationResult.objects.filter(study=study).exists()
    assert task_link(pending[expert]) in queue_of(expert)
