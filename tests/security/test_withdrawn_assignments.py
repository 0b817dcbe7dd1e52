"""An assignment withdrawn from an annotator (reassigned to someone else) gives them no more
access through the API than through the task page and the queue: its assignment, question and
reports are a 404 / an empty list, its judgments and versions are not listed; another,
live assignment of theirs on the same question still opens that question.

Before the fix the API's ``visible_assignments`` and ``AssignmentViewSet`` read every
assignment but the held-back ones: the withdrawn assignment, its question and its three
reports answered 200 while ``/annotate/<id>/`` answered 404.
"""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from annotation.models import Assignment, DraftVersion, MedalRanking
from tests.builders.content import make_assignment, make_question, make_study
from tests.builders.users import make_user

SECRET = "WithdrawnSecret"


@pytest.fixture
def world(db):
    study = make_study("Reassigned study", tasks=["pairwise", "medal_ranking"])
    taken, kept = make_question(study, n_reports=3), make_question(study, n_reports=3)
    taken.text = f"{SECRET} question"
    taken.save()
    user = make_user("reassigned", "annotator", annotator=True)
    withdrawn = make_assignment(user.annotator, taken, "pairwise")
    withdrawn.status = Assignment.Status.WITHDRAWN
    withdrawn.save()
    DraftVersion.objects.create(
        assignment=withdrawn, version=1, author=user.annotator, payload={"reason": "halfway"}
    )
    live = make_assignment(user.annotator, kept, "pairwise", position=1)
    client = Client()
    client.force_login(user)
    return study, taken, kept, withdrawn, live, user, client


def test_a_withdrawn_assignment_is_gone_from_the_api_as_from_the_task_page(world):
    study, taken, kept, withdrawn, live, user, client = world
    assert client.get(reverse("annotate:task", args=[withdrawn.pk])).status_code == 404
    assert client.get(f"/api/assignments/{withdrawn.pk}/").status_code == 404
    assert [a["id"] for a in client.get("/api/assignments/").json()["results"]] == [live.pk]
    assert client.get(f"/api/questions/{taken.pk}/").status_code == 404
    assert [q["id"] for q in client.get(f"/api/questions/?study={study.pk}").json()["results"]] == [kept.pk]  # fmt: skip
    assert client.get(f"/api/reports/?question={taken.pk}").json()["results"] == []
    report = taken.reports.first()
    assert client.get(f"/api/reports/{report.public_id}/").status_code == 404
    # the live assignment's question and reports still answer
    assert client.get(f"/api/questions/{kept.pk}/").status_code == 200
    assert client.get(f"/api/reports/?question={kept.pk}").json()["count"] == 3


def test_another_live_assignment_on_the_question_keeps_it_visible(world):
    study, taken, kept, withdrawn, live, user, client = world
    again = make_assignment(user.annotator, taken, "medal_ranking", position=2)
    assert client.get(f"/api/questions/{taken.pk}/").status_code == 200
    assert client.get(f"/api/reports/?question={taken.pk}").json()["count"] == 3
    assert client.get(f"/api/assignments/{again.pk}/").status_code == 200
    assert client.get(f"/api/assignments/{withdrawn.pk}/").status_code == 404


def test_a_withdrawn_assignment_s_judgments_and_versions_are_not_listed(world):
    study, taken, kept, withdrawn, live, user, client = world
    common = {"study": study, "annotator": user.annotator}
    gone = MedalRanking.objects.create(**common, question=taken, assignment=withdrawn)
    mine = MedalRanking.objects.create(**common, question=kept, assignment=live)
    rows = client.get("/api/judgments/medal-rankings/").json()["results"]
    assert [r["id"] for r in rows] == [mine.pk]
    assert client.get(f"/api/judgments/medal-rankings/{gone.pk}/").status_code == 404
    history = client.get(reverse("my_history"))
    assert history.status_code == 200
    assert SECRET not in history.content.decode()
    assert "halfway" not in history.content.decode()
    assert client.get(reverse("my_history"), {"assignment": withdrawn.pk}).status_code == 404


def test_the_home_page_lists_no_withdrawn_assignment(world):
    """The landing page listed every released assignment, withdrawn ones too: the question
    text with a task link and a versions link that answer 404 (the twin of the queue's
    rule, ``visible_assignments``)."""
    study, taken, kept, withdrawn, live, user, client = world
    home = client.get(reverse("home")).content.decode()
    assert SECRET not in home
    assert reverse("annotate:task", args=[live.pk]) in home
    assert reverse("annotate:task", args=[withdrawn.pk]) not in home
