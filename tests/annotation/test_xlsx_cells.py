"""XLSX rows (``annotation.spreadsheets.xlsx_append``) hand openpyxl plain values and write
exactly the cells the earlier one-cell-per-value code wrote.

Why: a write-only sheet handed a cell object first tries it as a value and formats the
failure's message, per cell; the judgment export of 5,745 rows took 10 s as XLSX against
0.5 s as CSV (``bench/spreadsheet_export.py`` has the figures). No time is asserted here:
the sheet's XML is compared with what the old code wrote, byte for byte (and the judgment
export read back cell for cell: ``tests/security/test_formula_injection.py``).
"""

from __future__ import annotations

import io
import zipfile
from datetime import datetime

import pytest
from openpyxl import Workbook
from openpyxl.cell import WriteOnlyCell
from openpyxl.cell.cell import Cell

from annotation.spreadsheets import xlsx_append
from tests.security.test_formula_injection import PAYLOADS

ROWS = [
    ["header", "=", "#", "=1+1", "#N/A", "#DIV/0!", "#REF!", "# heading", "a=b"],
    [*PAYLOADS, "", None, 0, -0.25, 3, True, False],
    ["plain text", "'quoted", "-0.5", "1e-3", "émoji ✓", "line\nbreak", None, None, 7.5],
    [datetime(2026, 11, 27, 10, 0), "x" * 500],
]


def one_cell_per_value(ws, values) -> None:
    """The rule before: every value as a cell, text marked as text."""
    row = []
    for value in values:
        cell = WriteOnlyCell(ws, value=value)
        if isinstance(value, str):
            cell.data_type = "s"
        row.append(cell)
    ws.append(row)


def written(append, write_only: bool) -> dict[str, bytes]:
    wb = Workbook(write_only=write_only)
    ws = wb.create_sheet("s") if write_only else wb.active
    for values in ROWS:
        append(ws, values)
    buf = io.BytesIO()
    wb.save(buf)
    with zipfile.ZipFile(buf) as z:  # the cells and their texts (not the dated properties)
        return {n: z.read(n) for n in z.namelist() if n.startswith(("xl/worksheets/", "xl/shared"))}


@pytest.mark.parametrize("write_only", [True, False])
def test_the_same_cells_as_one_cell_per_value(write_only):
    new, old = written(xlsx_append, write_only), written(one_cell_per_value, write_only)
    assert new.keys() == old.keys() and new
    assert new == old
    xml = b"".join(new.values())
    assert b"<f>" not in xml and b't="e"' not in xml  # "=1+1" and "#N/A" stay text


def test_only_what_openpyxl_would_not_keep_as_text_goes_in_as_a_cell():
    """The fast path: plain values for everything else (each cell object cost a caught
    ValueError inside openpyxl's write-only sheet)."""

    class Sheet:
        def append(self, row):
            self.row = row

    sheet = Sheet()
    xlsx_append(sheet, ["text", 1, None, "=1+1", "#N/A", -0.5])
    cells = [v for v in sheet.row if isinstance(v, Cell)]
    assert [c.value for c in cells] == ["=1+1", "#N/A"]
    assert {c.data_type for c in cells} == {"s"}
    assert [v for v in sheet.row if not isinstance(v, Cell)] == ["text", 1, None, -0.5]
