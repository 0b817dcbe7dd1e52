"""Issue 26 in a real browser: an invited annotator learns their user name and sets a
password on Concord's own page; an annotator skips at once and an admin previews the task
as they see it; the Assign page says what its inputs mean and what a plan costs; and the
DeepScholar protocol runs from the planner through two annotators to the JSONL export and
its re-import into a new study with the same labels."""

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from annotation.annotate.registry import SPECS
from annotation.models import Annotator, Assignment, DeepScholarLabel, Flag
from tests.annotation.test_annotate_deepscholar import KEYS, deepscholar_question
from tests.builders.content import make_assignment, make_question, make_study

from .helpers import label_keys, label_units, press_keys, wait_ready

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "a long and good password 26"


def test_invited_annotator_learns_their_user_name(login, browser, live_server, admin_user, shot):
    from tests.browser.conftest import VIEWPORT

    admin = login(admin_user).new_page()
    admin.goto("/studies/annotators/invite/")
    admin.fill("#id_expertise", "Computer Science")
    admin.click("#invite-form button[type=submit]")
    expect(admin.locator("#invitations th").first).to_have_text("User name (case-sensitive)")
    name = Annotator.objects.get().pseudonym
    message = admin.locator("#invitations textarea.invitation-message").input_value()
    assert f"Your user name (case-sensitive): {name}" in message
    link = admin.locator("#invitations code.link").inner_text()
    shot(admin, "invitation-message")
    context = browser.new_context(viewport=VIEWPORT, base_url=live_server.url)
    try:
        me = context.new_page()
        me.goto(link)
        expect(me.locator("h1")).to_have_text("Set your password")
        expect(me.locator("#your-user-name")).to_contain_text(name)
        expect(me.locator("a.brand")).to_have_text("Concord")  # the product's page
        expect(me.get_by_text("Django")).to_have_count(0)
        shot(me, "set-password")
        me.fill("#id_new_password1", PASSWORD)
        me.fill("#id_new_password2", PASSWORD)
        me.locator("form [type=submit]").click()
        expect(me.locator("h1")).to_have_text("Your password is set")
        me.get_by_role("link", name="Log in").click()
        me.fill("#id_username", name)
        me.fill("#id_password", PASSWORD)
        me.click("form button[type=submit]")
        expect(me.locator(".who")).to_have_text(name)
    finally:
        context.close()


def test_skip_at_once_and_the_admin_preview(login, annotator_user, admin_user, shot):
    study = make_study("Skip study")
    q1, q2 = make_question(study, n_reports=2), make_question(study, n_reports=2)
    first = make_assignment(annotator_user.annotator, q1, "medal_ranking", position=1)
    second = make_assignment(annotator_user.annotator, q2, "medal_ranking", position=2)
    me = login(annotator_user).new_page()
    me.goto(reverse("annotate:task", args=[first.pk]))
    wait_ready(me)
    me.get_by_role("button", name="Skip", exact=True).click()
    expect(me).to_have_url(f"{me.url.split('/annotate/')[0]}/annotate/{second.pk}/")
    expect(me.locator(".messages")).to_contain_text("Skipped")
    flag = Flag.objects.get()
    assert flag.skipped and flag.reason == "none_given" and flag.assignment_id == first.pk

    admin = login(admin_user).new_page()
    admin.goto(reverse("studies:annotator_progress", args=[study.pk, annotator_user.annotator.pk]))
    admin.locator("a.preview-link").first.click()
    expect(admin.locator("#preview-notice")).to_contain_text(annotator_user.annotator.pseudonym)
    expect(admin.get_by_role("group", name="Report A")).to_be_visible()
    expect(admin.get_by_label("Ranking reasoning (required)")).to_be_disabled()
    expect(admin.locator("#submit-btn")).to_have_count(0)
    expect(admin.get_by_text("SecretSystem")).to_have_count(0)
    shot(admin, "preview")


