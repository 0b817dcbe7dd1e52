"""An admin runs a study from the pages only (issue 15, "The admin's study, browser only")."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from annotation.models import Assignment, Study
from tests.annotation.test_import_common import DATA
from tests.annotation.test_study_planning import make_annotators

PLAN = {"strategy": "random", "overlap": 1, "seed": 0, "per_expert": 5}


def url(name, study=None, **kw):
    if study is None:
        return reverse(name, kwargs=kw)
    return reverse(name, kwargs={"study_id": study.pk, **kw})


def upload(name: str, data: bytes | None = None) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data if data is not None else (DATA / name).read_bytes())


def import_reports(client, study, system: str, name="scholarqa_reports.json"):
    r = client.post(
        url("studies:import", study),
        {"kind": "reports", "format": "scholarqa", "system": system, "file": upload(name)},
    )
    assert r.status_code == 302, r.content.decode()[:2000]


# --- 1. a web-created study has its tasks enabled; Assign refuses the others ---------------


@pytest.mark.django_db
def test_creation_form_asks_for_tasks(client, admin_user):
    client.force_login(admin_user)
    assert 'name="tasks" value="pairwise"' in client.get(url("studies:list")).content.decode()
    client.post(url("studies:list"), {"name": "Chosen", "tasks": ["pairwise", "metric_wise"]})
    assert Study.objects.get(name="Chosen").tasks == ["pairwise", "metric_wise"]


@pytest.mark.django_db
def test_first_import_enables_the_tasks_the_data_supports(client, admin_user):
    client.force_login(admin_user)
    client.post(url("studies:list"), {"name": "Web study"})
    study = Study.objects.get(name="Web study")
    assert study.tasks == []
    assert "No task is enabled" in client.get(url("studies:detail", study)).content.decode()
    import_reports(client, study, "sys-a")
    study.refresh_from_db()
    # one report per question: metric-wise works, a comparison does not yet
    assert "metric_wise" in study.tasks and "query_quality" in study.tasks
    assert "pairwise" not in study.tasks and "rubric_comparison" not in study.tasks
    # the admin's choice is kept afterwards: a second import does not change it
    study.tasks = ["metric_wise"]
    study.save()
    import_reports(client, study, "sys-b")
    study.refresh_from_db()
    assert study.tasks == ["metric_wise"]
    page = client.get(url("studies:detail", study)).content.decode()
    assert "Enabled tasks: Metric-wise evaluation" in page
    assert "Pairwise preference" in page.split("The data also supports:")[1].split("</span>")[0]


@pytest.mark.django_db
def test_assign_refuses_a_task_the_study_does_not_enable(client, admin_user):
    """Before: a study with no task enabled accepted any task, and its annotators then got
    "This task is not available"."""
    study = Study.objects.create(name="No tasks")
    client.force_login(admin_user)
    import_reports(client, study, "sys-a")
    Study.objects.filter(pk=study.pk).update(tasks=[])
    make_annotators(2)
    for action in ("preview", "commit"):
        r = client.post(
            url("studies:plan", study), {**PLAN, "task": "metric_wise", "action": action}
        )
        assert r.status_code == 400
        body = r.content.decode()
        assert "does not enable the task “Metric-wise evaluation”" in body
        assert "Tasks and settings" in body
    assert not Assignment.objects.exists()
    Study.objects.filter(pk=study.pk).update(tasks=["metric_wise"])
    page = client.get(url("studies:plan", study)).content.decode()
    assert "Pairwise preference (not enabled in this study)" in page
    r = client.post(url("studies:plan", study), {**PLAN, "task": "metric_wise", "action": "commit"})
    assert r.status_code == 302 and Assignment.objects.count() == 2
