"""Medal ranking in a real browser: complete, reload, two tabs, keyboard only."""

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from annotation.models import DraftVersion, Medal, MedalRanking
from tests.builders.content import make_assignment, make_question, make_study

from .helpers import press_keys, wait_ready, wait_saved

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def assignment(annotator_user):
    study = make_study()
    question = make_question(study, hostile=True)
    return make_assignment(annotator_user.annotator, question, "medal_ranking")


#: The judge's overall score of the reports the annotator sees as A, B and C: it prefers A to
#: C to B, so the ranking A gold, B silver, C bronze agrees on A>B and A>C, not on B>C.
JUDGE_OVERALL = {"Report A": 0.9, "Report B": 0.2, "Report C": 0.5}


def earlier_judgments(assignment, other_annotator):
    """A judge's scores on every report of the study, and one earlier ranking of another
    question (by another annotator) that agrees with the judge on all 3 pairs."""
    from annotation.rendering import report_label
    from judges.models import Judge, JudgeScore

    judge = Judge.objects.create(name="judge-report")
    by_label = {report_label(i): pk for i, pk in enumerate(assignment.report_order)}
    for label, value in JUDGE_OVERALL.items():
        JudgeScore.objects.create(judge=judge, report_id=by_label[label], metric="overall",
                                  value=value)  # fmt: skip
    earlier = make_question(assignment.study)
    ranking = MedalRanking.objects.create(study=assignment.study, annotator=other_annotator,
                                          question=earlier, reasoning="Earlier.")  # fmt: skip
    for report, medal, value in zip(
        earlier.reports.order_by("pk"), ("gold", "silver", "bronze"), (0.8, 0.5, 0.1), strict=True
    ):
        Medal.objects.create(ranking=ranking, report=report, medal=medal)
        JudgeScore.objects.create(judge=judge, report=report, metric="overall", value=value)


def agreement_json(study) -> dict:
    import io
    import json

    from django.core.management import call_command

    out = io.StringIO()
    call_command("agreement", "--study", str(study.pk), "--json", stdout=out)
    return json.loads(out.getvalue())


def medals_by_label(assignment):
    from annotation.rendering import report_label

    by_pk = dict(Medal.objects.values_list("report_id", "medal"))
    return {report_label(i): by_pk.get(pk) for i, pk in enumerate(assignment.report_order)}


def test_complete_with_a_reload_in_the_middle(
    login, annotator_user, other_annotator_user, researcher_user, assignment, shot
):
    """…and the ranking counts in the agreement report (command and report page)."""
    earlier_judgments(assignment, other_annotator_user.annotator)
    before = agreement_json(assignment.study)["preference"]["overall"]
    assert (before["n"], before["agreement"]) == (3, 1.0)  # n counts pairwise decisions
    page = login(annotator_user).new_page()
    page.goto(reverse("annotate:queue"))
    shot(page, "queue")
    page.get_by_role("link", name="How do fine-tuning").click()
    page.wait_for_load_state()  # the task page's scripts have run
    expect(page.get_by_text("Query 1 of 1")).to_be_visible()
    # sanitized: the hostile report's script and handlers never ran
    assert page.evaluate("window.__pwned") is None
    # a citation shows its title and snippets on hover
    cite = page.locator("#report-A .cite[data-kind=snippet]").first
    cite.hover()
    expect(page.locator("#report-A .cite-tip").first).to_be_visible()
    shot(page, "citation-hover")

    page.get_by_role("group", name="Report A").get_by_label("Gold").check()
    page.get_by_role("group", name="Report B").get_by_label("Silver").check()
    wait_saved(page)
    page.reload()
    expect(page.get_by_role("group", name="Report A").get_by_label("Gold")).to_be_checked()
    expect(page.get_by_role("group", name="Report B").get_by_label("Silver")).to_be_checked()

    page.get_by_role("group", name="Report C").get_by_label("Bronze").check()
    page.get_by_label("Ranking reasoning").fill("A covers every aspect; B misses the evaluation.")
    wait_saved(page)
    shot(page, "filled")
    page.get_by_role("button", name="Submit").click()
    expect(page).to_have_url(f"{page.context.pages[0].url.split('/annotate/')[0]}/annotate/")
    expect(page.get_by_text("Submitted. Thank you!")).to_be_visible()
    shot(page, "after-submit")
    assert medals_by_label(assignment) == {
        "Report A": "gold",
        "Report B": "silver",
        "Report C": "bronze",
    }
    assert MedalRanking.objects.get(annotator=annotator_user.annotator).reasoning.startswith(
        "A covers"
    )
    # The meta-evaluation reads it: 3 more decisions; of the ranking's 3 the judge
    # agrees on 2 (A>B, A>C) and not on B>C, so 3 + 2 of 6 decisions agree; τ-b over the
    # 6 decisions = (5 concordant − 1 discordant) / 6.
    after = agreement_json(assignment.study)
    overall = after["preference"]["overall"]
    assert overall["n"] == 6
    assert overall["agreement"] == pytest.approx(5 / 6)
    assert overall["tau_b"] == pytest.approx(4 / 6)
    assignment.study.researchers.add(researcher_user)
    report = login(researcher_user).new_page()
    report.goto(f"/reports/{assignment.study.pk}/")
    cells = '#table-preference tr[data-metric="overall"]'
    expect(report.locator(f'{cells} td[data-key="n"]')).to_have_attribute("data-value", "6")
    value = report.locator(f'{cells} td[data-key="agreement"]').get_attribute("data-value")
    assert float(value) == overall["agreement"]
    shot(report, "agreement-report")


