"""Study quality control end to end in a real browser (issue 17 "Done when"): an admin sets
a qualification item and a gold item, the annotator qualifies before their real work is
released, misses the gold item (flagged live on the progress page), a disagreement goes to a
third expert who adjudicates it blind, and quality over time is on the progress page and in
the quality CSV."""

from pathlib import Path

import pytest
from django.urls import reverse
from django.utils import timezone
from playwright.sync_api import expect

from annotation.models import (
    AdjudicationRequest,
    Assignment,
    PairwisePreference,
    QualificationResult,
)
from tests.builders.content import make_assignment, make_question, make_study
from tests.builders.users import make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

S0, S1 = "SecretSystem0", "SecretSystem1"


def answer(page, assignment, winner: str, reason: str):
    """Choose ``winner`` (a system name) on the pairwise page, whichever side it is shown."""
    first = assignment.question.reports.get(pk=assignment.report_order[0]).system.name
    side = "Report A better" if first == winner else "Report B better"
    pair = page.get_by_role("group", name="1. Report A (left) vs Report B (right)")
    pair.get_by_label(side).check()
    pair.get_by_label("Reason").fill(reason)
    page.get_by_role("button", name="Submit").click()
    expect(page.get_by_text("Submitted. Thank you!")).to_be_visible()


