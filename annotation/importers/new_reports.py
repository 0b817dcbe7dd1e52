"""The first import of a system's reports into a study: prepared on every core, then
written as rows (issue 29).

A system's first file is most imports, and the largest: every report is new, so nothing
stored needs reading or comparing. Each report is *prepared* — parsed, normalised
(:func:`annotation.normalise.normalise_report`) and turned into the JSON texts and row
values it is stored as (:class:`PreparedReport`) — independently of the others, so a
format that can parse its file in parts (:class:`Parts`) is prepared on each core
(:mod:`.parallel`); the rows are then written by one process, as before.

The stored rows and the import's summary are those of :func:`.structure.write_reports`
(``tests/annotation/test_new_reports.py`` holds the two to it); a re-import, which must
compare and keep rows experts' work points at, is written by ``write_reports``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import NamedTuple

from django.db import transaction

from annotation.models import Paragraph, Report, Section

from . import json_parts, released
from .base import ImportFailed, ImportReport, Problem
from .common import Source, _json_text, may_hold_unstorable, reject_unstorable
from .parallel import Redo, processes, stream_parts
from .registry import Signature
from .structure import (
    ReportInput,
    _insert_read_back,
    citations_json,
    ensure_question_ids,
    ensure_report_ids,
    ensure_systems,
    has_text,
    insert_whole,
    stored_anchors,
    warn_shared_closing,
    warn_unreadable,
)


@dataclass(frozen=True)
class Parts:
    """How a format reads its file in parts, the file being a JSON list or JSON lines
    decoded as :func:`.common.parse_json_records` decodes it (:mod:`.json_parts` decodes
    each part apart): ``check(file name, records)`` refuses the file from its first
    records as the format's whole read does (another format's file, :mod:`.signatures`),
    ``independent(records)`` says whether records may be parsed apart (true of the file
    when true of each part and no key of a report is another part's), and ``parse(records,
    file name, rep, first)`` parses a run of them, the first being record number ``first``
    of the file (its problems raised as :class:`ImportFailed`, its warnings in ``rep``).
    ``parse(src, rep)`` of the format is the decoding, ``check``, then ``parse`` of every
    record."""

    check: Callable[[str, list], None]
    independent: Callable[[list], bool]
    parse: Callable[..., list[ReportInput]]


class PreparedReport(NamedTuple):
    """One report as it is stored: plain values and JSON texts, cheap to send between
    processes (a tuple of strings)."""

    record: int
    question_key: str
    question_text: str
    question_fields: dict
    #: :attr:`Report.original` and :attr:`Report.citations` as JSON text
    original: str
    citations: str
    #: ``(title, table JSON text or None, [(text, anchors JSON text), …])`` per section
    sections: list
    sources: int
    anchors: int
    #: Whether the report as released has something to read (else set aside, with a warning)
    readable: bool


def prepare(item: ReportInput) -> PreparedReport:
    """``item`` normalised and encoded as :func:`.structure.write_reports` stores it."""
    from annotation.normalise import normalise_report

    report, original = normalise_report(item.parsed)
    original.update(item.original_extra)
    sections, anchors = [], 0
    for s in report.sections:
        paragraphs = []
        for p in s.paragraphs:
            anchors += len(p.anchors)
            paragraphs.append((p.text, _json_text(stored_anchors(p))))
        table = None if s.table is None else _json_text(s.table)
        sections.append((s.title, table, paragraphs))
    return PreparedReport(
        item.record, item.question_key, item.question_text, item.question_fields,
        _json_text(original), _json_text(citations_json(report)), sections,
        len(report.citations), anchors, has_text(item.parsed),
    )  # fmt: skip


def prepared_chunks(parse, parts: Parts | None, src: Source, rep: ImportReport) -> Iterator:
    """Every report of ``src`` prepared, in record order, a list at a time (with whether
    it is a part of the file): in parts by children on each core when the format reads in
    parts and the file is large enough (:mod:`.parallel`: the caller writes a part while
    the next ones are prepared), else here: parsed at once, prepared
    :data:`ONE_PROCESS_CHUNK` reports at a time. The warnings are those of the
    one-process parse, in its order.

    Each child decodes only the records of its parts' bytes (:mod:`.json_parts`), in a
    first step, and says where they began and ended and how many there were; this process
    checks that the parts join end to end and tells each child the number of its parts'
    first records; the children then parse and prepare. Records decoded before the fork
    would be shared, and each reference count a process changes copies the memory page
    holding it (measured: the parts then took as long as the whole). A file with a
    problem, whose records depend on each other, or whose parts do not join (a part began
    where no record does: inside a string, inside a record), raises :class:`~.parallel.Redo` (from the first part, or later,
    before the part is written): the caller undoes what it wrote and calls again with
    ``parts=None``."""
    n = processes() if parts is not None else 1
    text = src.text or ""
    lay = json_parts.layout(text) if n > 1 and len(text) >= MIN_PARALLEL_BYTES else None
    if lay is not None:
        count = max(n, -(-len(text) // CHUNK_BYTES))
        total: list[int] = []
        survey, settle = _part_surveyor(parts, src, lay, count), _settler(lay, total)
        keys: set[str] = set()
        for rows, warnings in stream_parts(
            _prepare_part(parts, src), list(range(count)), children=_children(n),
            redo=(ImportFailed, _Dependent, json_parts.Unreadable), survey=survey,
            settle=settle,
        ):  # fmt: skip
            prepared = list(map(PreparedReport._make, rows))
            del rows
            before = len(keys)
            keys.update(p.question_key for p in prepared)
            if len(keys) != before + len(prepared):  # a question another part asks too
                raise Redo
            rep.warnings.extend(warnings)
            rep.records = total[0]
            yield prepared, True
        return
    inputs = parse(src, rep)
    rep.records = rep.records or len(inputs)
    if len(inputs) <= ONE_PROCESS_CHUNK:
        yield [prepare(i) for i in inputs], False
        return
    # a large file in one process (a threaded web server, one core): prepared and written a
    # chunk at a time, each chunk's parsed reports let go once prepared, so that the file's
    # every prepared report is never held at once beside its parsed ones
    inputs.reverse()
    while inputs:
        chunk = [inputs.pop() for _ in range(min(ONE_PROCESS_CHUNK, len(inputs)))]
        yield [prepare(i) for i in chunk], True


#: Smallest file prepared in parts (about 800 reports of ~5 KB): below, the forks are not
#: worth it. A released ScholarQA-CS2 file (100 reports, 0.5–3.9 MB) is prepared in one
#: process.
MIN_PARALLEL_BYTES = 4_000_000
#: Reports prepared and written at a time by one process (:func:`prepared_chunks`).
ONE_PROCESS_CHUNK = 1000
#: About how much of the file one part is (~200 reports): small enough that the writes
#: begin early and the last part's write is short, large enough that a part's write is a
#: few queries among a thousand rows (0.6, 1 and 2.5 MB measured alike, within noise).
CHUNK_BYTES = 1_000_000


def _children(processes: int) -> int:
    """How many children prepare while this process writes. A database server (PostgreSQL)
    does most of the writing on a core of its own: children on every core but one (on two
    cores at 5,000 reports per file, 1 child: 4.0–4.1 s for three files, 2 children:
    4.3–4.4 s, none: 4.6–4.8 s). SQLite writes in this process, a third of the
    preparing's time: a child per core (2: 2.9–3.0 s, 1: 3.5–3.6 s, none: 3.4 s)."""
    from django.db import connection

    return processes if connection.vendor == "sqlite" else max(1, processes - 1)


