"""An adjudication request stays subject to who may adjudicate (issue 24) until it is
decided: an adjudicator failed after it was sent cannot decide it (403, nothing stored), a
failing override withdraws their open requests (audited), gold release skips whoever
adjudicates a question, and two decisions posted at once store exactly one."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from annotation.models import (
    AdjudicationRequest,
    Assignment,
    GoldItem,
    QualificationResult,
    QualityEvent,
)
from annotation.quality import observations
from studio.studyadmin import quality
from tests.annotation.test_adjudicator_choice import world  # noqa: F401 (fixture)
from tests.annotation.test_quality_views import S0, S1, UNIT


def send(client, study, q1, person):
    url = reverse("studies:quality", args=[study.pk])
    data = {"action": "adjudicate", "unit": f"pairwise|{q1.pk}|{UNIT}", "adjudicators": [person.pk]}
    assert client.post(url, data).status_code == 302
    return AdjudicationRequest.objects.get(adjudicator=person)


def adjudicator_client(person) -> Client:
    c = Client()
    c.force_login(person.user)
    return c


def test_an_adjudicator_failed_after_the_request_cannot_decide_it(client, world):  # noqa: F811
    study, q1, people = world
    request = send(client, study, q1, people["free"])
    # failed without the override (as a recomputed result would be): the request is still open
    QualificationResult.objects.filter(annotator=people["free"]).update(passed=False)
    response = adjudicator_client(people["free"]).post(
        reverse("studies:my_adjudications"), {"request": request.pk, "label": "0"}
    )
    assert response.status_code == 403
    assert "has not passed the qualification round" in response.content.decode()
    request.refresh_from_db()
    assert (request.status, request.label, request.decided_at) == ("open", "", None)
    assert observations.adjudicated_labels(study) == {}


def test_a_failing_override_withdraws_the_open_requests_audited(client, world):  # noqa: F811
    study, q1, people = world
    send(client, study, q1, people["free"])
    response = client.post(
        reverse("studies:quality", args=[study.pk]),
        {"action": "override", "annotator": people["free"].pk, "verdict": "fail",
         "reason": "careless answers"},
    )  # fmt: skip
    assert response.status_code == 302
    assert not AdjudicationRequest.objects.exists()
    event = QualityEvent.objects.get(action="withdraw_adjudication")
    assert event.annotator == people["free"]
    assert event.detail == {
        "reason": "failed by hand: careless answers",
        "requests": [{"task": "pairwise", "question": q1.external_id, "unit": UNIT}],
    }
    page = adjudicator_client(people["free"]).get(reverse("studies:my_adjudications"))
    # the page's main content (the header's random CSRF token once held "q1")
    main = page.content.decode().split('<main id="main">', 1)[1]
    assert q1.external_id not in main and UNIT not in main


def test_a_decided_request_stays_when_its_adjudicator_is_failed_later(client, world):  # noqa: F811
    study, q1, people = world
    request = send(client, study, q1, people["free"])
    quality.decide(request, choice="0", reason="")
    quality.override(
        study, annotator_id=str(people["free"].pk), verdict="fail", reason="later", user=None
    )
    assert AdjudicationRequest.objects.get().status == "decided"
    assert not QualityEvent.objects.filter(action="withdraw_adjudication").exists()


@pytest.mark.parametrize("withdrawn", [False, True])
def test_gold_release_skips_whoever_adjudicates_the_question(client, world, withdrawn):  # noqa: F811
    study, q1, people = world
    free = people["free"]
    send(client, study, q1, free)
    if withdrawn:  # withdrawn or not, they have read the labels given there
        quality.override(study, annotator_id=str(free.pk), verdict="fail", reason="x", user=None)
    GoldItem.objects.create(study=study, task="pairwise", question=q1, unit=UNIT, answer=S0)
    done = quality.release(study, None, seed=1)
    assert not Assignment.objects.filter(annotator=free, question=q1, task="pairwise").exists()
    said = [why for why in done.not_added if why.startswith(free.pseudonym)]
    assert said == [
        f"{free.pseudonym} adjudicates pairwise on question {q1.external_id} (asked to, or did):"
        " they have read the labels given there, so a known answer there would not test them"
    ]
    # the others without the task on the question still get it
    assert Assignment.objects.filter(
        annotator=people["drafting"], question=q1, task="pairwise"
    ).exists()


@pytest.mark.django_db(transaction=True)
def test_decisions_posted_at_once_store_exactly_one(client, world):  # noqa: F811
    """Four tabs post the same label at once: one is stored, three are told it is already
    decided (the stored reason is the winner's, never overwritten)."""
    from tests.concurrency import at_once, database_file

    study, q1, people = world
    request = send(client, study, q1, people["free"])
    tabs = [adjudicator_client(people["free"]) for _ in range(4)]

    def post(index: int) -> tuple[int, str]:
        response = tabs[index].post(
            reverse("studies:my_adjudications"),
            {"request": request.pk, "label": "0", "reason": f"tab {index}"},
        )
        return response.status_code, response.content.decode()

    with database_file():
        answers = at_once(4, post)
        assert sorted(status for status, _ in answers) == [302, 400, 400, 400], answers
        refused = [body for status, body in answers if status == 400]
        assert all(f"adjudication {request.pk}: already decided" in body for body in refused)
        stored = AdjudicationRequest.objects.get()
        winner = next(i for i, (status, _) in enumerate(answers) if status == 302)
    assert (stored.status, stored.reason) == ("decided", f"tab {winner}")


def test_a_decision_of_an_adjudicator_failed_later_counts_nowhere_until_passed(client, world):  # noqa: F811
    """Failing an adjudicator after their decision: it stays stored and listed, marked not
    counted; the unit has no adjudicated label (nor does the report cache's fingerprint read
    it) and needs adjudication again, so it can be sent to someone else; passing them by
    hand restores it."""
    from metaeval.cache import study_fingerprint
    from tests.builders.users import make_user

    study, q1, people = world
    free, unit, key = people["free"], ("pairwise", q1.pk, UNIT), f"pairwise|{q1.pk}|{UNIT}"
    request = send(client, study, q1, free)
    quality.decide(
        request, choice=str([v for v, _ in quality.options(request)].index(S0)), reason=""
    )
    assert observations.adjudicated_labels(study) == {unit: S0}
    counted = study_fingerprint(study.pk, adjudications=True)

    def fail_or_pass(verdict):
        quality.override(study, annotator_id=str(free.pk), verdict=verdict, reason="r", user=None)

    def page_rows():
        page = client.get(reverse("studies:quality", args=[study.pk])).content.decode()
        adjudications = page.split('id="adjudications"')[1].split("</table>")[0]
        state = page.split('id="disagreements"')[1].split(f'data-unit="{key}"')[1]
        return adjudications, state.split('class="state">')[1].split("</td>")[0]

    fail_or_pass("fail")
    assert observations.adjudicated_labels(study) == {}
    assert study_fingerprint(study.pk, adjudications=True) != counted
    adjudications, state = page_rows()
    assert f'{S0} <em class="not-counted">(not counted: adjudicator failed qualification)' in (
        adjudications
    )
    assert state.startswith("needs adjudication")
    assert AdjudicationRequest.objects.get().status == "decided"  # never deleted
    fail_or_pass("pass")  # a later pass restores it
    assert observations.adjudicated_labels(study) == {unit: S0}
    assert study_fingerprint(study.pk, adjudications=True) == counted
    assert "not counted" not in page_rows()[0] and page_rows()[1] == f"adjudicated: {S0}"
    # failed again: another qualified annotator decides the unit, and theirs is its label
    fail_or_pass("fail")
    other = make_user("adj_other", "annotator", annotator=True).annotator
    QualificationResult.objects.create(study=study, annotator=other, passed=True)
    second = send(client, study, q1, other)
    assert page_rows()[1] == "waiting for 1 adjudicator(s)"
    quality.decide(second, choice=str([v for v, _ in quality.options(second)].index(S1)), reason="")
    assert observations.adjudicated_labels(study) == {unit: S1}
    assert page_rows()[1] == f"adjudicated: {S1}"