def test_gold_qualification_adjudication_and_quality_over_time(login, shot):
    admin = make_user("qc_admin", "admin")
    ann, other, expert = (
        make_user(n, "annotator", annotator=True) for n in ("qc_a", "qc_b", "qc_c")
    )
    study = make_study("QC browser", tasks=["pairwise"])
    q1, q2, q3 = (make_question(study, n_reports=2, paragraphs=1) for _ in range(3))
    real = make_assignment(ann.annotator, q3, "pairwise", position=1)
    theirs = make_assignment(other.annotator, q3, "pairwise", position=1)  # already done
    left, right = q3.reports.order_by("system__name")
    PairwisePreference.objects.create(
        study=study, annotator=other.annotator, question=q3, left=left, right=right,
        choice="right", reason="B is better", assignment=theirs,
    )  # fmt: skip
    Assignment.objects.filter(pk=theirs.pk).update(status="submitted", submitted_at=timezone.now())
    # the expert was passed by hand in an earlier round: only a qualified annotator may
    # adjudicate in a study that requires the round (issue 24)
    QualificationResult.objects.create(
        study=study, annotator=expert.annotator, passed=True, overridden=True
    )

    # the admin: a qualification item, a gold item, the round required, all into the queues
    page = login(admin).new_page()
    page.goto(reverse("studies:progress", args=[study.pk]))
    page.get_by_role("link", name="Quality control").click()
    enter = page.locator("#enter-gold")
    for question, text, purpose in (("q1", f"{S0}>{S1}", "Qualification item"),
                                    ("q2", f"{S1}>{S0}", "Gold (attention) item")):  # fmt: skip
        enter.get_by_label("Question (id or external id)").fill(question)
        enter.get_by_label("Answer").fill(text)
        enter.get_by_label("Purpose").select_option(label=purpose)
        enter.get_by_role("button", name="Save known answer").click()
        expect(page.get_by_text("Known answer saved.")).to_be_visible()
    # a bad answer is refused, naming the field, and what was typed is kept
    enter.get_by_label("Question (id or external id)").fill("q3")
    enter.get_by_label("Answer").fill("Nobody>SecretSystem0")
    enter.get_by_role("button", name="Save known answer").click()
    expect(page.get_by_test_id("quality-error")).to_contain_text(
        "answer: no report of system “Nobody”"
    )
    expect(page.locator("#enter-gold").get_by_label("Answer")).to_have_value("Nobody>SecretSystem0")
    settings = page.locator("#quality-settings")
    settings.get_by_label("Require a qualification round").check()
    settings.get_by_label("Qualification pass mark").fill("1")
    settings.get_by_role("button", name="Save settings").click()
    expect(page.get_by_text("Quality settings saved.")).to_be_visible()
    page.get_by_role("button", name="Add gold and qualification items").click()
    expect(page.get_by_text("assignments added to the annotators' queues")).to_be_visible()
    expect(page.locator("#gold-items tbody tr")).to_have_count(2)
    # unopened work is written again beside the new items (their ids mixed in): new id
    real = Assignment.objects.get(annotator=ann.annotator, question=q3)

    # the annotator: only the qualification item until they pass; then the real work + gold
    work = login(ann).new_page()
    work.goto(reverse("annotate:queue"))
    expect(work.get_by_role("link", name="How do fine-tuning")).to_have_count(1)
    qual = Assignment.objects.get(annotator=ann.annotator, question=q1)
    assert work.locator(f"a[href='{reverse('annotate:task', args=[real.pk])}']").count() == 0
    work.get_by_role("link", name="How do fine-tuning").click()
    work.wait_for_load_state()  # the task page's scripts have run
    assert work.url.endswith(reverse("annotate:task", args=[qual.pk]))
    qual.refresh_from_db()
    answer(work, qual, S0, "Qualification: A is better.")
    assert QualificationResult.objects.get(annotator=ann.annotator).passed is True
    work.goto(reverse("annotate:queue"))
    expect(work.get_by_role("link", name="How do fine-tuning")).to_have_count(3)
    gold = Assignment.objects.get(annotator=ann.annotator, question=q2)
    work.goto(reverse("annotate:task", args=[gold.pk]))
    expect(work.locator("body")).not_to_contain_text("gold", ignore_case=True)
    answer(work, gold, S0, "Wrong on purpose.")  # the gold answer is S1
    real.refresh_from_db()
    work.goto(reverse("annotate:task", args=[real.pk]))
    answer(work, real, S0, "A is better.")  # disagrees with the other annotator
    shot(work, "annotator-after")

    # the admin: flagged on the progress page; the disagreement goes to a third expert
    page.goto(reverse("studies:progress", args=[study.pk]))
    row = page.locator("#annotator-quality tr[data-annotator='Pseudo-qc_a']")
    expect(row.get_by_test_id("gold-flag")).to_be_visible()
    expect(row.locator("td.gold")).to_have_text("0.00 (0/1)")
    expect(row).to_contain_text("passed")
    page.goto(reverse("studies:quality", args=[study.pk]))
    dis = page.locator("#disagreements tr[data-unit]").first
    dis.get_by_label("adjudicators").select_option(label="Pseudo-qc_c")
    dis.get_by_role("button", name="Send to adjudication").click()
    expect(page.get_by_text("Sent to 1 adjudicator(s).")).to_be_visible()
    # override: the other annotator is failed by hand, with a reason, audited
    other_row = page.locator("#qualification tr[data-annotator='Pseudo-qc_b']")
    other_row.get_by_label("verdict").select_option("fail")
    other_row.get_by_label("reason").fill("did not attend the briefing")
    other_row.get_by_role("button", name="Override").click()
    expect(page.locator("#qualification tr[data-annotator='Pseudo-qc_b'] td.result")).to_have_text(
        "failed (set by hand)"
    )
    expect(page.locator("#quality-audit")).to_contain_text("did not attend the briefing")

    # the expert adjudicates blind
    judge = login(expert).new_page()
    judge.goto(reverse("home"))
    judge.get_by_test_id("adjudications-waiting").get_by_role("link").click()
    judge.wait_for_load_state()  # the task page's scripts have run
    expect(judge.locator("section.adjudication")).to_contain_text("Report A")
    expect(judge.locator("body")).not_to_contain_text("SecretSystem")
    from studio.studyadmin.quality import Blinding

    # letters are drawn per request: find the one the page gives SecretSystem1
    judge.get_by_label(
        f"{Blinding.of(AdjudicationRequest.objects.get()).name(S1)} is better"
    ).check()
    judge.get_by_label("Reason").fill("B cites the benchmark.")
    judge.get_by_role("button", name="Save adjudication").click()
    expect(judge.get_by_text("Adjudication saved.")).to_be_visible()
    request = AdjudicationRequest.objects.get()
    assert request.label == S1 and PairwisePreference.objects.filter(question=q3).count() == 2

    # the admin sees the adjudicated label beside the originals, and downloads the CSV
    page.goto(reverse("studies:quality", args=[study.pk]))
    expect(page.locator("#adjudications td.label")).to_contain_text(S1)
    expect(page.locator("#adjudications")).to_contain_text(f"Pseudo-qc_a: {S0}")
    with page.expect_download() as info:
        page.get_by_role("link", name="Download quality CSV").click()
    text = Path(info.value.path()).read_text(encoding="utf-8")
    line = next(x for x in text.splitlines() if x.startswith("Pseudo-qc_a,"))
    assert ",0.0,1," in line  # gold accuracy 0, flagged
    shot(page, "admin-quality")


