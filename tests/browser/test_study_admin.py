"""An admin goes from imported data to assigned work to exported results, in the browser."""

from __future__ import annotations

import csv
import io
import json
import os
import zipfile
from pathlib import Path

import pytest
from playwright.sync_api import expect

from annotation.models import Annotator, Assignment, Study
from tests.annotation.test_import_common import DATA

os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_import_assign_follow_export(login, live_server, admin_user, shot, tmp_path):
    page = login(admin_user).new_page()

    # 1. create a study
    page.goto("/studies/")
    page.fill("#id_name", "Browser study")
    page.click("text=Create study")
    expect(page.locator("h1")).to_have_text("Browser study")
    study = Study.objects.get(name="Browser study")

    # 2. upload released pairwise records: questions, systems, reports, judge scores, rankings
    form = page.locator("#import-form")
    form.locator("#id_kind").select_option("pairwise")
    form.locator("#id_file").set_input_files(str(DATA / "pairwise_dev_assigned_ann1.json"))
    form.locator("#id_annotator").fill("ann1")
    form.locator("#id_judge").fill("gemini")
    form.locator("button[type=submit]").click()
    expect(page.locator(".messages")).to_contain_text("imported")
    expect(page.locator("#systems li")).to_have_count(3)
    # The released pairwise records carry scores and rankings, not the reports' text, and a
    # textless report is never planned (issue 25): the text arrives as a report import
    # would bring it (the report import's page is exercised in test_study_from_the_browser).
    from annotation.models import Paragraph, Report, Section

    for report in Report.objects.filter(question__study=study):
        section = Section.objects.create(report=report, position=0, title="Answer")
        Paragraph.objects.create(section=section, report=report, number=1,
                                 text=f"The answer of {report.system.name}.")  # fmt: skip

    # a bad upload names the problem and changes nothing
    form = page.locator("#import-form")
    form.locator("#id_kind").select_option("reports")
    form.locator("#id_format").select_option("scholarqa")
    form.locator("#id_file").set_input_files(str(DATA / "questions.jsonl"))
    form.locator("button[type=submit]").click()
    # System is marked required for this format: the browser names it before anything is
    # sent (the server's own refusal naming it is tested without a browser)
    system = form.locator("#id_system")
    expect(system).to_have_attribute("required", "")
    assert system.evaluate("e => !e.validity.valid && e.validationMessage !== ''")
    expect(page.locator("[data-testid=field-errors]")).to_have_count(0)

    # the import enabled the tasks the data supports (the study was created with none)
    expect(page.locator("#enabled-tasks")).to_contain_text("Medal ranking")

    # 3. keep only the medal-ranking task, 3 systems per question
    settings_form = page.locator("#settings-form")
    for box in settings_form.locator("input[name=tasks]").all():
        box.uncheck()
    settings_form.locator("input[name=tasks][value=medal_ranking]").check()
    settings_form.locator("#id_systems_per_question").fill("3")
    settings_form.locator("button[type=submit]").click()
    expect(page.locator(".messages")).to_contain_text("settings saved")
    study.refresh_from_db()
    assert study.tasks == ["medal_ranking"]

    # 4. invite two annotators
    page.goto("/studies/annotators/invite/")
    page.fill("#id_expertise", "Computer Science\nComputer Science, Biology")
    page.click("#invite-form button[type=submit]")
    expect(page.locator("#invitations tbody tr")).to_have_count(2)
    expect(page.locator("#invitations")).to_contain_text("/accounts/reset/")
    shot(page, "invitations")
    invited = list(Annotator.objects.filter(user__isnull=False).order_by("pk"))
    assert len(invited) == 2

    # 5. preview a plan with double annotation, then commit it
    page.goto(f"/studies/{study.pk}/plan/")
    page.locator("input[name=strategy][value=random]").check()
    page.fill("#id_overlap", "2")
    page.fill("#id_capacity", "-1")
    page.click("button[value=preview]")
    expect(page.locator("[data-testid=field-errors]")).to_contain_text(
        "capacity cannot be negative"
    )
    page.fill("#id_capacity", "")
    page.fill("#id_overlap", "3")
    page.click("button[value=preview]")
    expect(page.locator("#preview-h")).to_contain_text("new assignments")
    expect(page.locator("#per-annotator tbody tr")).to_have_count(2)
    expect(page.locator("#overlap")).to_contain_text("3")
    shot(page, "preview")
    assert Assignment.objects.filter(annotator__in=invited).count() == 0
    page.click("button[value=commit]")
    expect(page.locator("h1")).to_contain_text("Progress")
    n_questions = study.questions.count()
    assert Assignment.objects.filter(annotator__in=invited).count() == 2 * n_questions

    # 6. follow progress: one assignment submitted
    a = Assignment.objects.filter(annotator=invited[0]).first()
    a.status, a.seconds_on_task = Assignment.Status.SUBMITTED, 75
    a.save()
    page.reload()
    expect(page.locator("#per-annotator tbody tr")).to_have_count(3)  # ann1 and the invited
    expect(page.locator("#per-annotator")).to_contain_text("75")
    shot(page, "progress")
    with page.expect_download() as dl:
        page.click("text=Download CSV")
    rows = list(csv.DictReader(io.StringIO(Path(dl.value.path()).read_text())))
    assert {r["annotator"] for r in rows} == {"ann1", *(x.pseudonym for x in invited)}

    # 7. export the results
    page.goto(f"/studies/{study.pk}/")
    with page.expect_download() as dl:
        page.click("#export-h + p >> text=JSON")
    records = json.loads(Path(dl.value.path()).read_text())
    assert records and {r["annotator"] for r in records} == {"ann1"}
    with page.expect_download() as dl:
        page.click("text=ScholarQA-CS2 pairwise records (zip)")
    bundle = zipfile.ZipFile(dl.value.path())
    manifest = json.loads(bundle.read("manifest.json"))
    original = json.loads((DATA / "pairwise_dev_assigned_ann1.json").read_text())
    (entry,) = manifest["files"]
    assert len(json.loads(bundle.read(entry["file"]))) == len(original)


def test_annotator_cannot_reach_study_admin(login, live_server, annotator_user):
    page = login(annotator_user).new_page()
    response = page.goto("/studies/")
    assert response.status == 403
