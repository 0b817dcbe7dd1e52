"""Adjudication requests follow labels changed by a judgments import, as they follow a task
page's submit (docs/QUALITY.md, "When a label changes after its disagreement was sent").

Before, only the submit's signal moved requests: a file re-imported (command line or API)
that made two annotators agree left the request open on a disagreement that no longer
existed, and a decided request kept counting as the adjudicated label of labels the file had
changed. Now the import calls the same ``following.follow_labels`` for every question it
wrote a judgment of; a re-import that changes nothing moves nothing.
"""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.importers import run
from annotation.models import AdjudicationRequest, QualityEvent, Report
from annotation.quality import following, observations, qualification
from annotation.quality.labels import pair_unit
from studio.studyadmin import quality
from tests.builders.content import make_question, make_study
from tests.builders.users import make_user

pytestmark = pytest.mark.django_db


class World:
    """Two annotators whose imported preferences on one pair disagree, and an adjudicator."""

    def __init__(self):
        self.study = make_study("Import follows", tasks=["pairwise"])
        self.question = make_question(self.study, n_reports=2)
        self.left, self.right = sorted(
            Report.objects.filter(question=self.question).values_list("system__name", flat=True)
        )
        self.adjudicator = make_user("ifadj", "annotator", annotator=True).annotator
        self.unit = f"pairwise|{self.question.pk}|{pair_unit(self.left, self.right)}"

    def file(self, first: str, second: str, reason: str = "Because.") -> bytes:
        return "\n".join(
            json.dumps(
                {
                    "kind": "pairwise_preference",
                    "annotator": who,
                    "setting": "assigned",
                    "question": self.question.external_id,
                    "left_system": self.left,
                    "right_system": self.right,
                    "choice": choice,
                    "reason": reason,
                }
            )  # fmt: skip
            for who, choice in (("imp-a", first), ("imp-b", second))
        ).encode()

    def load(self, first: str, second: str, reason: str = "Because."):
        return run("judgments", self.file(first, second, reason), study=self.study)

    def send(self) -> AdjudicationRequest:
        assert quality.send_to_adjudication(
            self.study, unit=self.unit, adjudicators=[str(self.adjudicator.pk)], user=None
        )
        return AdjudicationRequest.objects.get()


@pytest.fixture
def world():
    w = World()
    w.load("left", "right")
    return w


def labels(request: AdjudicationRequest) -> list[str]:
    return sorted(o["label"] for o in request.originals)


def test_an_open_request_is_withdrawn_when_the_import_makes_them_agree(world):
    world.send()
    world.load("left", "left")
    assert not AdjudicationRequest.objects.exists()
    event = QualityEvent.objects.get(action=qualification.WITHDRAW_ADJUDICATION)
    assert event.annotator == world.adjudicator
    assert "judgments imported" in event.detail["reason"]
    assert "no longer disagree" in event.detail["reason"]
    (row,) = event.detail["requests"]
    assert [o["label"] for o in row["now"]] == [world.left, world.left]


def test_a_decided_request_is_outdated_when_the_import_resolves_it(world):
    request = world.send()
    quality.decide(request, choice="0", reason="A reads better.")
    assert observations.adjudicated_labels(world.study)
    world.load("right", "right")
    request.refresh_from_db()
    assert request.status == "decided" and request.outdated_at is not None
    assert observations.adjudicated_labels(world.study) == {}
    event = QualityEvent.objects.get(action=following.OUTDATED)
    assert "judgments imported" in event.detail["reason"]


def test_an_open_request_takes_the_labels_the_import_changed(world):
    request = world.send()
    world.load("tie", "right")
    request.refresh_from_db()
    assert request.status == "open"
    assert labels(request) == sorted(["tie", world.right])
    event = QualityEvent.objects.get(action=following.LABELS_CHANGED)
    assert sorted(o["label"] for o in event.detail["before"]) == sorted([world.left, world.right])


@pytest.mark.parametrize("reason", ["Because.", "Another reason."])
def test_a_reimport_that_keeps_the_disagreement_moves_nothing(world, reason):
    request = world.send()
    before = (request.status, request.originals, request.outdated_at, request.label)
    events = QualityEvent.objects.count()
    world.load("left", "right", reason)  # the same labels (the reason alone may change)
    request.refresh_from_db()
    assert (request.status, request.originals, request.outdated_at, request.label) == before
    assert QualityEvent.objects.count() == events


def test_a_decided_request_stays_counted_on_an_unchanged_reimport(world):
    request = world.send()
    quality.decide(request, choice="0", reason="")
    world.load("left", "right")
    request.refresh_from_db()
    assert request.outdated_at is None
    assert observations.adjudicated_labels(world.study)


def test_a_dry_run_moves_nothing(world):
    request = world.send()
    run("judgments", world.file("left", "left"), study=world.study, dry_run=True)
    assert AdjudicationRequest.objects.get() == request
    assert not QualityEvent.objects.filter(action=qualification.WITHDRAW_ADJUDICATION).exists()


def test_the_command_line_import_follows(world, tmp_path):
    request = world.send()
    quality.decide(request, choice="0", reason="")
    path = tmp_path / "judgments.jsonl"
    path.write_bytes(world.file("tie", "tie"))
    call_command("import_judgments", str(path), study=str(world.study.pk))
    request.refresh_from_db()
    assert request.outdated_at is not None


def test_the_api_import_follows(world, admin_user):
    world.send()
    api = APIClient()
    api.force_login(admin_user)
    response = api.post(
        reverse("study-import", args=[world.study.pk]),
        {"kind": "judgments", "format": "jsonl",
         "file": SimpleUploadedFile("judgments.jsonl", world.file("right", "right"))},
        format="multipart",
    )  # fmt: skip
    assert response.status_code == 200, response.content[:500]
    assert not AdjudicationRequest.objects.exists()


def test_every_kind_names_the_questions_it_wrote(monkeypatch):
    """Each writer says which questions it wrote: all of them on the first import of every
    kind, none on the same file again, only the question of a changed medal after."""
    from annotation import models as m
    from tests.annotation.test_export_formats import _content_twice, _judge_every_kind

    a, b = _content_twice()
    _judge_every_kind(a)
    followed: list[set[int]] = []
    monkeypatch.setattr(
        following, "follow_labels", lambda study, ids, **kw: followed.append(set(ids))
    )
    from annotation.importers.registry import FORMATS

    text = FORMATS[("judgments", "jsonl")].dump(a)["judgments.jsonl"]
    kinds = {json.loads(line)["kind"] for line in text.splitlines() if line.strip()}
    assert {"medal", "pairwise_preference", "report_rating"} <= kinds
    run("judgments", text.encode(), study=b)
    q = b.questions.get()
    assert followed == [{q.pk}]
    run("judgments", text.encode(), study=b)
    assert followed[-1] == set()
    lines = [json.loads(line) for line in text.splitlines() if line.strip()]
    for r in lines:
        if r["kind"] == "medal" and r["medal"] == "gold":
            r["medal"] = "bronze"
    run("judgments", "\n".join(json.dumps(r) for r in lines).encode(), study=b)
    assert followed[-1] == {q.pk}
    assert m.Medal.objects.filter(ranking__study=b, medal="bronze").exists()