def test_assign_page_explains_its_inputs_and_the_plan_cost(login, admin_user, shot):
    from tests.metaeval.test_plan_budget import _pool, pilot_study

    study = pilot_study(name="Costed")
    _pool(4)
    page = login(admin_user).new_page()
    page.goto(reverse("studies:plan", args=[study.pk]))
    expect(page.get_by_label("Annotators per question (overlap K)")).to_be_visible()
    expect(page.locator("#plan-form")).to_contain_text("budget planner: new assignments per")
    page.locator("#id_task").select_option("medal_ranking")
    page.get_by_label("Budget planner", exact=False).check()
    page.fill("#id_overlap", "2")
    page.fill("#id_per_expert", "3")
    page.fill("#id_hourly_rate", "40")
    page.click("text=Preview plan")
    estimate = page.locator("#estimate")
    expect(estimate).to_contain_text("1.0expert hours")
    expect(estimate).to_contain_text("40.00cost")
    expect(estimate).to_contain_text("expected agreement interval after")
    expect(page.locator("#overlap tbody tr")).to_have_count(1)
    expect(page.locator("#overlap tbody tr td").first).to_have_text("2")  # K per question
    page.locator("#estimate-how summary").click()
    expect(page.locator("#estimate-how")).to_contain_text("median measured time")
    shot(page, "plan-estimate")


def label_all(context, assignment, shift):
    """Every unit of the task labelled with the keyboard, the labels cycling from ``shift``."""
    keys = label_keys(assignment, shift)
    page = context.new_page()
    page.goto(reverse("annotate:task", args=[assignment.pk]))
    label_units(page, keys)
    press_keys(page, "Control+Enter")
    expect(page.get_by_text("Submitted. Thank you!")).to_be_visible()
    page.close()
    return len(keys)


def test_deepscholar_from_the_planner_to_a_reimported_export(
    login, admin_user, annotator_user, other_annotator_user, shot, tmp_path
):
    study = make_study("DeepScholar protocol", tasks=list(KEYS))
    deepscholar_question(study)
    admin = login(admin_user).new_page()
    for task in KEYS:  # every task type of the protocol, through the planner
        admin.goto(reverse("studies:plan", args=[study.pk]))
        admin.locator("#id_task").select_option(task)
        admin.fill("#id_overlap", "2")
        admin.click("text=Preview plan")
        expect(admin.locator("#left-out")).to_have_count(0)  # was "has no report"
        admin.click("text=Commit this plan")
        expect(admin.locator(".messages")).to_contain_text("2 assignments created")
    rows = Assignment.objects.filter(study=study)
    assert rows.count() == 2 * len(KEYS)
    for a in rows:
        assert len(a.report_order) == (2 if SPECS[a.task].shows_reports else 0), a.task
    units = 0
    for shift, user in enumerate((annotator_user, other_annotator_user)):
        context = login(user)
        for a in rows.filter(annotator=user.annotator).order_by("task"):
            units += label_all(context, a, shift)
    assert DeepScholarLabel.objects.filter(study=study).count() == units

    response = admin.request.get(reverse("studies:export_judgments", args=[study.pk, "jsonl"]))
    assert response.status == 200
    exported = tmp_path / "judgments.jsonl"
    exported.write_bytes(response.body())
    assert exported.read_text().count('"deepscholar_label"') == units

    copy = make_study("DeepScholar copy", tasks=list(KEYS))
    deepscholar_question(copy)
    admin.goto(reverse("studies:detail", args=[copy.pk]))
    form = admin.locator("#import-form")
    form.locator("#id_kind").select_option("judgments")
    form.locator("#id_file").set_input_files(str(exported))
    form.locator("button[type=submit]").click()
    expect(admin.locator(".messages")).to_contain_text("imported")
    shot(admin, "reimported")

    def labels(s):
        return sorted(
            DeepScholarLabel.objects.filter(study=s).values_list(
                "annotator__pseudonym", "kind", "report__system__name", "unit", "label"
            )
        )

    assert labels(copy) == labels(study)
    # the two experts' labels give a human-vs-human IAA per label kind on the report page
    researcher = login(admin_user).new_page()
    researcher.goto(reverse("metaeval:report", args=[copy.pk]))
    table = researcher.locator("#section-label_iaa, [data-section=label_iaa]").first
    expect(table).to_contain_text("deepscholar_organization")
