"""A disagreement sent to adjudication follows the labels as they now are, and one on
reports without text is never sent (docs/QUALITY.md, "When a label changes after its
disagreement was sent", "Reports without text").

Before, a request froze the labels it was sent with: an annotator who reopened her answer
and submitted another left the adjudicator deciding on "Report B · Report A" while the
quality page's Disagreements row showed the new labels, and a decided request kept counting
as the final answer after the labels it resolved had changed. A disagreement on the pairwise
import's textless placeholders could be sent, and the adjudicator read "This report is
empty." and was asked to choose.
"""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from annotation.models import (
    AdjudicationRequest,
    Draft,
    PairwisePreference,
    QualityEvent,
    Report,
    System,
)
from annotation.quality import following, observations, qualification
from annotation.quality.labels import pair_unit
from studio.quality_views import OUTDATED
from studio.studyadmin import quality
from tests.builders.content import make_assignment, make_question, make_study
from tests.builders.users import make_user

pytestmark = pytest.mark.django_db


class World:
    """Two annotators who disagree on a pair, an adjudicator, their clients."""

    def __init__(self):
        self.study = make_study("Follow labels", tasks=["pairwise"], reopen_hours=2)
        self.question = make_question(self.study, n_reports=2)
        users = [make_user(f"fl{n}", "annotator", annotator=True) for n in range(3)]
        self.adjudicator = users[2].annotator
        self.clients = []
        self.assignments = []
        first = None
        for user in users[:2]:
            a = make_assignment(user.annotator, self.question, "pairwise")
            if first is None:
                first = a.report_order
            a.report_order = first  # the same sides for both: "left" names one system
            a.save(update_fields=["report_order"])
            client = Client()
            client.force_login(user)
            self.clients.append(client)
            self.assignments.append(a)
        self.adjudicator_client = Client()
        self.adjudicator_client.force_login(users[2])
        public = dict(Report.objects.values_list("pk", "public_id"))
        self.key = ".".join(public[pk] for pk in first)
        names = dict(Report.objects.values_list("pk", "system__name"))
        self.left, self.right = (names[pk] for pk in first)
        self.unit = f"pairwise|{self.question.pk}|{pair_unit(self.left, self.right)}"

    def submit(self, n: int, choice: str, version: int = 0):
        response = self.clients[n].post(
            reverse("annotate:submit", args=[self.assignments[n].pk]),
            {
                "version": str(version),
                f"choice-{self.key}": choice,
                f"reason-{self.key}": "Because.",
            },
            HTTP_HX_REQUEST="true",
        )
        assert response.status_code == 204, response.content.decode()

    def revise(self, n: int, choice: str):
        """The annotator reopens her submitted answer (within the window) and submits again."""
        url = reverse("annotate:reopen", args=[self.assignments[n].pk])
        assert self.clients[n].post(url).status_code == 302
        self.submit(n, choice, version=Draft.objects.get(assignment=self.assignments[n]).version)

    def send(self):
        assert quality.send_to_adjudication(
            self.study, unit=self.unit, adjudicators=[str(self.adjudicator.pk)], user=None
        )
        return AdjudicationRequest.objects.get()

    def earlier_labels(self) -> str:
        html = self.adjudicator_client.get(reverse("studies:my_adjudications")).content.decode()
        found = re.search(r"Earlier labels: (.*?)</p>", html)
        return re.sub(r"<[^>]+>", "", found.group(1)) if found else ""


@pytest.fixture
def world(db):
    w = World()
    w.submit(0, "left")
    w.submit(1, "right")
    return w


def labels_of(request) -> list[str]:
    request.refresh_from_db()
    return sorted(o["label"] for o in request.originals)


def test_the_open_request_shows_the_labels_as_they_now_are(world):
    request = world.send()
    before = world.earlier_labels()
    assert "Tie" not in before and before.count("Report") == 2
    seen = quality.labels_seen(request)
    world.revise(0, "tie")
    assert labels_of(request) == sorted(["tie", world.right])
    now = world.earlier_labels()
    assert "Tie" in now and now.count("Report") == 1, now
    event = QualityEvent.objects.get(action=following.LABELS_CHANGED)
    assert event.annotator == world.adjudicator and "fl0" in event.detail["reason"]
    assert sorted(o["label"] for o in event.detail["before"]) == sorted([world.left, world.right])
    # a decision posted from the page read before the change is refused, nothing stored
    response = world.adjudicator_client.post(
        reverse("studies:my_adjudications"),
        {"request": request.pk, "label": "0", "reason": "r", "seen": seen},
    )
    assert response.status_code == 400 and "changed since you opened" in response.content.decode()
    request.refresh_from_db()
    assert request.status == "open" and request.label == ""


def test_the_open_request_is_withdrawn_once_the_annotators_agree(world):
    world.send()
    world.revise(0, "right")
    assert not AdjudicationRequest.objects.exists()
    event = QualityEvent.objects.get(action=qualification.WITHDRAW_ADJUDICATION)
    assert event.annotator == world.adjudicator
    assert "no longer disagree" in event.detail["reason"]
    (row,) = event.detail["requests"]
    assert row["question"] == world.question.external_id
    assert sorted(o["label"] for o in row["originals"]) == sorted([world.left, world.right])
    assert [o["label"] for o in row["now"]] == [world.right, world.right]
    assert world.earlier_labels() == ""
    # the adjudicator read the labels there: gold release still keeps them off that question
    assert (world.adjudicator.pk, "pairwise", world.question.pk) in quality._adjudicators(
        world.study
    )


