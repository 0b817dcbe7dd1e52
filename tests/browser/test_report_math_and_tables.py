"""Real released reports in a real browser: formulas as MathML, tables as tables, one
citation style (issue 12). The screenshot stays under test-artifacts/ for inspection."""

import json

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from annotation.importers import run
from annotation.models import Assignment, Question, Report, Study

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _first(path, predicate):
    raw = path.read_text(encoding="utf-8")
    try:
        records = json.loads(raw)
    except json.JSONDecodeError:
        records = [json.loads(line) for line in raw.splitlines() if line.strip()]
    return next(r for r in records if predicate(r))


def _text(record) -> str:
    return " ".join(s["text"] for s in record["response"]["sections"])


def test_a_report_with_latex_and_a_table_reads_well(scholarqa_dir, annotator_user, login, shot):
    reports = scholarqa_dir / "reports"
    maths = _first(
        reports / "test" / "sqa-qwen3_8b_SFT_fullanswer.json", lambda r: "$$" in _text(r)
    )
    table = _first(reports / "dev" / "perplexity.json", lambda r: "|---" in _text(r))
    table = {**table, "question": maths["question"]}  # one question, two systems
    for system, record in (("sqa-qwen3_8b_SFT_fullanswer", maths), ("perplexity", table)):
        run("reports", json.dumps([record]).encode(), study="S", format="scholarqa", system=system)
    study = Study.objects.get(name="S")
    study.tasks = [Study.Task.MEDAL_RANKING]
    study.save()
    question = Question.objects.get()
    order = list(Report.objects.order_by("system__name").values_list("pk", flat=True))
    a = Assignment.objects.create(
        study=study,
        annotator=annotator_user.annotator,
        question=question,
        task=Study.Task.MEDAL_RANKING,
        report_order=[order[1], order[0]],  # the qwen report (math) first
    )
    page = login(annotator_user).new_page()
    errors = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(reverse("annotate:task", args=[a.pk]))
    expect(page.locator("article.report").first).to_be_visible()
    formula = page.locator("#report-A math").first
    formula.scroll_into_view_if_needed()
    box = formula.bounding_box()
    assert box and box["width"] > 10 and box["height"] > 5  # laid out as math, not hidden
    assert page.locator("#report-A math").count() >= 3
    body = page.locator("body").inner_text()
    assert "$$" not in body and "<Model" not in body and "Citations:" not in body
    shot(page, "math")
    t = page.locator("#report-B table").first
    t.scroll_into_view_if_needed()
    expect(t).to_be_visible()
    assert page.locator("#report-B table th").count() >= 2
    shot(page, "table")
    assert not [e for e in errors if "Content Security Policy" in e]
