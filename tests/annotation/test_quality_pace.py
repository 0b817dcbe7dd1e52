"""Time per unit (tester's finding: annotators finishing 50–76 DeepScholar units in 3–8 s
were not flagged — quality control showed only the median seconds per *task*). A submitted
label task under the floor of seconds per unit is flagged for the admin on the quality
table and in quality.csv, and blocks nothing."""

import csv
import io

import pytest
from django.test import Client
from django.urls import reverse

from annotation.annotate.page import TaskPage
from annotation.annotate.registry import SPECS
from annotation.models import Assignment, Nugget
from annotation.quality import observations
from annotation.quality.pace import SECONDS_PER_UNIT_FLOOR, TaskPace, too_fast
from tests.annotation.test_annotate_deepscholar import deepscholar_question
from tests.builders.content import make_assignment, make_study
from tests.builders.users import make_user

N_NUGGETS = 60


def test_the_floor_is_per_unit_and_strict():
    floor = SECONDS_PER_UNIT_FLOOR
    rushed = TaskPace(1, 7, "nugget_importance", units=76, seconds=8)
    careful_short = TaskPace(2, 7, "organization", units=2, seconds=8)  # 4 s a unit
    at_floor = TaskPace(3, 7, "entailment", units=10, seconds=int(10 * floor))
    empty = TaskPace(4, 7, "entailment", units=0, seconds=0)
    assert too_fast([careful_short, rushed, at_floor, empty]) == [rushed]
    assert empty.per_unit is None  # nothing labelled: nothing to judge, not a flag
    # the median seconds per task (8 s both) could not tell these two apart
    assert rushed.seconds == careful_short.seconds


@pytest.fixture
def world(db):
    study = make_study("Pace study")
    question = deepscholar_question(study)
    Nugget.objects.bulk_create(
        Nugget(question=question, key=f"m{i}", position=10 + i, text=f"More fact {i}")
        for i in range(N_NUGGETS - 3)
    )
    admin = Client()
    admin.force_login(make_user("pace_admin", "admin"))
    return study, question, admin


def submit(question, name, seconds):
    """``name``'s nugget-importance task labelled and submitted on the task page, with
    ``seconds`` on task."""
    user = make_user(name, "annotator", annotator=True)
    a = make_assignment(user.annotator, question, "nugget_importance")
    client = Client()
    client.force_login(user)
    assert client.get(reverse("annotate:task", args=[a.pk])).status_code == 200
    units = SPECS["nugget_importance"].units(TaskPage(a, a.annotator))
    data = {f"lab.{u.id}": "vital" for u in units}
    response = client.post(reverse("annotate:submit", args=[a.pk]),
                           {"version": "0", **data}, HTTP_HX_REQUEST="true")  # fmt: skip
    assert response.status_code == 204
    Assignment.objects.filter(pk=a.pk).update(seconds_on_task=seconds)
    return user, a, client


def test_a_deepscholar_task_under_the_floor_is_flagged_for_the_admin(world):
    study, question, admin = world
    fast, fast_task, fast_client = submit(question, "pace_fast", 5)  # 60 units in 5 s
    submit(question, "pace_slow", 240)  # 4 s a unit
    paces = {p.annotator: p for p in observations.unit_paces(study)}
    assert paces[fast.annotator.pk].units == N_NUGGETS
    table = admin.get(reverse("studies:progress_quality", args=[study.pk])).content.decode()
    rows = {r.split('"', 1)[0]: r for r in table.split('data-annotator="')[1:]}
    assert 'data-testid="pace-flag"' in rows["Pseudo-pace_fast"]
    assert "1 task under 1 s per unit" in rows["Pseudo-pace_fast"]
    assert "0.08" in rows["Pseudo-pace_fast"]  # 5 s / 60 units
    assert 'data-testid="pace-flag"' not in rows["Pseudo-pace_slow"]
    page = admin.get(reverse("studies:quality", args=[study.pk])).content.decode()
    assert page.count('data-testid="pace-flag"') == 1
    got = {
        (r["annotator"], r["task"]): r
        for r in csv.DictReader(io.StringIO(
            admin.get(reverse("studies:quality_csv", args=[study.pk])).content.decode()))
    }  # fmt: skip
    for task in ("nugget_importance", "all"):
        assert got["Pseudo-pace_fast", task]["tasks_under_unit_time_floor"] == "1"
        assert float(got["Pseudo-pace_fast", task]["fastest_seconds_per_unit"]) == pytest.approx(
            5 / N_NUGGETS, abs=1e-4
        )
        assert got["Pseudo-pace_slow", task]["tasks_under_unit_time_floor"] == "0"
        assert got["Pseudo-pace_slow", task]["fastest_seconds_per_unit"] == ""
    # never blocking: the submit stands and the next task opens
    fast_task.refresh_from_db()
    assert fast_task.status == "submitted"
    other = deepscholar_question(study)
    nxt = make_assignment(fast.annotator, other, "nugget_importance", position=1)
    assert fast_client.get(reverse("annotate:task", args=[nxt.pk])).status_code == 200
    queue = fast_client.get(reverse("annotate:queue")).content.decode()
    assert "qualification for this study is being reviewed" not in queue


def test_labels_without_a_task_page_are_not_timed(world):
    """A submitted task never opened on the task page (no draft, so no clock) has no time
    to judge: it is not flagged for its 0 seconds."""
    from annotation.models import DeepScholarLabel, Draft

    study, question, admin = world
    user, a, _ = submit(question, "pace_imported", 0)
    assert DeepScholarLabel.objects.filter(assignment=a).count() == N_NUGGETS
    assert [p.annotator for p in observations.unit_paces(study)] == [user.annotator.pk]
    Draft.objects.filter(assignment=a).delete()
    assert observations.unit_paces(study) == []
