"""Quality control on every task type (issue 17, part 2): each task's declaration
(``TaskSpec.qc``) gives its units and labels; gold scoring, disagreement detection,
adjudication (stored beside the untouched originals) and the quality CSV work the same way
for all of them. Built data: ``tests.builders.quality`` (one probe unit per task type)."""

import csv
import io
import types

import pytest
from django.urls import reverse

from annotation.annotate import registry
from annotation.models import AdjudicationRequest, GoldItem, Study
from annotation.quality import catalog, observations
from annotation.quality.agreement import disagreements
from studio.studyadmin import quality
from tests.builders.quality import PROBES, label, probe_unit, qc_question
from tests.builders.users import make_user

TASKS = sorted(PROBES)


def test_every_registered_task_type_declares_its_quality_control():
    assert set(catalog.labelled()) == set(PROBES)
    assert set(catalog.unlabelled()) == {"expertise_triage", "question_authoring"}
    assert all(why for why in catalog.unlabelled().values())
    # a task type without a declaration is refused, so adding one adds its QC
    spec = type("Bare", (registry.TaskSpec,), {"key": "bare"})()
    with pytest.raises(ImportError, match="declares no quality control"):
        registry.registered((types.SimpleNamespace(__name__="x.bare", TASK=spec),))


@pytest.fixture
def world(db, client):
    admin = make_user("qt_admin", "admin")
    people = [make_user(f"qt_{n}", "annotator", annotator=True) for n in "abcd"]
    study = Study.objects.create(name="QC all", tasks=list(Study.Task.values), config={})
    client.force_login(admin)
    return study, qc_question(study), [u.annotator for u in people], people


def _csv(client, study):
    text = client.get(reverse("studies:quality_csv", args=[study.pk])).content.decode()
    return list(csv.DictReader(io.StringIO(text)))


@pytest.mark.parametrize("task", TASKS)
def test_gold_disagreement_and_adjudication_per_task(client, world, task):
    study, q, (a, b, c, d), people = world
    label(task, a, q)
    label(task, b, q)
    label(task, c, q, second=True)
    unit = probe_unit(task, q)
    _, one, two = PROBES[task]
    key = (task, q.pk, unit)
    before = sorted((o.annotator, o.unit, o.label) for o in observations.load(study))
    mine = {o.annotator: o.label for o in observations.load(study, tasks=[task]) if o.unit == key}
    assert mine == {a.pk: one, b.pk: one, c.pk: two}

    # an entered known answer is checked against the task's units and labels
    with pytest.raises(quality.QualityError, match="unit: “nowhere” is not a unit"):
        quality.mark_entered(study, task=task, question=q.external_id, unit="nowhere",
                             answer=one, purpose="gold", user=None)  # fmt: skip
    if task not in ("pairwise", "medal_ranking"):  # their answer names the unit
        with pytest.raises(quality.QualityError, match="answer: "):
            quality.mark_entered(study, task=task, question=q.external_id, unit=unit,
                                 answer="bogus", purpose="gold", user=None)  # fmt: skip
    entered = quality.mark_entered(study, task=task, question=q.external_id, unit=unit,
                                   answer=one, purpose="gold", user=None)  # fmt: skip
    assert (entered.unit, entered.answer) == (unit, one)
    quality.remove_item(study, entered.pk, None)

    # gold from a's judgment: b right, c wrong (exact match), a not scored by their own
    ukey = quality.unit_key(key)
    r = client.post(reverse("studies:quality", args=[study.pk]),
                    {"action": "mark", "unit": ukey, "annotator": a.pk, "purpose": "gold"})  # fmt: skip
    assert r.status_code == 302, r.content.decode()[:2000]
    assert GoldItem.objects.get(study=study).answer == one
    rows = _csv(client, study)
    by = {(r["annotator"], r["task"]): r for r in rows}
    assert by[(b.pseudonym, task)]["gold_accuracy"] == "1.0"
    assert by[(c.pseudonym, task)]["gold_accuracy"] == "0.0"
    assert by[(c.pseudonym, task)]["gold_flagged"] == "1"
    assert by[(a.pseudonym, task)]["gold_answered"] == "0"
    assert by[(c.pseudonym, "all")]["gold_answered"] == "1"
    assert float(by[(c.pseudonym, task)]["consensus_agreement"]) < 1  # a and b outvote c

    # the disagreement is found and sent; the adjudicator decides a's label
    assert key in disagreements(observations.load(study))
    page = client.get(reverse("studies:quality", args=[study.pk])).content.decode()
    assert f'data-unit="{ukey}"' in page.split('id="disagreements"')[1]
    r = client.post(reverse("studies:quality", args=[study.pk]),
                    {"action": "adjudicate", "unit": ukey, "adjudicators": [d.pk]})  # fmt: skip
    assert r.status_code == 302
    request = AdjudicationRequest.objects.get(study=study)
    assert sorted(o["label"] for o in request.originals) == sorted([one, one, two])
    client.force_login(people[3])
    shown = client.get(reverse("studies:my_adjudications")).content.decode()
    assert "SecretSystem" not in shown  # blinded: no system name, in the unit or the labels
    if task == "rubric_comparison":  # rubrics are read as Rubric A / B, kinds not named
        assert "Rubric A" in shown and "Another item" in shown and "hybrid" not in shown
    values = [v for v, _ in quality.options(request)]
    assert one in values and two in values
    r = client.post(reverse("studies:my_adjudications"),
                    {"request": request.pk, "label": values.index(one), "reason": "ok"})  # fmt: skip
    assert r.status_code == 302
    assert observations.adjudicated_labels(study) == {key: one}
    after = sorted((o.annotator, o.unit, o.label) for o in observations.load(study))
    assert after == before  # the originals are untouched


@pytest.mark.django_db
def test_unlabelled_enabled_tasks_and_held_labels_explain_the_empty_menu(client):
    admin = make_user("qt_admin2", "admin")
    client.force_login(admin)
    study = Study.objects.create(name="Only triage", tasks=["expertise_triage"], config={})
    page = client.get(reverse("studies:quality", args=[study.pk])).content.decode()
    assert 'data-testid="task-menu-notice"' in page and "have no single label" in page
    assert "a self-report" in page
    study.tasks = []
    study.save()
    page = client.get(reverse("studies:quality", args=[study.pk])).content.decode()
    assert "This study enables no task" in page
    # labels held under a task the study does not enable: say which and what to do
    annotator = make_user("qt_x", "annotator", annotator=True).annotator
    q = qc_question(study)
    label("medal_ranking", annotator, q)
    for tasks in (["expertise_triage"], ["query_quality"]):  # empty menu, or another task's
        study.tasks = tasks
        study.save()
        page = client.get(reverse("studies:quality", args=[study.pk])).content.decode()
        assert "holds submitted labels of Medal ranking but does not enable it" in page
