"""The ResearchQA coverage import runs a fixed number of queries whatever the file's size
(issue 16, Scale: 2.9 million judge labels arrive as 18 such files)."""

from __future__ import annotations

import json

import pytest

from annotation import importers
from judges.models import JudgeCoverage

pytestmark = pytest.mark.django_db
#: Queries of one coverage import (study index, judge, stored rows, insert, derived scores,
#: ensembles): 22 measured on SQLite, 26 on PostgreSQL (an update of many rows goes through
#: a temporary table: create, COPY, update, drop); the same bound holds at both sizes.
MAX_QUERIES = 28


def _study(name: str, n_questions: int, systems=("alpha", "beta")) -> dict:
    """Questions with 3-item rubrics and one short report per system, imported."""
    rubric = {f"q{q}": [f"aspect {i} of topic {q}" for i in range(3)] for q in range(n_questions)}
    questions = [{"id": qid, "query": f"question {qid}?", "field": "f",
                  "rubric": [{"rubric_item": t, "type": "information"} for t in items]}
                 for qid, items in rubric.items()]  # fmt: skip
    importers.run("questions", "\n".join(map(json.dumps, questions)).encode(), study=name,
                  format="researchqa")  # fmt: skip
    for system in systems:
        answers = {qid: {"answer": f"answer of {system} to {qid} [1]."} for qid in rubric}
        importers.run("reports", json.dumps(answers).encode(), study=name, format="researchqa",
                      system=system)  # fmt: skip
    return rubric


def _coverage(rubric: dict, label: str) -> bytes:
    return json.dumps(
        {qid: [{"rubric": t, "score": label} for t in items] for qid, items in rubric.items()}
    ).encode()


@pytest.mark.parametrize("n_questions", [2, 40])
def test_coverage_import_queries_do_not_grow_with_rows(n_questions, django_assert_max_num_queries):
    rubric = _study(f"s{n_questions}", n_questions)
    importers.run("judge_scores", _coverage(rubric, "Mostly"), study=f"s{n_questions}",
                  format="researchqa-coverage", judge="j", system="beta")  # fmt: skip
    with django_assert_max_num_queries(MAX_QUERIES):
        rep = importers.run("judge_scores", _coverage(rubric, "Barely"), study=f"s{n_questions}",
                            format="researchqa-coverage", judge="j", system="alpha")  # fmt: skip
    assert rep.created["JudgeCoverage"] == 3 * n_questions
    with django_assert_max_num_queries(MAX_QUERIES):  # a re-import that updates every row
        rep = importers.run("judge_scores", _coverage(rubric, "Completely"),
                            study=f"s{n_questions}", format="researchqa-coverage", judge="j",
                            system="alpha")  # fmt: skip
    assert rep.updated["JudgeCoverage"] == 3 * n_questions
    assert set(JudgeCoverage.objects.filter(report__system__name="alpha")
               .values_list("label", flat=True)) == {4}  # fmt: skip


def _import_files(name: str, rubric: dict, systems: tuple[str, ...]) -> None:
    """One report file and one coverage file per system, for the questions of ``rubric``."""
    for system in systems:
        answers = {qid: {"answer": f"answer of {system} to {qid} [1]."} for qid in rubric}
        importers.run("reports", json.dumps(answers).encode(), study=name, format="researchqa",
                      system=system)  # fmt: skip
    for system in systems:
        importers.run("judge_scores", _coverage(rubric, "Mostly"), study=name,
                      format="researchqa-coverage", judge="j", system=system)  # fmt: skip


