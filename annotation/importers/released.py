"""Reports as their file released them, kept so an export gives the file back (issue 25).

What annotators read is normalised (``annotation.normalise``: one marker style, sources
renumbered, system markup removed); a team that takes its data out again wants the report
as its system wrote it, not as Concord restyled it. So each report format's reader keeps
every record it read for a report, verbatim, in ``Report.original["released"]``:

``[{"format": name, "record": n, "data": the record as parsed JSON}]``

(one entry per record: a ScholarQA-CS2 question asked twice keeps both records on the one
report), with the ``layout`` of its file (:func:`layout_of`: JSON list or JSON lines,
indentation, line ending). The format's writer puts these records back in record order
and in that layout, so the first export equals the imported file record for record, byte
for byte when ``json.dumps`` wrote it (every released ScholarQA-CS2 report file; spacing
inside a record and escapes are ``json.dumps``'), and export -> re-import -> export is
identical.
The file's name is not kept: the same records read from a file of another name are the
same reports, and so are the same records laid out anew (another indent, JSON lines): a
re-import of them counts them unchanged and keeps the new layout, so the export writes the
file imported last (:func:`without_layout`); a record changed only in key order or value
types is updated. Reports of one system imported from several files come back as one file,
interleaved by record number. A report with no kept record of that format (written through
the API, or
imported in another format) is written from its stored structure as before; a report with
neither a kept record nor any text (the textless placeholders the ScholarQA-CS2 pairwise
import creates for the assigned and chosen questions) is no report of the system and is
not written.

The kept record follows the report: ``write_structures`` replaces ``Report.original``
whenever the report is stored again, so a record never outlives the text it came from.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from annotation.models import Report, Section

from .structure import ReportInput, StoredReport, stored_reports

KEY = "released"


def keep(item: ReportInput, fmt: str, record: int, data) -> None:
    """Keep ``data`` (record number ``record`` of its file, as parsed) with ``item``."""
    item.original_extra.setdefault(KEY, []).append({"format": fmt, "record": record, "data": data})


#: The key of a kept record's file layout (:func:`layout_of`).
LAYOUT = "layout"
#: The layout of a file that said none (written before layouts were kept): a JSON list
#: indented by 1, as every writer wrote it.
DEFAULT_LAYOUT = {"lines": False, "indent": 1, "newline": "\n", "final_newline": True,
                  "ascii": False}  # fmt: skip
_FIRST_ITEM = re.compile(r"\[(\r?\n)?( *)\S")


def layout_of(text: str) -> dict:
    """How a file of records is laid out, cheaply read from its text: JSON lines or a JSON
    list (``lines``), the list's ``indent`` (spaces before its first record; None for a
    list on one line), the line ending (``newline``), whether the file ends with one, and
    whether it is ``ascii`` (other characters escaped).

    Why: an export gives the file back in the layout it was imported in (the 2-space and
    4-space released lists came back indented by 1; a JSON lines file a JSON list). The
    records inside are written by ``json.dumps``: a file ``json.dumps`` wrote (every
    released ScholarQA-CS2 report file) comes back byte for byte; another equals it record
    for record (key spacing and escaped slashes are json's)."""
    head = text[:65536]
    newline = "\r\n" if "\r\n" in head else "\n"
    start = head.lstrip("\ufeff \t\r\n")
    # an ASCII file escapes whatever else it holds (\u00e9): written so again
    kept = {"newline": newline, "final_newline": text.endswith("\n"), "ascii": text.isascii()}
    if not start.startswith("["):
        return {"lines": True, "indent": None, **kept}
    first = _FIRST_ITEM.match(start)
    indent = len(first.group(2)) if first and first.group(1) else None
    return {"lines": False, "indent": indent, **kept}


def without_layout(original):
    """``original`` (a report's :attr:`Report.original`) with no kept record's layout: what
    a re-import compares to tell a changed record from a file laid out anew."""
    if not isinstance(original, dict) or not original.get(KEY):
        return original
    kept = [
        {k: v for k, v in entry.items() if k != LAYOUT} if isinstance(entry, dict) else entry
        for entry in original[KEY]
    ]
    return {**original, KEY: kept}


def mark_layout(inputs, text: str | None) -> None:
    """Keep the layout of the file ``text`` (:func:`layout_of`) with every record kept
    for ``inputs`` (a folder, no text: nothing kept)."""
    if text is None:
        return
    layout = layout_of(text)
    for item in inputs:
        for entry in item.original_extra.get(KEY, ()):
            entry[LAYOUT] = layout


def dumps(records: list, kept: list[dict]) -> tuple[str, bool]:
    """``records`` as the file the ``kept`` records (:func:`for_export`) were read from:
    in its layout (the first kept record's; :data:`DEFAULT_LAYOUT` when none says one),
    and whether that is JSON lines (the writer names the file ``.jsonl``)."""
    import json

    layout = next((e[LAYOUT] for e in kept if e.get(LAYOUT)), DEFAULT_LAYOUT)
    ascii = layout.get("ascii", False)
    if layout["lines"]:
        text = "\n".join(json.dumps(r, ensure_ascii=ascii) for r in records)
    else:
        text = json.dumps(records, ensure_ascii=ascii, indent=layout["indent"])
    if layout["final_newline"] or layout["lines"]:
        text += "\n"
    # json.dumps escapes a line break inside a string: every one left is the layout's
    return (text.replace("\n", "\r\n") if layout["newline"] == "\r\n" else text), layout["lines"]


@dataclass
class Written:
    """One system's reports as a writer needs them: the kept records (in file and record
    order) and, for reports without one, the stored report to build a record from."""

    records: list[dict]
    rebuilt: list[StoredReport]


def for_export(study, system: str, fmt: str) -> Written:
    """The kept ``fmt`` records (record order) of ``system``'s reports in ``study``; the other reports
    that have text as stored reports; textless reports left out (module doc). Three
    queries, plus :func:`stored_reports`' when some report has no kept record."""
    reports = Report.objects.filter(question__study=study, system__name=system)
    kept, others = [], set()
    for qid, original in reports.values_list("question__external_id", "original"):
        entries = [e for e in (original or {}).get(KEY, []) if e.get("format") == fmt]
        if entries:
            kept += [(e["record"], qid, e) for e in entries]
        else:
            others.add(qid)
    kept.sort(key=lambda k: k[:2])
    rebuilt = with_text(study, system, others) if others else []
    return Written([e for *_, e in kept], rebuilt)


def with_text(study, system: str, questions: set[str] | None = None) -> list[StoredReport]:
    """``system``'s stored reports in ``study`` (of ``questions`` only, when given) that have
    text: a textless placeholder (the ScholarQA-CS2 pairwise import creates one for each
    assigned or chosen question whose report was not released) is no report of the
    system, so no writer writes it (an empty file its importer refuses). Two queries, plus
    :func:`stored_reports`' when some report has text."""
    reports = Report.objects.filter(question__study=study, system__name=system)
    if questions is not None:
        reports = reports.filter(question__external_id__in=questions)
    found = set(
        Section.objects.filter(report__in=reports)
        .values_list("report__question__external_id", flat=True)
        .distinct()
    )
    if not found:
        return []
    return [r for r in stored_reports(study, system=system) if r.question_id in found]
