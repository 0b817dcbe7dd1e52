"""A whole study from the browser, no command (issue 15, "Done when"): an admin creates a
study, imports reports and questions, sets question fields in bulk, assigns by expertise,
invites an annotator, who sets a password, logs in and completes a task; the researcher
then sees the judgment in the study's report."""

from __future__ import annotations

import os

import pytest
from playwright.sync_api import expect

from annotation.models import Annotator, Assignment, MedalRanking, Question, Study
from tests.annotation.test_import_common import DATA

from .conftest import VIEWPORT
from .helpers import upload as _import
from .helpers import wait_saved

os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PASSWORD = "a-long-unusual-passphrase-42"


def test_a_study_from_creation_to_the_report(
    browser, login, live_server, admin_user, researcher_user, shot, tmp_path
):
    admin = login(admin_user).new_page()

    # 1. create the study; no task ticked: the data will say which tasks it supports
    admin.goto("/studies/")
    admin.fill("#id_name", "Web-only study")
    admin.click("text=Create study")
    expect(admin.locator("h1")).to_have_text("Web-only study")
    expect(admin.locator("#enabled-tasks")).to_contain_text("No task is enabled")
    study = Study.objects.get(name="Web-only study")

    # 2. import the reports of two systems (their questions come with them) and questions
    _import(admin, "reports", DATA / "scholarqa_reports.json", format="scholarqa", system="alpha")
    expect(admin.locator(".messages")).to_contain_text("tasks enabled for the data imported")
    _import(admin, "reports", DATA / "scholarqa_reports.json", format="scholarqa", system="beta")
    _import(admin, "questions", DATA / "questions.jsonl", format="jsonl")
    expect(admin.locator("#enabled-tasks")).to_contain_text("Metric-wise evaluation")
    # two reports per question now: the admin enables medal ranking too, and the researcher
    settings = admin.locator("#settings-form")
    settings.locator("input[name=tasks][value=medal_ranking]").check()
    settings.locator(f"input[name=researchers][value='{researcher_user.pk}']").check()
    settings.locator("button[type=submit]").click()
    expect(admin.locator(".messages")).to_contain_text("settings saved")
    expect(admin.locator("#enabled-tasks")).to_contain_text("Medal ranking")

    # 3. fields: one question by an upload that finds it by its text, the other in bulk
    report_questions = list(
        Question.objects.filter(study=study, external_id__startswith="sqa-").order_by("pk")
    )
    assert len(report_questions) == 2
    admin.click("text=Questions and their fields")
    rows = admin.locator("#question-fields tbody tr")
    expect(rows).to_have_count(Question.objects.filter(study=study).count())
    first, second = report_questions
    expect(admin.locator(f"tr[data-question='{first.external_id}']")).to_contain_text(
        first.text[:30]
    )
    csv_file = tmp_path / "fields.csv"
    csv_file.write_text(f'text,field\n"{first.text}",Computer Science\n')
    admin.locator("#fields-upload-form input[type=file]").set_input_files(str(csv_file))
    admin.click("text=Upload fields")
    expect(admin.locator(".messages")).to_contain_text("1 questions updated")
    admin.get_by_label(f"Tick {second.external_id}").check()
    admin.fill("#id_field", "Computer Science")
    admin.click("text=Set on the ticked questions")
    expect(admin.locator(".messages")).to_contain_text("1 questions updated")
    for q in report_questions:
        expect(admin.locator(f"tr[data-question='{q.external_id}'] td.field")).to_have_text(
            "Computer Science"
        )
    assert Question.objects.filter(study=study).count() == 4  # none created by the upload
    shot(admin, "questions")

    # 4. invite an expert of the field and one of another field
    admin.goto("/studies/annotators/invite/")
    admin.fill("#id_expertise", "Computer Science\nBiology")
    admin.click("#invite-form button[type=submit]")
    expect(admin.locator("#invitations tbody tr")).to_have_count(2)
    expert = Annotator.objects.get(expertise_fields=["Computer Science"])
    link = admin.locator(f"#invitations tr:has-text('{expert.pseudonym}') code").inner_text()

    # 5. assign medal ranking by expertise: the preview says what is left out and why
    admin.goto(f"/studies/{study.pk}/plan/")
    admin.select_option("#id_task", "medal_ranking")
    admin.locator("input[name=strategy][value=expertise]").check()
    admin.fill("#id_overlap", "1")
    admin.click("button[value=preview]")
    expect(admin.locator("#preview-h")).to_contain_text("Preview: 2 new assignments")
    expect(admin.locator("#left-out")).to_contain_text("What is contrastive decoding?")
    expect(admin.locator("#left-out")).to_contain_text("has no report")
    shot(admin, "preview")
    admin.click("button[value=commit]")
    expect(admin.locator("h1")).to_contain_text("Progress")
    expect(admin.locator("#by-task")).to_contain_text("Medal ranking")
    assert set(Assignment.objects.filter(study=study).values_list("annotator_id", flat=True)) == {
        expert.pk
    }

    # 6. the annotator sets a password from the invitation link, logs in, completes a task
    context = browser.new_context(viewport=VIEWPORT, base_url=live_server.url)
    context.set_default_timeout(20_000)
    try:
        me = context.new_page()
        me.goto(link)
        me.fill("#id_new_password1", PASSWORD)
        me.fill("#id_new_password2", PASSWORD)
        me.locator("form [type=submit]").click()
        me.goto("/accounts/login/")
        me.fill("#id_username", expert.pseudonym)
        me.fill("#id_password", PASSWORD)
        me.click("form button[type=submit]")
        expect(me.locator("h1")).to_contain_text(expert.pseudonym)
        queue = me.locator("#queue-h + p + table")
        expect(queue).to_contain_text("Medal ranking")
        expect(queue).not_to_contain_text("medal_ranking")
        me.locator("#queue-h + p + table a").first.click()
        expect(me.get_by_text("This task is not available")).to_have_count(0)
        me.get_by_role("group", name="Report A").get_by_label("Gold").check()
        me.get_by_role("group", name="Report B").get_by_label("Silver").check()
        me.get_by_label("Ranking reasoning").fill("A explains the trade-off with evidence.")
        wait_saved(me)
        me.get_by_role("button", name="Submit").click()
        expect(me.get_by_text("Submitted. Thank you!")).to_be_visible()
        shot(me, "submitted")
        me.goto("/history/")
        expect(me.locator("#versions")).to_contain_text("A explains the trade-off")
    finally:
        context.close()
    ranking = MedalRanking.objects.get(study=study)
    assert ranking.annotator == expert
    assert ranking.reasoning == "A explains the trade-off with evidence."

    # 7. the admin imports a judge's scores on the runs page and sees who saved what
    admin.goto(f"/judges/studies/{study.pk}/runs/")
    scores = tmp_path / "scores.csv"
    scores.write_text(
        "question,system,metric,value\n"
        + "".join(
            f"{q.external_id},alpha,overall,0.9\n{q.external_id},beta,overall,0.2\n"
            for q in report_questions
        )
    )
    form = admin.locator("#scores-form")
    form.locator("input[type=file]").set_input_files(str(scores))
    form.locator("#id_judge").fill("web-judge")
    form.locator("#id_format").select_option("csv")
    form.locator("button[type=submit]").click()
    expect(admin.locator(".messages")).to_contain_text("imported 4 records")
    admin.goto(f"/studies/{study.pk}/history/")
    expect(admin.locator("#versions")).to_contain_text(expert.pseudonym)
    expect(admin.locator("#versions")).to_contain_text("Submitted")
    researcher = login(researcher_user).new_page()
    researcher.goto("/")
    researcher.get_by_role("link", name="agreement report").click()
    expect(researcher.locator("[data-key=judge]")).to_have_text("web-judge", timeout=60_000)
    # one ranking of two reports: one pairwise decision, by one annotator
    expect(researcher.locator("[data-key=n_judgments]")).to_have_attribute("data-value", "1")
    expect(researcher.locator("[data-key=n_annotators]")).to_have_attribute("data-value", "1")
    shot(researcher, "report")
