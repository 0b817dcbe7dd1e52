"""Reports as their file released them, kept so an export gives the file back (issue 25).

What annotators read is normalised (``annotation.normalise``: one marker style, sources
renumbered, system markup removed); a team that takes its data out again wants the report
as its system wrote it, not as Concord restyled it. So each report format's reader keeps
every record it read for a report, verbatim, in ``Report.original["released"]``:

``[{"format": name, "record": n, "data": the record as parsed JSON}]``

(one entry per record: a ScholarQA-CS2 question asked twice keeps both records on the one
report). The format's writer puts these records back in record order, so the first export
equals the imported file up to key order, and export -> re-import -> export is identical.
The file's name is not kept: the same records read from a file of another name are the
same reports (a re-import of them counts them unchanged). Reports of one system imported
from several files come back as one file, interleaved by record number. A report with no kept record of that format (written through the API, or
imported in another format) is written from its stored structure as before; a report with
neither a kept record nor any text (the textless placeholders the ScholarQA-CS2 pairwise
import creates for the assigned and chosen questions) is no report of the system and is
not written.

The kept record follows the report: ``write_structures`` replaces ``Report.original``
whenever the report is stored again, so a record never outlives the text it came from.
"""

from __future__ import annotations

from dataclasses import dataclass

from annotation.models import Report, Section

from .structure import ReportInput, StoredReport, stored_reports

KEY = "released"


def keep(item: ReportInput, fmt: str, record: int, data) -> None:
    """Keep ``data`` (record number ``record`` of its file, as parsed) with ``item``."""
    item.original_extra.setdefault(KEY, []).append({"format": fmt, "record": record, "data": data})


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
    rebuilt = []
    if others:
        with_text = set(
            Section.objects.filter(report__in=reports.filter(question__external_id__in=others))
            .values_list("report__question__external_id", flat=True)
            .distinct()
        )
        if with_text:
            rebuilt = [
                r for r in stored_reports(study, system=system) if r.question_id in with_text
            ]
    return Written([e for *_, e in kept], rebuilt)
