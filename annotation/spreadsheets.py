"""Every CSV and XLSX this product writes goes through here: no typed text becomes a formula.

An annotator's reasoning, a note, a rationale or a system name that starts with ``=``, ``+``,
``-``, ``@``, a tab or a carriage return is read as a formula by spreadsheet programs (CSV
injection, OWASP). The rule, in one place:

- CSV: such a text cell is written with a leading apostrophe (OWASP's advice), and so is a
  text that already starts with an apostrophe, so :func:`csv_unescape` reads every cell back
  exactly. Numbers, and texts that are plain numbers such as ``-0.5``, stay as they are.
  Escaping a leading apostrophe too is what makes the mapping one-to-one: without it,
  ``'=1`` written as it is would read back as ``=1``.
- Reading a CSV that Concord writes and reads back (judge scores, question fields) goes
  through :func:`csv_dict_reader`, which undoes exactly that escaping: an apostrophe is
  removed only where :func:`csv_cell` would have added it (``'=HYPERLINK(…)`` -> the
  formula's text, ``''quoted`` -> ``'quoted``), so export -> import -> export is stable
  and a cell no export writes (``'hello``, ``'-0.5`` typed by hand) is kept as it is. CSVs
  of outside releases (DeepScholar-Bench's tables) are read as they are: nothing escaped
  them.
- XLSX: every text cell is stored as a string cell, never as a formula (``<f>``), so the text
  is kept exactly, with nothing added; numbers stay numeric cells.
"""

from __future__ import annotations

import csv
import io
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
    """A cell written by :func:`csv_cell`, read back as the original text: the leading
    apostrophe goes only when :func:`csv_cell` of the rest gives the cell (it added it);
    any other cell, such as ``'hello`` typed by hand, is returned unchanged."""
    if cell.startswith(ESCAPE) and csv_cell(cell[1:]) == cell:
        return cell[1:]
    return cell


def csv_dict_reader(text: str, **options):
    """``csv.DictReader`` over ``text`` whose every text value goes through
    :func:`csv_unescape` (the header is read as it is); its ``fieldnames`` as usual."""
    return _UnescapingDictReader(io.StringIO(text), **options)


class _UnescapingDictReader(csv.DictReader):
    def __next__(self):
        row = super().__next__()
        return {k: csv_unescape(v) if isinstance(v, str) else v for k, v in row.items()}


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
    """Append one row to an openpyxl worksheet (normal or write-only): text as text cells.

    openpyxl reads a text starting with ``=`` as a formula and one of Excel's error codes
    (``#N/A``) as an error: only those go in as a cell marked text. Every other value goes in
    as it is, which openpyxl stores exactly so (a number as a number, any other text as
    text). Why not a cell for every value: a write-only sheet handed a cell first tries it as
    a value, fails and formats the failure's message before taking it, per cell; that made a
    5,745-judgment XLSX take 10 s against the CSV's 0.5 s (``bench/spreadsheet_export.py``).
    """
    row = [_text_cell(ws, v) if isinstance(v, str) and v.startswith(_NOT_TEXT) else v
           for v in values]  # fmt: skip
    ws.append(row)


#: How a text that openpyxl would not store as text starts: a formula or an error code.
_NOT_TEXT = ("=", "#")


def _text_cell(ws, value: str):
    from openpyxl.cell import WriteOnlyCell

    cell = WriteOnlyCell(ws, value=value)
    cell.data_type = "s"  # never "f" or "e": a leading "=" is text, not a formula
    return cell
