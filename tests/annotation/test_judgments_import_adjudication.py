"""Relevance adjudications re-import (issue 26): a record of the judgments export carries
the disagreement it decides, and another study with the same reports and the same judge's
relevance verdicts gets the annotator's submitted adjudication assignment, the frozen
disagreement and the decision — checked as the task page checks a posted decision, refused
naming record and field (nothing written) when wrong, unchanged when imported again."""

import json

import pytest

from annotation.exporters import judgment_records
from annotation.importers import ImportFailed, run
from annotation.models import (
    Annotator,
    Assignment,
    RelevanceAdjudication,
    RelevanceDisagreement,
    Study,
)
from tests.builders.content import make_question, make_study
from tests.builders.quality import S0, S1

pytestmark = pytest.mark.django_db
TASK = Study.Task.RELEVANCE_ADJUDICATION


def record(**over) -> dict:
    """One adjudication: Expert-1 labelled paragraph 1 of S0 O, the judge found it relevant,
    Expert-1 switched to the judge's label (R)."""
    out = {
        "kind": "relevance_adjudication", "annotator": "Expert-1", "setting": "assigned",
        "question": "q1", "system": S0, "paragraph": 1, "judge": "judge-x",
        "annotator_label": "O", "judge_relevant": True,
        "judge_rationale": "Explains [a system]'s method.", "decision": "switch",
        "reason": "I misread it.", "final_label": "R",
    }  # fmt: skip
    return {**out, **over}


def as_file(*records) -> bytes:
    return "\n".join(json.dumps(r) for r in records).encode()


def study_with_verdicts(name="B", judge="judge-x"):
    """A study with question q1 (two reports of two paragraphs) and the judge's relevance
    verdicts on it, imported as kind judge_scores, format relevance."""
    study = make_study(name)
    make_question(study, n_reports=2, paragraphs=2, external_id="q1")
    verdicts = [
        {"question_id": "q1", "system": s, "paragraph": p, "relevant": True}
        for s in (S0, S1)
        for p in (1, 2)
    ]
    run("judge_scores", as_file(*verdicts), study=study, format="relevance", judge=judge)
    return study


def written(study) -> tuple[int, int, int, int]:
    return (
        Annotator.objects.count(),
        Assignment.objects.filter(study=study).count(),
        RelevanceDisagreement.objects.filter(assignment__study=study).count(),
        RelevanceAdjudication.objects.filter(study=study).count(),
    )


def test_adjudications_import_with_their_assignment_and_disagreement_and_export_back():
    b = study_with_verdicts()
    file = as_file(
        record(system=S1, paragraph=2, annotator_label="U", judge_relevant=False,
               decision="keep", final_label="U"),
        record(),  # the same assignment: second in the record order
        record(annotator="Expert-2", annotator_label="U", judge_relevant=False,
               decision="subjective", reason="", final_label="U"),
    )  # fmt: skip
    rep = run("judgments", file, study=b)
    assert rep.created == {"Annotator": 2, "Assignment": 2, "RelevanceDisagreement": 3,
                           "RelevanceAdjudication": 3}  # fmt: skip
    one = Assignment.objects.get(study=b, annotator__pseudonym="Expert-1")
    assert (one.task, one.status, one.setting) == (TASK, "submitted", "assigned")
    assert one.submitted_at is not None
    assert sorted(one.report_order) == sorted(
        b.questions.get().reports.values_list("pk", flat=True)
    )
    found = list(RelevanceDisagreement.objects.filter(assignment=one).order_by("position"))
    assert [(d.paragraph.report.system.name, d.paragraph.number, d.position) for d in found] == [
        (S1, 2, 1), (S0, 1, 2)
    ]  # fmt: skip
    d = found[1]
    assert (d.judge.name, d.annotator_label, d.judge_relevant, d.judge_rationale) == (
        "judge-x", "O", True, "Explains [a system]'s method."
    )  # fmt: skip
    adj = d.adjudication
    assert (adj.decision, adj.reason, adj.final_label, adj.assignment_id) == (
        "switch", "I misread it.", "R", one.pk
    )  # fmt: skip
    # export -> import into a third study -> export: the same records
    c = study_with_verdicts("C")
    out = "".join(json.dumps(r) + "\n" for r in judgment_records(b))
    run("judgments", out.encode(), study=c)
    drop = {"id", "report", "created_at", "updated_at"}

    def same(study):
        return sorted(json.dumps({k: v for k, v in r.items() if k not in drop}, sort_keys=True)
                      for r in judgment_records(study))  # fmt: skip

    assert same(c) == same(b) and len(same(b)) == 3
    assert {json.loads(r)["task"] for r in same(c)} == {TASK}
    # an identical re-import changes nothing
    before = written(b)
    again = run("judgments", file, study=b)
    assert not again.created and not again.updated
    assert again.unchanged["RelevanceAdjudication"] == 3
    assert written(b) == before


