"""The command, the API, an eager task and a real Celery worker give the same report."""

import io
import json
import time

import pytest
from django.core.management import call_command

from metaeval import sections
from metaeval.models import ReportRun
from metaeval.reports import ReportOptions, agreement_report
from metaeval.tasks import start_report
from tests.builders.ranked import ranked_study


def command_report(study, *args) -> dict:
    out = io.StringIO()
    call_command("agreement", "--study", study.name, "--json", *args, stdout=out)
    return json.loads(out.getvalue())


@pytest.mark.django_db
def test_command_api_and_task_agree(client, researcher_user):
    study = ranked_study()
    study.researchers.add(researcher_user)
    from_command = command_report(study, "--bootstrap", "200", "--seed", "4")
    assert from_command["preference"]["overall"]["n"] == 12 * 3 * 2
    assert from_command["metric_wise"]["answer_recall"]["n"] > 0
    assert from_command["iaa"]["n"] == 12 * 3

    client.force_login(researcher_user)
    response = client.get(f"/api/studies/{study.pk}/agreement/", {"bootstrap": 200, "seed": 4})
    assert response.status_code == 200
    assert response.json() == from_command

    run = start_report(study, ReportOptions(bootstrap=200, seed=4))
    assert run.status == ReportRun.Status.DONE and run.progress == 1.0
    assert run.result == from_command


@pytest.mark.django_db
def test_api_starts_and_polls_a_run(client, researcher_user, annotator_user):
    study = ranked_study(4)
    study.researchers.add(researcher_user)
    client.force_login(annotator_user)
    assert (
        client.post(
            "/api/report-runs/", {"study": study.pk}, content_type="application/json"
        ).status_code
        == 403
    )
    client.force_login(researcher_user)
    response = client.post(
        "/api/report-runs/", {"study": study.pk, "options": {"ties": "partial"}},
        content_type="application/json",
    )  # fmt: skip
    assert response.status_code == 202
    run = client.get(f"/api/report-runs/{response.json()['id']}/").json()
    assert run["status"] == "done"
    # the agreement report with the sections that add a key (its judge's scoreboard)
    assert run["result"] == sections.report(study.pk, ReportOptions(ties="partial"))
    assert run["result"]["preference"] == agreement_report(
        study.pk, ReportOptions(ties="partial"))["preference"]  # fmt: skip


@pytest.mark.django_db
def test_bad_options_are_a_400_naming_the_option(client, researcher_user):
    study = ranked_study(2)
    study.researchers.add(researcher_user)
    client.force_login(researcher_user)
    response = client.get(f"/api/studies/{study.pk}/agreement/", {"ties": "sometimes"})
    assert response.status_code == 400 and "ties" in response.content.decode()
    response = client.get(f"/api/studies/{study.pk}/agreement/", {"bootstrap": "many"})
    assert response.status_code == 400 and "bootstrap" in response.content.decode()
    assert client.get("/api/studies/999999/agreement/").status_code == 404


def test_anonymous_gets_no_report(client, db):
    study = ranked_study(1)
    assert client.get(f"/api/studies/{study.pk}/agreement/").status_code in (401, 403)


@pytest.mark.celery_worker
@pytest.mark.xdist_group("celery-worker")
def test_a_real_worker_computes_the_same_report(celery_worker_process):
    study = ranked_study(8, name="worker")
    options = ReportOptions(bootstrap=100, seed=2)
    run = start_report(study, options)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        run.refresh_from_db()
        if run.status in (ReportRun.Status.DONE, ReportRun.Status.FAILED):
            break
        time.sleep(0.2)
    assert run.status == ReportRun.Status.DONE, run.error
    assert run.result == sections.report(study.pk, options)  # what a run computes
