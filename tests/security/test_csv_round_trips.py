"""A CSV that Concord writes and reads back round-trips through its formula escaping
(annotation.spreadsheets): the importer removes exactly the apostrophe the exporter added.
Before, re-importing the judge scores' CSV stored ``'=HYPERLINK(…)`` and every round trip
added one more apostrophe; the questions' CSV was written with no escaping at all."""

from __future__ import annotations

import io

import pytest

from annotation.models import Question
from annotation.spreadsheets import csv_cell, csv_dict_reader, csv_unescape, csv_writer
from judges.formats.judge_scores import dump_csv
from judges.importers import import_judge_scores
from judges.models import JudgeScore
from studio.studyadmin import question_fields
from tests.builders.judged import build_study

from .test_formula_injection import PAYLOADS

#: Texts that must come back as they were: formulas, and texts that start with an
#: apostrophe in the source data (escaped too, so the mapping is one-to-one).
TEXTS = [*PAYLOADS, "'quoted", "''twice", "'=1+1", "'-0.5", "-0.5", "plain"]


def test_unescape_undoes_exactly_what_the_exporter_adds():
    for text in TEXTS:
        assert csv_unescape(csv_cell(text)) == text
    # cells no export writes are kept: the apostrophe was not Concord's
    for typed in ("'hello", "'-0.5", "'", "'a=b"):
        assert csv_cell(typed) != typed and csv_unescape(typed) == typed
    rows = list(csv_dict_reader("a,b\n'=1,'x\n"))
    assert rows == [{"a": "=1", "b": "'x"}]


@pytest.mark.django_db
def test_judge_scores_csv_export_import_export_is_stable():
    study = build_study("rt", questions=1, systems=("a", "b", "c"))
    # (a rationale is imported stripped: no leading tab or CR here)
    reasons = {"a": TEXTS[0], "b": "'quoted", "c": "-2+3"}
    out = io.StringIO()
    csv_writer(out).writerows(
        [["question", "system", "metric", "value", "rationale"]]
        + [["q1", s, "overall", "0.5", r] for s, r in reasons.items()]
    )
    import_judge_scores(out.getvalue().encode(), study=study, judge="j", format="csv")
    stored = dict(JudgeScore.objects.values_list("report__system__name", "rationale"))
    assert stored == reasons
    first = dump_csv(study, judge="j")["judge_scores.csv"]
    import_judge_scores(first.encode(), study=study, judge="j", format="csv")
    assert dict(JudgeScore.objects.values_list("report__system__name", "rationale")) == reasons
    assert dump_csv(study, judge="j")["judge_scores.csv"] == first


@pytest.mark.django_db
def test_the_questions_csv_is_escaped_and_reads_back(tmp_path):
    study = build_study("qf", questions=1, systems=("a",))
    q = Question.objects.get()
    q.external_id, q.text = "=q1", "@SUM(A1:A9) of attention"
    q.save()
    out = question_fields.questions_csv(study)
    assert "\n'=q1,'@SUM(A1:A9) of attention," in out  # no formula reaches a spreadsheet
    edited = out.replace("of attention,,", "of attention,Computer science,NLP")
    upload = tmp_path / "fields.csv"
    upload.write_text(edited, encoding="utf-8")
    result = question_fields.upload(study, upload)
    q.refresh_from_db()
    assert result.changed == 1 and (q.field, q.subdomain) == ("Computer science", "NLP")
    assert question_fields.questions_csv(study) == edited