class _Dependent(Exception):
    """The file's records cannot be parsed apart (:attr:`Parts.independent`)."""


def _part_surveyor(parts: Parts, src: Source, lay: json_parts.Layout, count: int):
    """``survey(index)``: part ``index`` of ``count`` decoded (:mod:`.json_parts`), as
    ``((start, end, records), its records)``; raises what makes the file read whole (a
    record the part cannot decode, records that depend on each other, a value no database
    stores, another format's file)."""

    def survey(index: int):
        text = src.text or ""
        span = json_parts.part(text, lay, index, count)
        if not parts.independent(span.records):
            raise _Dependent
        if index == 0:
            first = span.records
            if len(first) < Signature.SAMPLE:
                first = json_parts.leading(text, lay, Signature.SAMPLE)
            parts.check(src.name, first)
        if may_hold_unstorable(text, span.start, span.end):
            reject_unstorable(src.name, span.records)  # a problem: read whole, which names it
        return (span.start, span.end, len(span.records)), span.records

    return survey


def _settler(lay: json_parts.Layout, total: list):
    """``settle(summaries)``: the number of each part's first record, once the parts are
    found to join end to end (else :class:`~.parallel.Redo`); the file's record count
    put in ``total``."""

    def settle(summaries: list) -> list[int]:
        if not json_parts.chained(lay, [(start, end) for start, end, _ in summaries]):
            raise Redo
        firsts, first = [], 1
        for _, _, records in summaries:
            firsts.append(first)
            first += records
        total.append(first - 1)
        return firsts

    return settle


def _prepare_part(parts: Parts, src: Source):
    """``prepare_part(records, first)``: a part's records, the first being record number
    ``first``, prepared, with their warnings. Each prepared report is sent as a plain
    tuple: a named tuple is pickled through a Python call per report (76 ms against 33 ms
    per 5,000 reports, and 29 ms against 18 ms to unpickle, measured)."""

    def prepare_part(records: list, first: int):
        rep = ImportReport(kind="reports", dry_run=True)
        inputs = parts.parse(records, src.name, rep, first)
        del records[:]  # the decoded records, let go before the prepared ones are built
        released.mark_layout(inputs, src.text)  # as the format's whole parse keeps it
        return [tuple(prepare(i)) for i in inputs], rep.warnings

    return prepare_part