def test_a_decision_on_labels_changed_since_is_flagged_and_not_counted(world, admin_user):
    request = world.send()
    quality.decide(request, choice="0", reason="A reads better.")
    decided_label = request.label
    assert observations.adjudicated_labels(world.study)
    world.revise(0, "tie")
    request.refresh_from_db()
    assert request.status == "decided" and request.outdated_at is not None
    assert request.label == decided_label  # kept, not lost
    assert observations.adjudicated_labels(world.study) == {}
    client = Client()
    client.force_login(admin_user)
    page = client.get(reverse("studies:quality", args=[world.study.pk])).content.decode()
    assert OUTDATED in page
    mine = world.adjudicator_client.get(reverse("studies:my_adjudications")).content.decode()
    assert "this decision no longer counts" in mine
    assert QualityEvent.objects.filter(action=following.OUTDATED).exists()
    # sent again to the same adjudicator: open again on the current labels, the earlier
    # decision kept in the audit trail
    assert quality.send_to_adjudication(
        world.study, unit=world.unit, adjudicators=[str(world.adjudicator.pk)], user=admin_user
    )
    request.refresh_from_db()
    assert (request.status, request.label, request.outdated_at) == ("open", "", None)
    assert labels_of(request) == sorted(["tie", world.right])
    history = QualityEvent.objects.get(action="reopen_adjudication")
    assert (history.detail["label"], history.detail["reason"]) == (decided_label, "A reads better.")


def test_labels_back_to_those_decided_on_count_again(world):
    request = world.send()
    quality.decide(request, choice="0", reason="")
    world.revise(0, "tie")
    world.revise(0, "left")
    request.refresh_from_db()
    assert request.outdated_at is None
    assert observations.adjudicated_labels(world.study)


# --- reports without text ----------------------------------------------------------------------


@pytest.fixture
def textless(db, admin_user):
    """A pair of the pairwise import's placeholders (no paragraph, no table), two
    annotators disagreeing on it, and an adjudicator who could be chosen."""
    study = make_study("Textless", tasks=["pairwise"])
    question = make_question(study, n_reports=0)
    left, right = (
        Report.objects.create(question=question, system=System.objects.create(study=study, name=n))
        for n in ("ann1sys", "ann2sys")
    )
    for n, choice in enumerate(("left", "right")):
        annotator = make_user(f"tl{n}", "annotator", annotator=True).annotator
        a = make_assignment(annotator, question, "pairwise")
        PairwisePreference.objects.create(
            study=study, annotator=annotator, question=question, left=left, right=right,
            choice=choice, reason="r", assignment=a,
        )  # fmt: skip
        a.status, a.submitted_at = "submitted", a.created_at
        a.save()
    adjudicator = make_user("tl_adj", "annotator", annotator=True).annotator
    return study, f"pairwise|{question.pk}|{pair_unit('ann1sys', 'ann2sys')}", adjudicator


def test_a_disagreement_on_reports_without_text_is_never_sent(textless, admin_user):
    study, unit, adjudicator = textless
    assert not Report.objects.filter(question__study=study).readable().exists()
    with pytest.raises(quality.QualityError) as refused:
        quality.send_to_adjudication(
            study, unit=unit, adjudicators=[str(adjudicator.pk)], user=admin_user
        )
    message = str(refused.value)
    assert unit in message and "ann1sys, ann2sys" in message and "no text" in message
    assert quality.TEXTLESS in message
    assert not AdjudicationRequest.objects.exists()
    client = Client()
    client.force_login(admin_user)
    page = client.get(reverse("studies:quality", args=[study.pk])).content.decode()
    table = page[page.index('id="disagreements"') :]
    row = re.search(rf'<tr data-unit="{re.escape(unit)}"[^>]*>.*?</tr>', table, re.S).group(0)
    assert quality.TEXTLESS in row and "Send to adjudication" not in row
    response = client.post(
        reverse("studies:quality", args=[study.pk]),
        {"action": "adjudicate", "unit": unit, "adjudicators": [str(adjudicator.pk)]},
    )
    assert response.status_code == 400 and quality.TEXTLESS in response.content.decode()
    assert not AdjudicationRequest.objects.exists()


def test_a_request_whose_party_is_revising_does_not_move_on_another_submit(world):
    """Reviewer's finding (session 21): a party reopened her answer and, before she
    submitted again, a fourth annotator submitted on the same question. Her label, absent
    while she revises, read as "no longer a disagreement" and the open request was deleted;
    her resubmission brought the disagreement back with nothing sent. Now the request holds
    its labels until she submits again, then follows them."""
    request = world.send()
    reopen = reverse("annotate:reopen", args=[world.assignments[0].pk])
    assert world.clients[0].post(reopen).status_code == 302
    other = make_user("fl3", "annotator", annotator=True)
    a = make_assignment(other.annotator, world.question, "pairwise")
    a.report_order = world.assignments[0].report_order
    a.save(update_fields=["report_order"])
    client = Client()
    client.force_login(other)
    response = client.post(
        reverse("annotate:submit", args=[a.pk]),
        {"version": "0", f"choice-{world.key}": "right", f"reason-{world.key}": "Because."},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 204, response.content.decode()
    assert AdjudicationRequest.objects.filter(pk=request.pk).exists()
    assert labels_of(request) == sorted([world.left, world.right])
    world.submit(0, "left", version=Draft.objects.get(assignment=world.assignments[0]).version)
    assert labels_of(request) == sorted([world.left, world.right, world.right])
