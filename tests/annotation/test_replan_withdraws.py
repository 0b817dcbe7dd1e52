"""A re-plan by expertise takes back the unstarted assignments it no longer gives: an
expertise-matched assignment whose annotator is no longer an expert of the question's
field, never opened, is withdrawn (status WITHDRAWN, the row kept: a reassignment's
mechanism) and its place goes to an expert; started, saved or submitted work is never
touched. The plan says how many it withdraws, and a preview writes nothing."""

from __future__ import annotations

import pytest
from django.utils import timezone

from annotation.models import Annotator, Assignment, Draft
from studio.api import plan_answer
from studio.studyadmin import StudyAdminError
from studio.studyadmin.planning import PlanSpec, commit, preview
from tests.builders.planning import make_annotators, make_study

pytestmark = pytest.mark.django_db

FIELDS = ["F0", "F1"]
W = Assignment.Status.WITHDRAWN


@pytest.fixture
def world():
    """q0, q2 in F0 and q1, q3 in F1; a first expertise plan of Ann-0 (F0) and Ann-1 (F1)
    gives Ann-0 q0 and q2 and Ann-1 q1 and q3. Ann-0 opened q0 (a draft, in progress),
    then moved to F1. Ann-2 (F0) and Ann-3 (F1) join the pool."""
    study = make_study("Replan", questions=4, systems=3, fields=FIELDS, tasks=["pairwise"])
    a0, a1, a2, _a3 = make_annotators(4, fields=FIELDS)
    first = PlanSpec(task="pairwise", strategy="expertise", overlap=1,
                     annotators=(a0.pk, a1.pk))  # fmt: skip
    commit(study, first)
    mine = {a.question.external_id: a for a in Assignment.objects.filter(annotator=a0)}
    assert set(mine) == {"q0", "q2"}
    started = mine["q0"]
    Assignment.objects.filter(pk=started.pk).update(
        status=Assignment.Status.IN_PROGRESS, started_at=timezone.now()
    )
    Draft.objects.create(assignment=started, version=1)
    Annotator.objects.filter(pk=a0.pk).update(expertise_fields=["F1"])
    return study, a0, a2, mine


def _status(assignment) -> str:
    return Assignment.objects.get(pk=assignment.pk).status


def test_a_replan_by_expertise_withdraws_what_it_no_longer_gives(world):
    study, a0, a2, mine = world
    spec = PlanSpec(task="pairwise", strategy="expertise", overlap=1)
    shown = preview(study, spec)
    assert [(aid, q) for _, aid, q in shown.withdrawn] == [(a0.pk, mine["q2"].question_id)]
    assert _status(mine["q2"]) == Assignment.Status.NOT_STARTED  # a preview writes nothing
    done = commit(study, spec, fingerprint=shown.fingerprint)
    assert len(done.withdrawn) == 1 and plan_answer(done, True)["withdrawn"] == 1
    assert _status(mine["q2"]) == W  # withdrawn, never deleted
    assert _status(mine["q0"]) == Assignment.Status.IN_PROGRESS  # started work untouched
    assert Draft.objects.filter(assignment=mine["q0"]).exists()
    # its place went to an expert of F0; nobody else's work changed
    q2 = Assignment.objects.filter(question=mine["q2"].question).exclude(status=W)
    assert list(q2.values_list("annotator_id", flat=True)) == [a2.pk]
    assert Assignment.objects.filter(status=W).count() == 1
    # a second re-plan has nothing left to withdraw or give
    again = preview(study, spec)
    assert again.withdrawn == () and again.summary.assignments == 0


def test_an_assignment_opened_after_the_preview_is_not_withdrawn(world):
    study, _a0, _a2, mine = world
    spec = PlanSpec(task="pairwise", strategy="expertise", overlap=1)
    shown = preview(study, spec)
    Assignment.objects.filter(pk=mine["q2"].pk).update(started_at=timezone.now())
    with pytest.raises(StudyAdminError):
        commit(study, spec, fingerprint=shown.fingerprint)
    assert _status(mine["q2"]) == Assignment.Status.NOT_STARTED


def test_other_settings_and_other_strategies_withdraw_nothing(world):
    """A random plan leaves the expertise-matched work alone (a study may hold both
    settings on purpose: agreement is computed within a setting)."""
    study, _a0, _a2, mine = world
    commit(study, PlanSpec(task="pairwise", strategy="random", overlap=1))
    assert _status(mine["q2"]) == Assignment.Status.NOT_STARTED
