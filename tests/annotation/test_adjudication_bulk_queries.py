"""The bulk send costs the same queries whatever the number of units it sends.

Before, each unit went through a whole single send: the study's labels loaded again, the
adjudicator rule, reports without text, pseudonyms and the question read again, and one
get_or_create and one audit insert per unit and adjudicator (a post of 105 disagreements
ran thousands of queries). Now what the checks read is read once and the requests and
audit events are written in bulk (``studio.studyadmin.quality.Sending``)."""

from __future__ import annotations

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotation.importers import run
from annotation.models import AdjudicationRequest, QualityEvent, Report
from annotation.quality.labels import pair_unit
from studio.studyadmin import quality
from studio.studyadmin.bulk_adjudication import send_many
from tests.builders.content import make_question, make_study
from tests.builders.users import make_user

pytestmark = pytest.mark.django_db


def disagreeing(name: str, n: int, first="left", second="right"):
    """A study with ``n`` questions on which two imported annotators disagree on the pair;
    its unit keys."""
    study = make_study(name, tasks=["pairwise"])
    keys, lines = [], []
    for _ in range(n):
        q = make_question(study, n_reports=2)
        left, right = sorted(
            Report.objects.filter(question=q).values_list("system__name", flat=True)
        )
        keys.append(f"pairwise|{q.pk}|{pair_unit(left, right)}")
        for who, choice in (("bq-a", first), ("bq-b", second)):
            lines.append(json.dumps({
                "kind": "pairwise_preference", "annotator": who, "setting": "assigned",
                "question": q.external_id, "left_system": left, "right_system": right,
                "choice": choice, "reason": "r",
            }))  # fmt: skip
    run("judgments", "\n".join(lines).encode(), study=study)
    return study, keys


def counted(study, keys, adjudicators, user) -> tuple[int, object]:
    with CaptureQueriesContext(connection) as ctx:
        done = send_many(study, units=keys, adjudicators=adjudicators, user=user)
    return len(ctx.captured_queries), done


@pytest.fixture
def people():
    return [str(make_user(f"bqadj{n}", "annotator", annotator=True).annotator.pk) for n in (1, 2)]


def test_the_bulk_send_queries_do_not_grow_with_the_units(people, admin_user):
    small, small_keys = disagreeing("Two", 2)
    large, large_keys = disagreeing("Seven", 7)
    n_small, done_small = counted(small, small_keys, people, admin_user)
    n_large, done_large = counted(large, large_keys, people, admin_user)
    assert [n for _, n in done_small.sent] == [2, 2] and not done_small.refused
    assert [n for _, n in done_large.sent] == [2] * 7 and not done_large.refused
    assert n_small == n_large
    assert AdjudicationRequest.objects.filter(study=large).count() == 14
    sent = QualityEvent.objects.filter(study=large, action="send_adjudication")
    assert sent.count() == 7 and all(e.actor == admin_user for e in sent)
    # sent again: nothing new, still the same queries (the requests are read, not written)
    again_small, done = counted(small, small_keys, people, admin_user)
    again_large, _ = counted(large, large_keys, people, admin_user)
    assert again_small == again_large and [n for _, n in done.sent] == [0, 0]
    assert AdjudicationRequest.objects.filter(study=large).count() == 14


def test_opening_outdated_decisions_again_does_not_grow_with_the_units(people, admin_user):
    """Decided, then the labels changed: sent again, each request opens again (audited with
    its decision) in one bulk update, whatever their number."""
    runs = []
    for name, n in (("Two", 2), ("Seven", 7)):
        study, keys = disagreeing(name, n)
        send_many(study, units=keys, adjudicators=people, user=admin_user)
        for request in AdjudicationRequest.objects.filter(study=study):
            quality.decide(request, choice="0", reason="first")
        # the labels change (one annotator now says tie): every decision is outdated
        study_questions = list(study.questions.order_by("pk"))
        lines = []
        for q in study_questions:
            left, right = sorted(
                Report.objects.filter(question=q).values_list("system__name", flat=True)
            )
            lines.append(json.dumps({
                "kind": "pairwise_preference", "annotator": "bq-a", "setting": "assigned",
                "question": q.external_id, "left_system": left, "right_system": right,
                "choice": "tie", "reason": "r",
            }))  # fmt: skip
        run("judgments", "\n".join(lines).encode(), study=study)
        assert not AdjudicationRequest.objects.filter(study=study, outdated_at=None).exists()
        queries, done = counted(study, keys, people, admin_user)
        assert [k for _, k in done.sent] == [2] * n
        requests = AdjudicationRequest.objects.filter(study=study)
        assert {(r.status, r.label, r.outdated_at) for r in requests} == {("open", "", None)}
        assert all("tie" in [o["label"] for o in r.originals] for r in requests)
        history = QualityEvent.objects.filter(study=study, action="reopen_adjudication")
        assert history.count() == 2 * n
        assert {e.detail["reason"] for e in history} == {"first"}
        runs.append(queries)
    assert runs[0] == runs[1]