def test_import_queries_do_not_grow_with_the_study():
    """The same 6 files (3 report files, 3 coverage files, 4 questions each) into a small
    study and into one with 15× the questions and 3× the systems, all judged by the same
    judge: the same number of queries (issue 16: the import used to re-derive the judge's
    scores over the whole study after each file)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    counts = {}
    for name, n_questions, others in (("small", 4, ("a", "b")), ("big", 60, ("a", "b", "c", "d", "e", "f"))):  # fmt: skip
        rubric = _study(name, n_questions, systems=others)
        for system in others:
            importers.run("judge_scores", _coverage(rubric, "Barely"), study=name,
                          format="researchqa-coverage", judge="j", system=system)  # fmt: skip
        with CaptureQueriesContext(connection) as queries:
            _import_files(name, dict(list(rubric.items())[:4]), ("x", "y", "z"))
        counts[name] = len(queries)
    assert counts["small"] == counts["big"], counts
    big = JudgeCoverage.objects.filter(report__question__study__name="big")
    assert big.filter(report__system__name__in=["x", "y", "z"]).count() == 3 * 4 * 3


def test_an_import_derives_the_scores_of_its_own_reports_only():
    """A file's import re-derives the scores of the reports it touched, not the study's:
    a score of another system is left as it is (a whole-study finalize sets it again)."""
    from annotation.models import Study
    from judges.kinds import finalize
    from judges.models import Judge, JudgeScore

    rubric = _study("scope", 3)
    for system, label in (("alpha", "Barely"), ("beta", "Completely")):
        importers.run("judge_scores", _coverage(rubric, label), study="scope",
                      format="researchqa-coverage", judge="j", system=system)  # fmt: skip
    scores = JudgeScore.objects.filter(
        metric="rubric_coverage", report__question__study__name="scope"
    )
    assert sorted(set(scores.values_list("report__system__name", "value"))) == [("alpha", 0.25), ("beta", 1.0)]  # fmt: skip
    scores.filter(report__system__name="alpha").update(value=0.5)  # not what alpha's labels say
    importers.run("judge_scores", _coverage(rubric, "Moderately"), study="scope",
                  format="researchqa-coverage", judge="j", system="beta")  # fmt: skip
    assert sorted(set(scores.values_list("report__system__name", "value"))) == [("alpha", 0.5), ("beta", 0.5)]  # fmt: skip
    finalize(Judge.objects.get(name="j"), Study.objects.get(name="scope").pk)
    assert set(scores.filter(report__system__name="alpha").values_list("value", flat=True)) == {
        0.25
    }


def test_coverage_imported_after_the_pairwise_judgments_makes_the_ensemble():
    """The ensemble of a pair needs both reports' coverage: importing the second system's
    coverage last decides the pairs whose other side was imported before."""
    from judges.models import JudgePairwise

    rubric = _study("order", 2)
    pairwise = [{"session_id": qid, "implementation_A": "alpha", "implementation_B": "beta",
                 "judge": "A", "judge_swapped": "A"} for qid in rubric]  # fmt: skip
    importers.run("judge_scores", json.dumps(pairwise).encode(), study="order",
                  format="researchqa-pairwise", judge="j")  # fmt: skip
    ensemble = JudgePairwise.objects.filter(
        protocol="ensemble", left__question__study__name="order"
    )
    importers.run("judge_scores", _coverage(rubric, "Barely"), study="order",
                  format="researchqa-coverage", judge="j", system="alpha")  # fmt: skip
    assert not ensemble.exists()  # beta's coverage is missing
    importers.run("judge_scores", _coverage(rubric, "Completely"), study="order",
                  format="researchqa-coverage", judge="j", system="beta")  # fmt: skip
    # alpha preferred in both orders: 4·2 + 3 × 1 vs 3 × 4
    assert sorted(ensemble.values_list("left__system__name", "score_left", "score_right",
                                       "choice")) == [("alpha", 11.0, 12.0, "right")] * 2  # fmt: skip


def test_a_file_completing_a_reports_labels_scores_it_from_both_files():
    """The second file's import scores a report from the labels stored before and its own
    (finalize takes them from the import's diff, not from a read-back): the first file's
    labels alone are incomplete (no score), both together are complete."""
    from judges.models import JudgeScore

    rubric = _study("halves", 2)
    first = {qid: [{"rubric": t, "score": "Barely"} for t in items[:2]] for qid, items in rubric.items()}  # fmt: skip
    rest = {qid: [{"rubric": items[2], "score": "Completely"}] for qid, items in rubric.items()}
    scores = JudgeScore.objects.filter(
        report__question__study__name="halves", metric="rubric_coverage"
    )
    importers.run("judge_scores", json.dumps(first).encode(), study="halves",
                  format="researchqa-coverage", judge="j", system="alpha")  # fmt: skip
    assert not scores.exists()  # two of three items labelled: incomplete evidence
    rep = importers.run("judge_scores", json.dumps(rest).encode(), study="halves",
                        format="researchqa-coverage", judge="j", system="alpha")  # fmt: skip
    assert rep.created["JudgeCoverage"] == 2
    # (1 + 1 + 4) / 3 / 4 per report
    assert sorted(scores.values_list("value", flat=True)) == [0.5, 0.5]


def test_any_of_filters_as_in_does():
    """``__any_of`` (one array parameter on PostgreSQL) selects what ``__in`` selects, on a
    key and through a relation; an empty list selects nothing."""
    from annotation import id_lookup  # noqa: F401 - registers the lookup
    from annotation.models import Report, RubricItem

    _study("anyof", 3)
    ids = list(Report.objects.filter(question__study__name="anyof").values_list("id", flat=True))
    some = ids[::2]
    assert set(Report.objects.filter(pk__any_of=some).values_list("id", flat=True)) == set(some)
    questions = set(Report.objects.filter(pk__in=some).values_list("question_id", flat=True))
    assert set(RubricItem.objects.filter(rubric__question__any_of=questions).values_list("id", flat=True)) == set(
        RubricItem.objects.filter(rubric__question__in=questions).values_list("id", flat=True)
    )  # fmt: skip
    assert not Report.objects.filter(pk__any_of=[]).exists()


def _extra_rubric(name: str, texts_of: dict) -> None:
    """A second rubric (kind ``extra``) for questions of study ``name``."""
    from annotation.models import Question, Rubric, RubricItem

    for qid, texts in texts_of.items():
        question = Question.objects.get(study__name=name, external_id=qid)
        rubric = Rubric.objects.create(question=question, kind="extra")
        for position, text in enumerate(texts):
            RubricItem.objects.create(rubric=rubric, position=position, text=text)


def test_a_report_is_scored_when_every_rubric_of_its_question_is_labelled():
    """An import with a rubric kind matches that rubric's items only, but a report's
    coverage is complete only when the items of every rubric of its question are labelled
    (the import hands finalize the items it read: all of them, not just that kind's); the
    same scores as finalize reading the items itself (a live run's path)."""
    from annotation.models import Study
    from judges.kinds import finalize
    from judges.models import Judge, JudgeScore

    rubric = _study("kinds", 2)
    _extra_rubric("kinds", {qid: [f"extra point of {qid}"] for qid in rubric})
    scores = JudgeScore.objects.filter(
        report__question__study__name="kinds", metric="rubric_coverage"
    )
    rep = importers.run("judge_scores", _coverage(rubric, "Completely"), study="kinds",
                        format="researchqa-coverage", judge="j", system="alpha",
                        rubric_kind="researchqa")  # fmt: skip
    assert rep.created["JudgeCoverage"] == 6
    assert not scores.exists()  # the extra rubric's items have no label yet
    extra = {qid: [{"rubric": f"extra point of {qid}", "score": "Barely"}] for qid in rubric}
    importers.run("judge_scores", json.dumps(extra).encode(), study="kinds",
                  format="researchqa-coverage", judge="j", system="alpha", rubric_kind="extra")  # fmt: skip
    assert sorted(scores.values_list("value", flat=True)) == [0.8125, 0.8125]  # (3·4 + 1) / 4 / 4
    scores.update(value=0)
    finalize(Judge.objects.get(name="j"), Study.objects.get(name="kinds").pk)
    assert sorted(scores.values_list("value", flat=True)) == [0.8125, 0.8125]


def test_a_label_finds_its_item_by_normalised_text_and_refuses_an_ambiguous_one():
    """A label's text matches an item after collapsing whitespace and case-folding, as well
    as verbatim; two items of a question with the same normalised text are refused even
    when the label repeats one of them verbatim (pass a rubric kind), and a rubric kind
    tells them apart."""
    from annotation.importers import ImportFailed

    rubric = _study("norm", 1)
    (qid, texts), = rubric.items()  # fmt: skip
    loose = {qid: [{"rubric": "  " + texts[0].upper().replace(" ", " \n "), "score": "Mostly"},
                   *({"rubric": t, "score": "Mostly"} for t in texts[1:])]}  # fmt: skip
    rep = importers.run("judge_scores", json.dumps(loose).encode(), study="norm",
                        format="researchqa-coverage", judge="j", system="alpha")  # fmt: skip
    assert rep.created["JudgeCoverage"] == 3
    _extra_rubric("norm", {qid: [texts[1].title()]})  # the same text up to case
    with pytest.raises(ImportFailed, match="matches 2 rubric items; pass a rubric kind"):
        importers.run("judge_scores", _coverage(rubric, "Barely"), study="norm",
                      format="researchqa-coverage", judge="j", system="alpha")  # fmt: skip
    rep = importers.run("judge_scores", _coverage(rubric, "Barely"), study="norm",
                        format="researchqa-coverage", judge="j", system="alpha",
                        rubric_kind="researchqa")  # fmt: skip
    assert rep.updated["JudgeCoverage"] == 3


def test_normalising_is_idempotent():
    """The study index files each item under its stored text and its normalised text in
    one dict; a label equal to some item's normalised text must normalise to that same
    text, which holds when case-folding neither creates nor removes whitespace and folding
    twice changes nothing (checked on every code point that case-folds or is a space)."""
    import sys

    from judges.formats.judge_scores import _norm

    chars = [c for c in map(chr, range(sys.maxunicode + 1)) if c.casefold() != c or c.isspace()]
    for c in chars:
        text = f" a{c}b {c}"
        assert _norm(_norm(text)) == _norm(text), hex(ord(c))
