"""An empty report is named in a warning at import and set aside: stored as released (an
export gives the file back), never planned into an assignment (issue 25: 15 of ScholarQA-CS2's 100 gemini dev reports have
``"sections": []``)."""

import json

import pytest

from annotation.importers import run
from annotation.models import Paragraph, Report, Study
from studio.studyadmin.planning import PlanSpec, preview
from tests.builders.planning import make_annotators, make_study

pytestmark = pytest.mark.django_db


def test_the_released_empty_gemini_reports_are_named_and_set_aside(scholarqa_dir):
    path = scholarqa_dir / "reports" / "dev" / "gemini-2.5-pro-preview-03-25.json"
    records = json.loads(path.read_text())
    empty = [n for n, r in enumerate(records, start=1) if not r["response"]["sections"]]
    assert len(records) == 100 and len(empty) == 15  # as released
    rep = run("reports", path, study="CS2", format="scholarqa", system="gemini")
    set_aside = [w for w in rep.warnings if "is empty" in w.message]
    assert [w.record for w in set_aside] == empty
    assert records[empty[0] - 1]["question"][:40] in set_aside[0].message
    assert Report.objects.count() == 100  # stored as released (an export gives them back)
    empty_ids = Report.objects.exclude(pk__in=Paragraph.objects.values("report"))
    assert empty_ids.count() == 15 and not Report.objects.readable().filter(pk__in=empty_ids)


def test_a_markdown_report_with_no_text_is_set_aside(tmp_path):
    path = tmp_path / "r.json"
    path.write_text(json.dumps([
        {"id": "q1", "question": "Q1?", "response": "Some text [1].\n\n[1] A paper"},
        {"id": "q2", "question": "Q2?", "response": "  \n\n## References\n\n[1] A paper\n"},
    ]))  # fmt: skip
    rep = run("reports", path, study="S", format="researcherbench", system="sys")
    assert [(w.record, w.field) for w in rep.warnings] == [(2, "report")]
    assert list(Report.objects.readable().values_list("question__external_id", flat=True)) == ["q1"]


def test_an_empty_report_already_stored_is_never_planned():
    study = make_study(questions=4, systems=3)
    make_annotators(3)
    placeholder = Report.objects.filter(question__study=study).order_by("pk").first()
    Paragraph.objects.filter(report=placeholder).delete()  # as a pairwise-import placeholder
    shown = preview(Study.objects.get(pk=study.pk), PlanSpec(task="medal_ranking", overlap=1))
    planned = {r for it in shown.items for r in it.reports}
    assert placeholder.pk not in planned
    assert len(planned) == 4 * 3 - 1  # every other report is planned


def test_a_drawn_report_order_leaves_the_empty_report_out():
    from annotation.annotate.page import ensure_report_order
    from annotation.models import Assignment

    study = make_study(questions=1, systems=3)
    annotator = make_annotators(1)[0]
    empty = Report.objects.filter(question__study=study).order_by("pk").first()
    Paragraph.objects.filter(report=empty).delete()
    a = Assignment.objects.create(
        study=study, annotator=annotator, question=empty.question, task="medal_ranking"
    )
    ensure_report_order(a)
    assert len(a.report_order) == 2 and empty.pk not in a.report_order


def test_a_question_whose_reports_have_no_text_is_left_out_saying_so():
    """Issue 26: the released ScholarQA-CS2 annotation files, imported alone, give each
    question three textless reports; the planner said "has no report" of questions whose
    reports the study lists. It says they have no text, and what to import."""
    study = make_study(questions=2, systems=3)
    make_annotators(3)
    first = Report.objects.filter(question__study=study).order_by("pk").first().question
    Paragraph.objects.filter(report__question=first).delete()  # three placeholders
    shown = preview(Study.objects.get(pk=study.pk), PlanSpec(task="medal_ranking", overlap=1))
    why = {u.key: u.reason for u in shown.left_out}
    assert why[first.external_id].startswith("has no report (medal ranking needs 2)")
    assert "3 other report(s) have no text" in why[first.external_id]
    assert "import the reports' text" in why[first.external_id]
    assert len(shown.left_out) == 1  # the other question is planned


def test_an_existing_report_set_with_an_empty_report_is_not_given_again():
    """A tester's HIGH defect: a pairwise import's assignment (deep-expert) holds a textless
    placeholder of a system whose report was not released; a metric-wise plan gave that
    question's next annotators the same set, the placeholder included, which no one can
    submit (claims need sources). The next annotators get a set chosen afresh, all readable."""
    from annotation.models import Assignment

    study = make_study(questions=2, systems=3, tasks=["pairwise"])
    first, *others = make_annotators(3)
    question = Report.objects.filter(question__study=study).order_by("pk").first().question
    empty, readable = list(Report.objects.filter(question=question).order_by("pk")[:2])
    Paragraph.objects.filter(report=empty).delete()  # as a pairwise-import placeholder
    Assignment.objects.create(study=study, annotator=first, question=question, task="pairwise",
                              report_order=[empty.pk, readable.pk])  # fmt: skip
    shown = preview(Study.objects.get(pk=study.pk),
                    PlanSpec(task="pairwise", overlap=2, annotators=[a.pk for a in others]))  # fmt: skip
    item = next(it for it in shown.items if it.question == question.pk)
    assert empty.pk not in item.reports
    assert len(item.reports) == 2
    assert all(empty.pk not in it.reports for it in shown.items)


def test_an_existing_readable_report_set_is_given_to_the_next_annotators():
    """Agreement needs every annotator of a question to judge the same reports: an existing
    set with every report readable is kept."""
    from annotation.models import Assignment

    study = make_study(questions=1, systems=4, tasks=["pairwise"])
    first, *others = make_annotators(3)
    question = study.questions.get()
    kept = list(
        Report.objects.filter(question=question).order_by("-pk").values_list("pk", flat=True)[:2]
    )
    Assignment.objects.create(study=study, annotator=first, question=question, task="pairwise",
                              report_order=kept)  # fmt: skip
    shown = preview(Study.objects.get(pk=study.pk),
                    PlanSpec(task="pairwise", overlap=2, annotators=[a.pk for a in others]))  # fmt: skip
    assert [it.reports for it in shown.items] == [tuple(sorted(kept))]