def test_server_refusal_is_shown(login, annotator_user, assignment, shot):
    page = login(annotator_user).new_page()
    page.set_viewport_size({"width": 1280, "height": 560})  # the panel's foot below the fold
    page.goto(reverse("annotate:task", args=[assignment.pk]))
    for label in ("Report A", "Report B", "Report C"):
        page.get_by_role("group", name=label).get_by_label("Gold").check()
    wait_saved(page)
    expect(page.locator("#save-status")).to_contain_text("three-way tie")  # a draft warning
    page.get_by_label("Ranking reasoning").fill("All equal.")
    autosave = reverse("annotate:autosave", args=[assignment.pk])
    autosaves = []
    page.on("request", lambda r: autosaves.append(r.url) if r.url.endswith(autosave) else None)
    # Ctrl+Enter from the text box, before the 600 ms autosave delay (a click would scroll
    # the button, and with it the message below, into view by itself)
    page.get_by_label("Ranking reasoning").press("Control+Enter")
    expect(page.locator("#save-status")).to_contain_text("Not submitted")
    expect(page.locator("#save-status")).to_contain_text("three-way tie is not allowed")
    expect(page.locator("#save-status")).to_be_in_viewport(ratio=0.9)  # brought into view
    # The reasoning typed just before Ctrl+Enter was saved before the submit (a refused
    # submit saves nothing), so the refusal is the last word: the delayed autosave of the
    # same answers is not sent, and its "Draft saved" never replaces the refusal.
    draft = assignment.draft
    draft.refresh_from_db()
    assert draft.payload["reasoning"] == "All equal."
    page.wait_for_timeout(1500)  # past the autosave delay (hx-trigger "input delay:600ms")
    expect(page.locator("#save-status")).to_contain_text("Not submitted")
    assert len(autosaves) == 1
    shot(page, "refused")
    assert not MedalRanking.objects.exists()


def test_two_tabs_conflict(login, annotator_user, assignment, shot):
    context = login(annotator_user)
    url = reverse("annotate:task", args=[assignment.pk])
    first, second = context.new_page(), context.new_page()
    first.goto(url)
    second.goto(url)
    wait_ready(first, second)
    first.get_by_role("group", name="Report A").get_by_label("Gold").check()
    wait_saved(first, 1)
    second.get_by_role("group", name="Report A").get_by_label("Bronze").check()
    status = second.locator("#save-status")
    expect(status).to_contain_text("changed in another tab")
    expect(second.get_by_role("alert")).to_be_visible()
    shot(second, "conflict")
    assert list(DraftVersion.objects.values_list("version", flat=True)) == [1]
    second.get_by_role("link", name="Reload the page").click()
    second.wait_for_load_state()  # the task page's scripts have run
    expect(second.get_by_role("group", name="Report A").get_by_label("Gold")).to_be_checked()


def test_keyboard_only(login, annotator_user, assignment, shot):
    page = login(annotator_user).new_page()
    page.goto(reverse("annotate:task", args=[assignment.pk]))
    # Tab reaches a citation marker and its tooltip appears on focus.
    for _ in range(30):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.classList.contains('cite')"):
            break
    tip_id = page.evaluate("document.activeElement.getAttribute('aria-describedby')")
    expect(page.locator(f"#{tip_id}")).to_be_visible()
    shot(page, "citation-focus")
    page.evaluate("document.activeElement.blur()")
    press_keys(page, "a", "g", "b", "s", "c", "b")
    expect(page.get_by_role("group", name="Report C").get_by_label("Bronze")).to_be_checked()
    press_keys(page, "w")
    expect(page.get_by_label("Ranking reasoning")).to_be_focused()
    page.keyboard.type("Keyboard-only ranking reasoning.")
    wait_saved(page)
    press_keys(page, "Escape", "h")
    expect(page.locator("#guidelines")).to_be_visible()
    shot(page, "guidelines")
    press_keys(page, "Escape")
    page.get_by_label("Ranking reasoning").focus()
    press_keys(page, "Control+Enter")
    expect(page.get_by_text("Submitted. Thank you!")).to_be_visible()
    assert medals_by_label(assignment) == {
        "Report A": "gold",
        "Report B": "silver",
        "Report C": "bronze",
    }
