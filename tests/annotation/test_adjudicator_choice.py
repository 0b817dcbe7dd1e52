"""Adjudication is never sent to an interested party (issue 24): the list offers, and a
forged post may name, neither an annotator who gave one of the disagreeing labels, nor one
with unfinished work on the same question, nor (when the study requires it) one who has not
passed the qualification round. A refusal names the annotator and writes nothing."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from annotation.models import AdjudicationRequest, QualificationResult, QualityEvent
from tests.annotation.test_quality_views import UNIT, judge
from tests.builders.content import make_assignment, make_question, make_study
from tests.builders.users import make_user


@pytest.fixture
def world(db, client):
    client.force_login(make_user("adj_admin", "admin"))
    study = make_study("Adjudicated study", tasks=["pairwise"], qualification_required=True)
    q1, q2 = make_question(study, n_reports=2), make_question(study, n_reports=2)
    people = {
        n: make_user(f"adj_{n}", "annotator", annotator=True).annotator
        for n in ("left", "right", "pending", "drafting", "unqualified", "free")
    }
    judge(people["left"], q1, "left")
    judge(people["right"], q1, "right")
    make_assignment(people["pending"], q1, "pairwise")  # not started, same question
    drafting = make_assignment(people["drafting"], q1, "medal_ranking")
    drafting.status = "in_progress"
    drafting.save()
    make_assignment(people["free"], q2, "pairwise")  # unfinished, but another question
    for n in ("left", "right", "pending", "drafting", "free"):
        QualificationResult.objects.create(study=study, annotator=people[n], passed=True)
    QualificationResult.objects.create(study=study, annotator=people["unqualified"], passed=False)
    return study, q1, people


def offered(client, study, key) -> list[str]:
    page = client.get(reverse("studies:quality", args=[study.pk])).content.decode()
    row = page.split('id="disagreements"')[1].split(f'data-unit="{key}"')[1].split("</tr>")[0]
    select = row.split('name="adjudicators"')[1].split("</select>")[0]
    return re.findall(r"<option [^>]*>([^<]+)</option>", select)


def test_the_list_offers_only_uninterested_qualified_annotators(client, world):
    study, q1, people = world
    key = f"pairwise|{q1.pk}|{UNIT}"
    assert offered(client, study, key) == [people["free"].pseudonym]


@pytest.mark.parametrize(
    "who, why",
    [
        ("left", "gave one of the disagreeing labels"),
        ("right", "gave one of the disagreeing labels"),
        ("pending", "has unfinished work on this question"),
        ("drafting", "has unfinished work on this question"),
        ("unqualified", "has not passed the qualification round"),
    ],
)
def test_a_forged_post_naming_an_interested_party_is_refused(client, world, who, why):
    study, q1, people = world
    key = f"pairwise|{q1.pk}|{UNIT}"
    events = QualityEvent.objects.count()
    data = {"action": "adjudicate", "unit": key, "adjudicators": [people["free"].pk, people[who].pk]}  # fmt: skip
    response = client.post(reverse("studies:quality", args=[study.pk]), data)
    assert response.status_code == 400
    assert f"adjudicators: {people[who].pseudonym} {why}" in response.content.decode()
    assert not AdjudicationRequest.objects.exists()
    assert QualityEvent.objects.count() == events


def test_an_unknown_adjudicator_is_refused_and_a_free_one_accepted(client, world):
    study, q1, people = world
    key = f"pairwise|{q1.pk}|{UNIT}"
    url = reverse("studies:quality", args=[study.pk])
    response = client.post(url, {"action": "adjudicate", "unit": key, "adjudicators": ["9999"]})
    assert response.status_code == 400 and "adjudicators: no annotator 9999" in response.content.decode()  # fmt: skip
    response = client.post(url, {"action": "adjudicate", "unit": key, "adjudicators": [people["free"].pk]})  # fmt: skip
    assert response.status_code == 302
    assert AdjudicationRequest.objects.get().adjudicator == people["free"]
