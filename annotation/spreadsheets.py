"""Every CSV and XLSX this product writes goes through here: no typed text becomes a formula.

An annotator's reasoning, a note, a rationale or a system name that starts with ``=``, ``+``,
``-``, ``@``, a tab or a carriage return is read as a formula by spreadsheet programs (CSV
injection, OWASP). The rule, in one place:

- CSV: such a text cell is written with a leading apostrophe (OWASP's advice), and so is a
  text that already starts with an apostrophe, so :func:`csv_unescape` reads every cell back
  exactly. Numbers, and texts that are plain numbers such as ``-0.5``, stay as they are.
- XLSX: every text cell is stored as a string cell, never as a formula (``<f>``), so the text
  is kept exactly, with nothing added; numbers stay numeric cells.
"""

from __future__ import annotations

import csv
import re

TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
ESCAPE = "'"
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def csv_cell(value):
    """``value`` safe for a CSV cell (non-text values unchanged)."""
    if not isinstance(value, str) or not value:
        return value
    if value.startswith(ESCAPE) or (value.startswith(TRIGGERS) and not _NUMBER.fullmatch(value)):
        return ESCAPE + value
    return value


def csv_unescape(cell: str) -> str:
    """A cell written by :func:`csv_cell`, read back as the original text."""
    return cell[1:] if cell.startswith(ESCAPE) else cell


class _SafeWriter:
    def __init__(self, writer):
        self._writer = writer

    def writerow(self, row):
        return self._writer.writerow([csv_cell(v) for v in row])

    def writerows(self, rows):
        for row in rows:
            self.writerow(row)


class _SafeDictWriter(csv.DictWriter):
    def writerow(self, rowdict):
        return super().writerow({k: csv_cell(v) for k, v in rowdict.items()})

    def writerows(self, rowdicts):
        for row in rowdicts:
            self.writerow(row)


def csv_writer(out, **options) -> _SafeWriter:
    """``csv.writer`` whose every cell goes through :func:`csv_cell`."""
    return _SafeWriter(csv.writer(out, **options))


def csv_dict_writer(out, fieldnames, **options) -> csv.DictWriter:
    """``csv.DictWriter`` whose every cell (not the header) goes through :func:`csv_cell`."""
    return _SafeDictWriter(out, fieldnames=fieldnames, **options)


def xlsx_append(ws, values) -> None:
    """Append one row to an openpyxl worksheet (normal or write-only): text as text cells."""
    from openpyxl.cell import WriteOnlyCell

    row = []
    for value in values:
        cell = WriteOnlyCell(ws, value=value)
        if isinstance(value, str):
            cell.data_type = "s"  # never "f": a leading "=" is text, not a formula
        row.append(cell)
    ws.append(row)