def is_new_system(study, system: str) -> bool:
    """Whether ``study`` has no report of ``system`` yet (what this module writes)."""
    return not Report.objects.filter(system__study=study, system__name=system).exists()


def write_prepared(
    study, system: str, prepared: list[PreparedReport], source_format: str,
    rep: ImportReport, file: str, *, part: bool = False,
) -> None:  # fmt: skip
    """Store a new system's prepared reports: its questions (found or created), the
    system, and each report with its sections and paragraphs, as
    :func:`.structure.write_reports` stores new reports. ``part``: the reports are a part
    of the file (their questions looked up by key)."""
    if part and not prepared:  # a part in which no record begins (json_parts)
        return
    question_ids = ensure_question_ids(
        study, {p.question_key: {"text": p.question_text, **p.question_fields} for p in prepared},
        rep, by_key=part,
    )  # fmt: skip
    systems = ensure_systems(study, [system], rep)
    pairs = [(p.question_key, system) for p in prepared]
    ids, new_ids = ensure_report_ids(
        pairs, {name: s.pk for name, s in systems.items()}, question_ids, rep, source_format,
        originals={pair: p.original for pair, p in zip(pairs, prepared, strict=True)},
        citations={pair: p.citations for pair, p in zip(pairs, prepared, strict=True)},
        encoded=True, by_key=part,
    )  # fmt: skip
    if len(new_ids) != len(ids):  # another import of this system committed meanwhile
        raise ImportFailed([Problem(file, None, None,
                                    f"reports of system {system!r} were stored in this study "
                                    "while this file was read: import the file again")])  # fmt: skip
    to_write = []
    for pair, p in zip(pairs, prepared, strict=True):
        if p.sections or p.sources:
            to_write.append((ids[pair], p))
        else:  # nothing to store beside the report row (as write_reports counts it)
            rep.count("unchanged", "Report")
    if not to_write:
        return
    sections = [(pk, pos, title, table) for pk, p in to_write
                for pos, (title, table, _) in enumerate(p.sections, start=1)]  # fmt: skip
    section_ids = _insert_read_back(
        Section, ("report", "position"), {pk for pk, _ in to_write},
        ("report", "position", "title", "table"), sections, encoded=frozenset({"table"}),
    )  # fmt: skip
    paragraphs = []
    for pk, p in to_write:
        number = 0
        for pos, (_, _, paras) in enumerate(p.sections, start=1):
            section = section_ids[(pk, pos)]
            for text, anchors in paras:
                number += 1
                paragraphs.append((pk, number, text, section, anchors))
    insert_whole(
        Paragraph, ("report", "number", "text", "section", "anchors"), paragraphs,
        encoded=frozenset({"anchors"}),
    )  # fmt: skip
    for table, n in (
        ("Section", len(sections)),
        ("Paragraph", len(paragraphs)),
        ("Citation", sum(p.sources for _, p in to_write)),
        ("CitationAnchor", sum(p.anchors for _, p in to_write)),
    ):
        if n:
            rep.count("created", table, n)


def load_new(parse, parts, src: Source, study, system: str, source_format: str,
             rep: ImportReport, file: str) -> list[tuple[int, str]]:  # fmt: skip
    """A new system's file: each part written as it is prepared (:func:`prepared_chunks`),
    then the unreadable reports warned of (after every parse warning, as the general
    path orders them). A part that must be redone in one process undoes what was written
    (a savepoint) and what was counted, and the file is prepared again, whole. Returns
    ``(record, question key)`` of every report written."""
    before = (rep.records, dict(rep.created), dict(rep.updated), dict(rep.unchanged),
              len(rep.warnings), len(rep.changes))  # fmt: skip
    try:
        with transaction.atomic():
            unreadable, keys, closings = _write_chunks(
                prepared_chunks(parse, parts, src, rep), study, system, source_format, rep, file
            )
    except Redo:
        rep.records, rep.created, rep.updated, rep.unchanged, kept, changed = before
        del rep.warnings[kept:]
        del rep.changes[changed:]
        unreadable, keys, closings = _write_chunks(
            prepared_chunks(parse, None, src, rep), study, system, source_format, rep, file
        )
    warn_unreadable(rep, file, unreadable)
    warn_shared_closing(rep, file, closings)
    return keys


def _write_chunks(chunks, study, system, source_format, rep, file):
    """Write every chunk: (the unreadable reports' (record, question text), every report's
    (record, question key), every report's last paragraph (:func:`warn_shared_closing`))."""
    unreadable, keys, closings = [], [], []
    for prepared, part in chunks:
        unreadable += [(p.record, p.question_text) for p in prepared if not p.readable]
        keys += [(p.record, p.question_key) for p in prepared]
        closings += [_closing(p) for p in prepared]
        write_prepared(study, system, prepared, source_format, rep, file, part=part)
    return unreadable, keys, closings


def _closing(report: PreparedReport) -> str:
    """The text of a prepared report's last paragraph, "" when it has none."""
    return next(
        (text for _, _, paras in reversed(report.sections) for text, _ in reversed(paras)), ""
    )