def test_query_quality_gold_accuracy_and_adjudication_in_the_browser(login, shot):
    """One non-pairwise task end to end: a query-quality rating (unit ``clarity``, labels
    1–5, exact match) marked as gold from an annotator's judgment, answered wrongly by
    another annotator (accuracy on the progress page), and a disagreement adjudicated."""
    from tests.builders.quality import label

    admin = make_user("qq_admin", "admin")
    ann, other, expert = (
        make_user(n, "annotator", annotator=True) for n in ("qq_a", "qq_b", "qq_c")
    )
    study = make_study("QQ browser", tasks=["query_quality"])
    q1, q2 = (make_question(study, n_reports=0) for _ in range(2))
    for q in (q1, q2):
        label("query_quality", other.annotator, q)  # clarity 5, the rest 3 / closed
    real = make_assignment(ann.annotator, q2, "query_quality", position=1)

    # the admin marks the other annotator's clarity on q1 as gold and releases it
    page = login(admin).new_page()
    page.goto(reverse("studies:quality", args=[study.pk]))
    expect(page.locator("#task-labels tr[data-task='query_quality']")).to_contain_text("clarity")
    gold_key = f"query_quality|{q1.pk}|clarity"
    mark = page.locator(f"#units tr[data-unit='{gold_key}'] form").filter(has_text="Pseudo-qq_b")
    mark.get_by_role("button", name="Mark as known answer").click()
    expect(page.get_by_text("Marked as a known answer.")).to_be_visible()
    expect(page.locator("#gold-items")).to_contain_text("clarity")
    page.get_by_role("button", name="Add gold and qualification items").click()
    expect(page.get_by_text("assignments added to the annotators' queues")).to_be_visible()

    # the annotator rates both questions' clarity 2 (the gold answer is 5)
    work = login(ann).new_page()
    gold = Assignment.objects.get(annotator=ann.annotator, question=q1)
    real = Assignment.objects.get(annotator=ann.annotator, question=q2)  # written again
    for a in (gold, real):
        work.goto(reverse("annotate:task", args=[a.pk]))
        expect(work.locator("body")).not_to_contain_text("gold", ignore_case=True)
        work.get_by_role("group", name="Clarity").get_by_label("2").check()
        work.get_by_role("group", name="Naturalness").get_by_label("3").check()
        work.get_by_role("group", name="Relevance to a researcher's need").get_by_label("3").check()
        work.get_by_label("Closed").check()
        work.get_by_role("button", name="Submit").click()
        # the submit refreshes quality control (gold accuracy, the qualification round): on a
        # machine running the other test passes beside this one it took over 15 s once
        expect(work.get_by_text("Submitted. Thank you!")).to_be_visible(timeout=45_000)

    # the admin: accuracy 0/1 and the flag on the progress page; q2's clarity adjudicated
    page.goto(reverse("studies:progress", args=[study.pk]))
    row = page.locator("#annotator-quality tr[data-annotator='Pseudo-qq_a']")
    expect(row.locator("td.gold")).to_have_text("0.00 (0/1)")
    expect(row.get_by_test_id("gold-flag")).to_be_visible()
    page.goto(reverse("studies:quality", args=[study.pk]))
    key = f"query_quality|{q2.pk}|clarity"
    dis = page.locator(f"#disagreements tr[data-unit='{key}']")
    dis.get_by_label("adjudicators").select_option(label="Pseudo-qq_c")
    dis.get_by_role("button", name="Send to adjudication").click()
    expect(page.get_by_text("Sent to 1 adjudicator(s).")).to_be_visible()

    judge = login(expert).new_page()
    judge.goto(reverse("studies:my_adjudications"))
    section = judge.locator("section.adjudication")
    expect(section.get_by_test_id("adjudication-unit")).to_have_text("About: clarity")
    expect(section).to_contain_text("Earlier labels: 2 · 5")
    # by keyboard, as on the task pages: "4" picks the 4th label (one nobody gave: the whole
    # scale is offered), "w" the reason, Ctrl+Enter saves
    judge.wait_for_load_state()  # annotate.js has run
    judge.keyboard.press("4")
    expect(section.get_by_label("4", exact=True)).to_be_checked()
    judge.keyboard.press("w")
    judge.keyboard.type("Clear, one term undefined.")
    judge.keyboard.press("Control+Enter")
    expect(judge.get_by_text("Adjudication saved.")).to_be_visible()
    request = AdjudicationRequest.objects.get()
    assert (request.unit, request.label) == ("clarity", "4")
    from annotation.models import QueryQuality

    stored = sorted(QueryQuality.objects.filter(question=q2).values_list("clarity", flat=True))
    assert stored == [2, 5]  # the originals stay as submitted
    page.goto(reverse("studies:quality", args=[study.pk]))
    expect(page.locator("#adjudications td.label")).to_contain_text("4")
    with page.expect_download() as info:
        page.get_by_role("link", name="Download quality CSV").click()
    text = Path(info.value.path()).read_text(encoding="utf-8")
    assert any(x.startswith("Pseudo-qq_a,query_quality,") for x in text.splitlines())
    shot(page, "query-quality-admin")
