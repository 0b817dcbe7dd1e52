"""Every task type an assignment plan can make is planned and committed from a study whose
data supports it, and each committed assignment opens a task page with something to judge
(issue 26, dead end 2: four DeepScholar tasks were "has no report" on questions with two)."""

import pytest
from django.urls import reverse

from annotation import readiness
from annotation.annotate.page import TaskPage
from annotation.annotate.registry import SPECS
from annotation.models import (
    Assignment,
    Exemplar,
    ExemplarReference,
    Nugget,
    Rubric,
    RubricItem,
    Study,
)
from studio.studyadmin.planning import PERSONAL_TASKS, PlanSpec, commit, preview
from tests.builders.content import make_claims, make_question, make_study

pytestmark = pytest.mark.django_db

PLANNABLE = [t for t in Study.Task.values if t not in PERSONAL_TASKS]


def supported_study():
    """Two questions with what every task shows: two reports with claims, two rubrics with
    items, nuggets, an exemplar and its references."""
    study = make_study("Every task")
    for _ in range(2):
        q = make_question(study, n_reports=2, paragraphs=3, rubric_items=2)
        rubric = Rubric.objects.create(question=q, kind="judge")
        RubricItem.objects.create(rubric=rubric, position=0, text="Another aspect")
        make_claims(q)
        Nugget.objects.bulk_create(
            Nugget(question=q, key=f"n{i}", position=i, text=f"Fact {i}") for i in range(2)
        )
        Exemplar.objects.create(question=q, text="The exemplar's related work.")
        ExemplarReference.objects.create(question=q, key="r0", position=0, title="Paper 0")
    return study


def test_every_task_type_is_declared_with_its_needs():
    assert set(SPECS) == set(Study.Task.values)
    assert set(readiness.NEEDS) == set(Study.Task.values)
    # the four DeepScholar tasks the planner left out show reports
    for key in ("organization", "nugget_support", "retrieval_relevance", "entailment"):
        assert key in readiness.REPORT_TASKS


@pytest.mark.parametrize("task", PLANNABLE)
def test_every_task_type_can_be_planned_committed_and_opened(task, annotator_user, client):
    study = supported_study()
    assert task in readiness.supported_tasks(study)
    spec = PlanSpec(task=task, annotators=(annotator_user.annotator.pk,))
    shown = preview(study, spec)
    assert shown.left_out == [], [u.reason for u in shown.left_out]
    commit(study, spec, fingerprint=shown.fingerprint)
    rows = list(Assignment.objects.filter(study=study, task=task))
    assert len(rows) == 2
    client.force_login(annotator_user)
    for a in rows:
        needs = SPECS[task].needs
        assert len(a.report_order) >= needs.reports
        if needs.reports:
            expected = needs.compares or 2  # every report of the question by default
            assert len(a.report_order) == min(expected, 2)
        response = client.get(reverse("annotate:task", args=[a.pk]))
        assert response.status_code == 200
        assert "not available" not in response.content.decode()
        spec_units = getattr(SPECS[task], "units", None)
        if spec_units is not None and callable(spec_units):
            assert spec_units(TaskPage(a, a.annotator)), f"{task}: nothing to label"


@pytest.mark.parametrize(
    ("task", "missing", "reason"),
    [
        ("nugget_importance", Nugget, "has no nuggets"),
        ("nugget_support", Nugget, "has no nuggets"),
        ("organization", Exemplar, "has no exemplar to compare with"),
        ("reference_importance", ExemplarReference, "its exemplar has no references"),
    ],
)
def test_a_question_without_its_deepscholar_units_is_left_out_with_why(
    task, missing, reason, annotator_user
):
    study = supported_study()
    lacking = study.questions.order_by("pk").first()
    missing.objects.filter(question=lacking).delete()
    shown = preview(study, PlanSpec(task=task, annotators=(annotator_user.annotator.pk,)))
    assert [(u.key, u.reason.split(" (")[0]) for u in shown.left_out] == [
        (lacking.external_id, reason)
    ]
    assert len(shown.plan.assignments) == 1  # the other question is planned
