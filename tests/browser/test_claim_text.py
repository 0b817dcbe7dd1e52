"""A claim is text of its paragraph (metric-wise): what the browser's selection reads on
real released reports — formulas as MathML, tables, links, emphasis, code — is text the
server finds in the paragraph (``annotation.rendering.selectable_letters``), so the rule
that refuses a forged post's invented claim never refuses a claim selected on the page."""

import json

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from annotation.annotate.page import TaskPage
from annotation.importers import run
from annotation.models import Assignment, Question, Report, Study
from annotation.rendering import letters, selectable_letters

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

#: Every paragraph's whole text, and the text before each of its citations (the "+" key's
#: claim), read as claims.js reads a selection (cleanText: tooltips removed, spaces folded).
SELECTIONS = """() => [...document.querySelectorAll('.para')].map((para) => {
  const body = para.querySelector('.para-body');
  const clean = (range) => {
    const f = range.cloneContents();
    f.querySelectorAll('.cite-tip').forEach((n) => n.remove());
    return f.textContent.replace(/\\s+/g, ' ').trim();
  };
  const whole = document.createRange();
  whole.selectNodeContents(body);
  const texts = [clean(whole)];
  const wraps = [...body.querySelectorAll('.cite-wrap')];
  wraps.forEach((w, i) => {
    const r = document.createRange();
    if (i > 0) r.setStartAfter(wraps[i - 1]); else r.setStart(body, 0);
    r.setEndBefore(w);
    texts.push(clean(r));
  });
  return {report: para.dataset.report, n: para.dataset.paragraph, texts};
})"""


def _records(path, predicate, limit):
    records = json.loads(path.read_text(encoding="utf-8"))
    return [r for r in records if predicate(r)][:limit]


def _text(record) -> str:
    return " ".join(s.get("text") or "" for s in record["response"]["sections"])


def test_text_selected_on_released_reports_is_text_of_its_paragraph(
    scholarqa_dir, annotator_user, login
):
    reports = scholarqa_dir / "reports"
    chosen = {
        "sqa-qwen3_8b_SFT_fullanswer": _records(
            reports / "test" / "sqa-qwen3_8b_SFT_fullanswer.json", lambda r: "$" in _text(r), 1
        ),
        "perplexity": _records(
            reports / "dev" / "perplexity.json", lambda r: "|---" in _text(r), 1
        ),
        "you": _records(reports / "dev" / "you.json", lambda r: "](http" in _text(r), 1),
    }
    question = next(iter(chosen.values()))[0]["question"]
    for system, records in chosen.items():
        record = {**records[0], "question": question}  # one question, three systems
        run("reports", json.dumps([record]).encode(), study="S", format="scholarqa", system=system)
    study = Study.objects.get(name="S")
    study.tasks = [Study.Task.METRIC_WISE]
    study.save()
    a = Assignment.objects.create(
        study=study, annotator=annotator_user.annotator, question=Question.objects.get(),
        task=Study.Task.METRIC_WISE, report_order=list(Report.objects.values_list("pk", flat=True)),
    )  # fmt: skip
    page = login(annotator_user).new_page()
    page.goto(reverse("annotate:task", args=[a.pk]))
    expect(page.locator("article.report").first).to_be_visible()
    assert page.locator("math").count() and page.locator(".para-body table").count()
    selections = page.evaluate(SELECTIONS)

    server = {
        (r.public_id, str(p.number)): selectable_letters(p.html)
        for r in TaskPage(assignment=a, annotator=a.annotator).reports
        for p in r.paragraphs
    }
    texts = [(s["report"], s["n"], t) for s in selections for t in s["texts"] if t]
    assert len(texts) > 50
    missing = [(pid, n, t[:80]) for pid, n, t in texts if letters(t) not in server[pid, n]]
    assert not missing
    # and the rule does refuse: the longest paragraph's text is no other paragraph's
    pid, n, longest = max(texts, key=lambda x: len(letters(x[2])))
    assert [key for key, shown in server.items() if letters(longest) in shown] == [(pid, n)]
