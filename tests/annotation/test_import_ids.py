"""The ids an import finds and creates for questions and reports, read by the cursor
(``annotation.importers.structure``, issue 29): existing rows by key in chunks, new rows
by one range scan above the table's highest id, and only the import's own rows kept when
another writer's rows are above it too."""

import pytest

from annotation.importers import structure
from annotation.importers.base import ImportReport
from annotation.importers.common import insert_new
from annotation.models import Question, Report, Study, System

pytestmark = pytest.mark.django_db


def rep() -> ImportReport:
    return ImportReport(kind="reports", dry_run=False)


def test_question_ids_by_key_in_chunks_found_and_created(monkeypatch):
    """Keys read in chunks (here of 2): the stored questions found, the new ones created,
    and another study's question of the same key neither found nor touched."""
    monkeypatch.setattr(structure, "_IN_CHUNK", 2)
    study, other = Study.objects.create(name="s"), Study.objects.create(name="o")
    stored = {k: Question.objects.create(study=study, external_id=k, text=k).pk for k in "abc"}
    theirs = Question.objects.create(study=other, external_id="d", text="d")
    wanted = {k: {"text": k} for k in "abcde"}
    r = rep()
    ids = structure.ensure_question_ids(study, wanted, r, by_key=True)
    truth = dict(Question.objects.filter(study=study).values_list("external_id", "id"))
    assert ids == truth and set(ids) == set("abcde")
    assert {k: ids[k] for k in "abc"} == stored
    assert theirs.pk not in ids.values()
    assert r.created == {"Question": 2} and r.unchanged == {"Question": 3}


def test_question_ids_created_ignore_rows_another_study_inserts_meanwhile(monkeypatch):
    """A question another import inserted after the highest id was read (its key the same
    as one created here, in its own study) is not taken for this study's."""
    study, other = Study.objects.create(name="s"), Study.objects.create(name="o")
    real_insert = structure.insert_new

    def meanwhile(model, rows, **kw):
        n = real_insert(model, rows, **kw)
        if model is Question:  # above this import's rows: the last of the range scan
            insert_new(Question, [{"study": other.pk, "external_id": "x", "text": "theirs"}])
        return n

    monkeypatch.setattr(structure, "insert_new", meanwhile)
    ids = structure.ensure_question_ids(study, {"x": {"text": "ours"}}, rep())
    assert Question.objects.get(pk=ids["x"]).study_id == study.pk
    assert Question.objects.get(pk=ids["x"]).text == "ours"


def test_report_ids_created_among_another_writers_rows(monkeypatch):
    """Reports created here are found by (question, system) among the rows above the
    highest id, whoever inserted them: a report of another system on the same question,
    inserted meanwhile, is neither returned nor counted as created here."""
    study = Study.objects.create(name="s")
    q1, q2 = (Question.objects.create(study=study, external_id=k, text=k) for k in ("q1", "q2"))
    mine, theirs = (System.objects.create(study=study, name=n) for n in ("mine", "theirs"))
    kept = Report.objects.create(question=q1, system=mine)
    real_insert = structure.insert_new

    def meanwhile(model, rows, **kw):
        n = real_insert(model, rows, **kw)
        if model is Report:
            insert_new(Report, [{"question": q2.pk, "system": theirs.pk}])
        return n

    monkeypatch.setattr(structure, "insert_new", meanwhile)
    r = rep()
    ids, new_ids = structure.ensure_report_ids(
        [("q1", "mine"), ("q2", "mine")], {"mine": mine.pk}, {"q1": q1.pk, "q2": q2.pk}, r
    )
    created = Report.objects.get(question=q2, system=mine)
    assert ids == {("q1", "mine"): kept.pk, ("q2", "mine"): created.pk}
    assert new_ids == {created.pk}
    assert r.created == {"Report": 1}


def test_report_ids_by_key_in_chunks(monkeypatch):
    """A part's reports looked up by question in chunks (here of 1): each found once."""
    monkeypatch.setattr(structure, "_IN_CHUNK", 1)
    study = Study.objects.create(name="s")
    qs = [Question.objects.create(study=study, external_id=f"q{i}", text="t") for i in range(3)]
    system = System.objects.create(study=study, name="sys")
    stored = {q.external_id: Report.objects.create(question=q, system=system).pk for q in qs[:2]}
    ids, new_ids = structure.ensure_report_ids(
        [(q.external_id, "sys") for q in qs], {"sys": system.pk},
        {q.external_id: q.pk for q in qs}, rep(), by_key=True,
    )  # fmt: skip
    assert {k: ids[(k, "sys")] for k in stored} == stored
    assert new_ids == {ids[("q2", "sys")]} == {Report.objects.get(question=qs[2]).pk}


def test_no_pairs_no_reports_and_no_query(django_assert_num_queries):
    with django_assert_num_queries(0):
        assert structure.ensure_report_ids([], {}, {}, rep()) == ({}, set())