def test_a_changed_decision_updates_and_an_open_assignment_is_reused_and_submitted():
    b = study_with_verdicts()
    run("judgments", as_file(record()), study=b)
    a = Assignment.objects.get(study=b)
    a.status, a.submitted_at = "in_progress", None
    a.save()
    rep = run("judgments", as_file(record(decision="keep", final_label="O", reason="")),
              study=b)  # fmt: skip
    assert rep.updated == {"Assignment": 1, "RelevanceAdjudication": 1}
    adj = RelevanceAdjudication.objects.get()
    assert (adj.decision, adj.final_label, adj.reason) == ("keep", "O", "")
    a.refresh_from_db()
    assert a.status == "submitted" and a.submitted_at is not None
    assert written(b)[1:] == (1, 1, 1)


def test_an_unknown_judge_is_refused_naming_record_and_field():
    b = study_with_verdicts()
    study_with_verdicts("Elsewhere", judge="judge-y")  # its verdicts are another study's
    with pytest.raises(ImportFailed) as failed:
        run("judgments", as_file(record(), record(paragraph=2, judge="judge-y")), study=b)
    assert [(p.record, p.field) for p in failed.value.problems] == [(2, "judge")]
    assert "no judge 'judge-y' in the study" in str(failed.value)
    assert written(b) == (0, 0, 0, 0)


@pytest.mark.parametrize(
    "over, field, says",
    [
        ({"decision": "maybe"}, "decision", "'maybe' is not keep, switch or subjective"),
        ({"decision": ""}, "decision", "required"),
        ({"final_label": "U"}, "final_label", "U does not follow from switch: R (the judge's"),
        ({"decision": "keep"}, "final_label", "R does not follow from keep: O (the annotator's"),
        ({"final_label": "X"}, "final_label", "'X' is not R, U or O"),
        ({"annotator_label": "R", "final_label": "R"}, "annotator_label",
         "R agrees with the judge's verdict"),
        ({"judge_relevant": "yes"}, "judge_relevant", "'yes' is not true or false"),
        ({"reason": "x" * 5001}, "reason", "longer than 5000 characters"),
        ({"paragraph": 9}, "paragraph", "no paragraph of question / system / number"),
        ({"judge": None}, "judge", "expected a judge's name"),
    ],
)  # fmt: skip
def test_an_invalid_adjudication_is_refused_naming_record_and_field(over, field, says):
    b = study_with_verdicts()
    with pytest.raises(ImportFailed) as failed:
        run("judgments", as_file(record(paragraph=2), record(**over)), study=b)
    problems = failed.value.problems
    assert [(p.record, p.field) for p in problems] == [(2, field)], problems
    assert says in problems[0].message
    assert written(b) == (0, 0, 0, 0)


def test_conflicting_adjudications_are_refused():
    b = study_with_verdicts()
    # two records of one paragraph's adjudication that disagree
    with pytest.raises(ImportFailed, match="conflicts with record 1"):
        run("judgments", as_file(record(), record(decision="keep", final_label="O")), study=b)
    assert written(b) == (0, 0, 0, 0)
    # a stored disagreement with other frozen values: what was adjudicated cannot change
    run("judgments", as_file(record()), study=b)
    before = written(b)
    with pytest.raises(ImportFailed) as failed:
        run("judgments", as_file(record(judge_rationale="Another rationale.")), study=b)
    [problem] = failed.value.problems
    assert (problem.record, problem.field) == (1, "judge_rationale")
    assert "cannot change" in problem.message
    assert written(b) == before


def test_the_import_makes_as_many_queries_for_one_adjudication_as_for_many():
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def queries(study, *records) -> int:
        with CaptureQueriesContext(connection) as seen:
            run("judgments", as_file(*records), study=study)
        return len(seen)

    many = [
        record(annotator=f"Expert-{i}", system=s, paragraph=p)
        for i in range(3)
        for s in (S0, S1)
        for p in (1, 2)
    ]
    assert queries(study_with_verdicts("B"), record()) == queries(study_with_verdicts("C"), *many)
