"""Reports as Concord stores them: sections -> paragraphs (1..n) -> citation anchors, the
report's sources a JSON list on it and a paragraph's anchors a JSON list on the paragraph.

Every report format is parsed into a :class:`ParsedReport` (pure Python, no database), and
:func:`write_reports` stores a batch of them for one system in a fixed number of queries:
an unchanged report is left alone (its public id, medals and scores stay); a changed one
keeps its Report row, its sections by position and its paragraphs by number (updated in
place: judgments point at them); a re-import dropping a judged paragraph is refused.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from django.db import connection

from annotation.links import fragment_spans
from annotation.models import (
    Paragraph,
    Question,
    Report,
    Section,
    System,
    bump_content_version,
    citation_item,
    cited,
)
from annotation.models.jsontext import same_text
from annotation.units import JudgedUnitRemoved, check_paragraphs_kept, check_reports_kept

from .base import ImportFailed, ImportReport, Problem
from .common import insert_new, insert_whole, update_rows


@dataclass
class ParsedCitation:
    key: str
    title: str = ""
    snippets: list[str] = field(default_factory=list)
    url: str = ""
    metadata: dict = field(default_factory=dict)

    def canonical(self):
        return (self.key, self.title, list(self.snippets), self.url, self.metadata)


@dataclass
class ParsedParagraph:
    text: str
    anchors: list[tuple[int, int, str]] = field(default_factory=list)  # start, end, key


@dataclass
class ParsedSection:
    title: str
    paragraphs: list[ParsedParagraph]
    table: dict | list | None = None


@dataclass
class ParsedReport:
    sections: list[ParsedSection]
    citations: dict[str, ParsedCitation]

    def canonical(self):
        number = 0
        sections = []
        for s in self.sections:
            paras = []
            for p in s.paragraphs:
                number += 1
                paras.append((number, p.text, sorted(p.anchors)))
            sections.append((s.title, s.table, paras))
        cits = sorted(c.canonical() for c in self.citations.values())
        return sections, cits


@dataclass
class ReportInput:
    """One report to store: where it came from and which question it answers."""

    record: int
    question_key: str
    question_text: str
    parsed: ParsedReport
    question_fields: dict = field(default_factory=dict)
    #: Kept in ``Report.original`` beside the text as written (researchers only), e.g. the
    #: report of a record that repeats this record's question (``set_aside``).
    original_extra: dict = field(default_factory=dict)


# --- Text -> paragraphs and anchors ---------------------------------------------------------

_BLANK_LINE = re.compile(r"\n[ \t]*\n")


def split_paragraphs(text: str) -> list[str]:
    """Paragraphs are separated by blank lines; surrounding whitespace is not kept.

    A blank line inside a link's text fragment separates nothing: You.com wrote the
    apostrophe of ``model's`` in one as a blank line (``…%20the%20model\n\ns%20internal)``,
    ScholarQA-CS2 ``dev/you.json``), which split a sentence in two and left half a link
    with its fragment in each (:func:`annotation.links.fragment_spans`)."""
    if "\n" not in text:  # one paragraph (no blank line without a line break)
        text = text.strip()
        return [text] if text else []
    text = text.replace("\r\n", "\n")
    fragments = fragment_spans(text)
    if not fragments:
        return [p for p in map(str.strip, _BLANK_LINE.split(text)) if p]
    parts, cursor = [], 0
    for m in _BLANK_LINE.finditer(text):
        if any(start < m.start() < end for start, end in fragments):
            continue
        parts.append(text[cursor : m.start()])
        cursor = m.end()
    parts.append(text[cursor:])
    return [p for p in map(str.strip, parts) if p]


def marker_forms(key: str) -> list[str]:
    """How a citation id appears in text: verbatim, and ``[n]`` for a bare number (also
    after a caret, ``^[n]``: ScholarQA-CS2 claude; :func:`find_anchors` takes the caret
    with it); a ``^n`` id also as ``^[n]``."""
    if key.isdecimal():
        return [f"[{key}]"]
    if key.startswith("^") and key[1:].isdecimal():
        return [key, f"^[{key[1:]}]"]
    return [key]


def anchor_forms(keys: list[str]) -> list[tuple[str, str]]:
    """(marker form, key) of every key, in ``keys`` order: what :func:`find_anchors` looks
    for, computed once per report rather than once per paragraph (issue 29)."""
    return [(form, key) for key in keys for form in marker_forms(key)]


def find_anchors(
    text: str, keys: list[str], forms: list[tuple[str, str]] | None = None
) -> list[tuple[int, int, str]]:
    """Every occurrence of every key's marker; on overlap the earlier, then longer, wins
    (the first listed among equals). A ``[n]`` right after a caret (``^[n]``) is anchored
    with its caret. ``forms``: :func:`anchor_forms` of ``keys``, when the caller has it.
    One text; a report's paragraphs share one :class:`AnchorFinder`."""
    return AnchorFinder(anchor_forms(keys) if forms is None else forms)(text)


#: The bracket a marker opening with a bracket closes with.
_CLOSING = {"[": "]", "(": ")"}
#: The first characters markers are scanned for together (any other: form by form).
_SCANNED = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


class AnchorFinder:
    """:func:`find_anchors`'s rule for one report's keys, prepared once for its
    paragraphs, found in few scans of the text (issue 29).

    Markers that open with the same punctuation (``[1]`` … ``[10]``, or ScholarQA's
    ``[corpus id | …]``) are found together: one scan for that character (``str.find`` of
    one character, the fastest scan there is) and, at each place it stands, one look-up
    of the text from there to the first closing bracket when every such marker ends at
    its first closing bracket (else one look-up per length of marker), instead of one
    full scan of the text per marker. The rule: each form's occurrences left to right
    without overlapping each other, then the earlier, the longer, the first listed wins
    (``tests/annotation/test_parse_fast_paths.py`` holds it to a plain scan per form on
    random texts). Other forms (few sharing a first character, or
    opening with anything but ASCII punctuation: letters, digits and spaces, which text is
    full of) are found form by form."""

    __slots__ = ("bracketed", "scans", "singles")

    def __init__(self, forms: list[tuple[str, str]]):
        #: (index, form, key) of the forms found one by one
        self.singles: list[tuple[int, str, str]] = []
        groups: dict[str, list[tuple[int, str, str]]] = {}
        for index, (form, key) in enumerate(forms):
            char = form[:1]
            if char not in _SCANNED:
                self.singles.append((index, form, key))
            elif char in groups:
                groups[char].append((index, form, key))
            else:
                groups[char] = [(index, form, key)]
        #: (first character, closing bracket or None, {form: [(index, key), ...]},
        #: [(length, {form: [(index, key), ...]}), ...] when there is no closing bracket)
        self.scans: list[tuple] = []
        for char, group in groups.items():
            if len(group) < 2:
                self.singles += group
                continue
            close = _CLOSING.get(char)
            if close is not None and not all(f.find(close, 1) == len(f) - 1 for _, f, _ in group):
                close = None  # some marker holds a closing bracket before its end
            table: dict[str, list[tuple[int, str]]] = {}
            by_length: dict[int, dict[str, list[tuple[int, str]]]] = {}
            for index, form, key in group:
                table.setdefault(form, []).append((index, key))
                if close is None:
                    by_length.setdefault(len(form), {})[form] = table[form]
            self.scans.append((char, close, table, list(by_length.items())))
        #: The one group when every form is in it and ends at its first closing bracket
        #: (``[1]`` … ``[10]``: most reports): found in one pass, nothing to sort
        self.bracketed = self.scans[0] if len(self.scans) == 1 and not self.singles else None
        if self.bracketed is not None and self.bracketed[1] is None:
            self.bracketed = None

    def __call__(self, text: str) -> list[tuple[int, int, str]]:
        if self.bracketed is not None:
            return self._bracketed(text)
        found = []  # (start, -length, index, end, key): sorted as find_anchors sorts
        for index, form, key in self.singles:
            start = text.find(form)
            while start != -1:
                end = start + len(form)
                if form[0] == "[" and start and text[start - 1] == "^":
                    found.append((start - 1, start - 1 - end, index, end, key))
                else:
                    found.append((start, start - end, index, end, key))
                start = text.find(form, end)
        for char, close, table, lengths in self.scans:
            start = text.find(char)
            last: dict[str, int] = {}  # form -> the end of its last occurrence taken
            while start != -1:
                if close is not None:
                    stop = text.find(close, start + 1)
                    if stop == -1:
                        break  # no marker of the group closes from here on
                    candidates = ((stop + 1 - start, table),)
                else:
                    candidates = lengths
                for length, forms in candidates:
                    form = text[start : start + length]
                    hits = forms.get(form)
                    if hits is None or start < last.get(form, 0):
                        continue
                    end = last[form] = start + length
                    first = start
                    if char == "[" and start and text[start - 1] == "^":
                        first -= 1
                    for index, key in hits:
                        found.append((first, first - end, index, end, key))
                start = text.find(char, start + 1)
        if not found:
            return []
        found.sort()
        kept, end = [], -1
        for start, _, _, stop, key in found:
            if start >= end:
                kept.append((start, stop, key))
                end = stop
        return kept

    def _bracketed(self, text: str) -> list[tuple[int, int, str]]:
        """:meth:`__call__` when one group of forms ending at their first closing bracket
        is all there is. Found left to right, one form at most per place (the text to the
        first closing bracket), so already in the order the rule sorts them
        (a caret taken before a "[" is no "[", so starts still grow); the first key
        listed of a form wins. Such a form cannot overlap itself (its opening character
        stands before its first closing bracket only at its start)."""
        char, close, table, _ = self.bracketed
        kept, end = [], -1
        start = text.find(char)
        while start != -1:
            stop = text.find(close, start + 1)
            if stop == -1:
                break  # no marker closes from here on
            hits = table.get(text[start : stop + 1])
            if hits is not None:
                first = start - 1 if char == "[" and start and text[start - 1] == "^" else start
                if first >= end:
                    end = stop + 1
                    kept.append((first, end, hits[0][1]))
            start = text.find(char, start + 1)
        return kept


# --- Markdown (ResearchQA, ResearcherBench, DeepScholar) ------------------------------------


def parse_markdown(text: str) -> ParsedReport:
    """A markdown answer as sections (by heading) and paragraphs (by blank line), its
    inline markers linked to the sources its reference list or definitions give.

    The one markdown reader of every format (:func:`annotation.importers.markdown.read_markdown`,
    whose module doc lists the reference styles and markers read): a format calls this
    with the report's markdown as released, with no preparation of its own.
    """
    from .markdown import read_markdown

    return read_markdown(text)


# --- Writing --------------------------------------------------------------------------------


def ensure_question_ids(
    study,
    wanted: dict[str, dict],
    rep: ImportReport,
    *,
    update_text: bool = False,
    by_key: bool = False,
    records: dict[str, tuple[str, int]] | None = None,
) -> dict[str, int]:
    """Question ids by external id, created when missing (no model instances).

    ``wanted`` maps external id -> field values; for an existing question a non-empty value
    that differs updates it (re-import updates by natural key). Why ids and
    ``values_list``: a pairwise file of the scale benchmark names 40,000 questions.
    ``by_key``: ``wanted`` is a part of a file (a few hundred questions,
    :mod:`.new_reports`): only those are read, by key, not the study's every question
    once per part. Each question updated is listed in ``rep.changes`` with the fields
    changed, at its (file, record) of ``records`` (external id -> where) when given.
    """
    from annotation.normalise import clean_text

    wanted = {
        key: {n: clean_text(v) if isinstance(v, str) else v for n, v in fields.items()}
        for key, fields in wanted.items()
    }
    compared = sorted({n for f in wanted.values() for n in f if update_text or n != "text"})
    if compared:
        questions = Question.objects.filter(study=study)
        if by_key:
            questions = questions.filter(external_id__in=list(wanted))
        rows = questions.values_list("external_id", "id", *compared)
    else:  # ids only (most imports): read by the cursor, no ORM query per part (issue 29)
        rows = _question_ids(study.pk, list(wanted) if by_key else None)
    existing = {row[0]: row[1:] for row in rows}
    new, changed = [], []
    for key, fields in wanted.items():
        row = existing.get(key)
        if row is None:
            new.append({"study": study.pk, "external_id": key, **fields})
            continue
        stored = dict(zip(compared, row[1:], strict=True))
        updates = {
            name: value
            for name, value in fields.items()
            if name in stored and value not in ("", None) and not _same(name, stored[name], value)
        }
        if updates:
            changed.append(Question(pk=row[0], **{**stored, **updates}))
            rep.change("Question", repr(key), sorted(updates), *(records or {}).get(key, ()))
    if new:
        before = _highest_id(Question)
        insert_new(Question, new)
        rep.count("created", "Question", len(new))
    if changed:
        Question.objects.bulk_update(changed, compared)
        rep.count("updated", "Question", len(changed))
    unchanged = sum(1 for k in wanted if k in existing) - len(changed)
    if unchanged:
        rep.count("unchanged", "Question", unchanged)
    out = {k: existing[k][0] for k in wanted if k in existing}
    if new:
        ids = dict(_ids_above(Question, before, "external_id", study=study.pk))
        out.update({row["external_id"]: ids[row["external_id"]] for row in new})
    return out


def _same(name: str, stored, value) -> bool:
    """A question's field as stored equals the import's; its released record
    (``Question.released``, JSON kept as text) compared as its text: a type or key-order
    change is one the export writes back."""
    if name == "released":
        return same_text(stored, value)
    return stored == value


def _question_ids(study: int, keys: list[str] | None) -> list[tuple[str, int]]:
    """(external id, id) of the study's questions (of ``keys`` only, when given)."""
    table, key, pk, study_column = _columns(Question, "external_id", "id", "study")
    sql = f"SELECT {key}, {pk} FROM {table} WHERE {study_column} = %s"
    if keys is None:
        return _fetch(sql, [study])
    out = []
    for start in range(0, len(keys), _IN_CHUNK):
        chunk = keys[start : start + _IN_CHUNK]
        out += _fetch(f"{sql} AND {key} IN ({', '.join(['%s'] * len(chunk))})", [study, *chunk])
    return out


def _columns(model, *fields: str) -> tuple[str, ...]:
    """``model``'s table and the columns of ``fields``, quoted for raw SQL."""
    quote, opts = connection.ops.quote_name, model._meta
    return (quote(opts.db_table), *(quote(opts.get_field(f).column) for f in fields))


#: Values per ``IN (…)`` of the id look-ups (SQLite takes 32,766 parameters a statement).
_IN_CHUNK = 5000


def _fetch(sql: str, params: list) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def _highest_id(model) -> int:
    """The table's highest id now (0 when empty): rows inserted after it have higher ids
    (PostgreSQL sequences and SQLite AUTOINCREMENT never reuse one)."""
    table, pk = _columns(model, model._meta.pk.name)
    return _fetch(f"SELECT MAX({pk}) FROM {table}", [])[0][0] or 0


def _ids_above(model, before: int, *columns: str, **equal) -> list[tuple]:
    """(``*columns``, id) of ``model``'s rows above id ``before`` with the columns of
    ``equal`` (``name_id=value``) equal to their values: the rows an insert just made, found
    by one range scan of the primary key, whatever the table's size and with no list of keys
    in the SQL. A row another transaction inserted meanwhile may be among them: the caller
    keeps the keys it inserted (each natural key is unique)."""
    table, pk, *names = _columns(model, model._meta.pk.name, *columns, *equal)
    wanted, compared = names[: len(columns)], names[len(columns) :]
    where = "".join(f" AND {name} = %s" for name in compared)
    return _fetch(
        f"SELECT {', '.join(wanted)}, {pk} FROM {table} WHERE {pk} > %s{where}",
        [before, *equal.values()],
    )


def ensure_questions(
    study, wanted: dict[str, dict], rep: ImportReport, *, update_text: bool = False,
    records: dict[str, tuple[str, int]] | None = None,
) -> dict[str, Question]:  # fmt: skip
    """Questions by external id, created when missing (see :func:`ensure_question_ids`)."""
    ids = ensure_question_ids(study, wanted, rep, update_text=update_text, records=records)
    by_id = Question.objects.in_bulk(list(ids.values()))
    return {key: by_id[pk] for key, pk in ids.items()}


def ensure_systems(study, names, rep: ImportReport) -> dict[str, System]:
    names = sorted(set(names))
    existing = {s.name: s for s in System.objects.filter(study=study, name__in=names)}
    new = [System(study=study, name=n) for n in names if n not in existing]
    if new:
        System.objects.bulk_create(new)
        rep.count("created", "System", len(new))
        existing = {s.name: s for s in System.objects.filter(study=study, name__in=names)}
    return existing


#: The report's JSON columns an import writes (:func:`ensure_report_ids`).
_REPORT_TEXTS = frozenset({"original", "citations"})


def ensure_report_ids(
    pairs, system_ids: dict[str, int], question_ids: dict[str, int], rep: ImportReport,
    source_format: str = "", originals: dict[tuple[str, str], dict] | None = None,
    citations: dict[tuple[str, str], list] | None = None, encoded: bool = False,
    by_key: bool = False,
) -> tuple[dict[tuple[str, str], int], set[int]]:  # fmt: skip
    """Report ids for (question key, system name) pairs, created empty when missing.

    Returns (ids by pair, ids created now). Existing reports are found by (question,
    system) among the reports of those systems, read as ids only. A report created now
    gets its ``Report.original`` from ``originals`` and its ``Report.citations`` from
    ``citations`` (by pair) in its INSERT: written once, not inserted empty and then
    updated with a second copy of the row (issue 29). ``encoded``: those values are already
    their JSON text (:mod:`.new_reports`). ``by_key``: the pairs are a part of a file
    (:func:`ensure_question_ids`): only their questions' reports are read.
    """
    wanted = set(pairs)
    if not wanted:
        return {}, set()
    systems = sorted({system_ids[s] for _, s in wanted})
    table, pk, question, system = _columns(Report, "id", "question", "system")
    select = f"SELECT {pk}, {question}, {system} FROM {table}"
    in_systems = f"{system} IN ({', '.join(['%s'] * len(systems))})"

    def stored() -> dict[tuple[int, int], int]:
        # read by the cursor: ids only, no ORM query per part of a file (issue 29)
        sql = f"{select} WHERE {in_systems}"
        if not by_key:
            return {(q, s): pk for pk, q, s in _fetch(sql, systems)}
        asked = sorted({question_ids[q] for q, _ in wanted})
        out = {}
        for start in range(0, len(asked), _IN_CHUNK):
            chunk = asked[start : start + _IN_CHUNK]
            marks = ", ".join(["%s"] * len(chunk))
            found = _fetch(f"{sql} AND {question} IN ({marks})", [*systems, *chunk])
            out.update({(q, s): pk for pk, q, s in found})
        return out

    by_ids = stored()
    new = sorted(
        {(question_ids[q], system_ids[s]) for q, s in wanted} - by_ids.keys()
    )  # fmt: skip
    if new:
        pair_of = {(question_ids[q], system_ids[s]): (q, s) for q, s in wanted}
        rows = [{"question": q, "system": s, "source_format": source_format} for q, s in new]
        for given, name in ((originals, "original"), (citations, "citations")):
            if not given:
                continue
            for row, key in zip(rows, new, strict=True):
                value = given.get(pair_of[key])
                if value is not None:
                    row[name] = value
        before = _highest_id(Report)
        insert_new(Report, rows, encoded=_REPORT_TEXTS if encoded else frozenset())
        rep.count("created", "Report", len(new))
        created = _fetch(f"{select} WHERE {pk} > %s AND {in_systems}", [before, *systems])
        by_ids.update({(q, s): pk for pk, q, s in created})
    out = {(q, s): by_ids[(question_ids[q], system_ids[s])] for q, s in wanted}
    return out, {by_ids[key] for key in new}


def ensure_reports(pairs, systems, questions, rep: ImportReport, source_format: str = ""):
    """Reports for (question key, system name) pairs, created empty when missing."""
    ids, new_ids = ensure_report_ids(
        pairs,
        {name: s.pk for name, s in systems.items()},
        {key: q.pk for key, q in questions.items()},
        rep,
        source_format,
    )
    by_id = Report.objects.in_bulk(list(ids.values()))
    return {pair: by_id[pk] for pair, pk in ids.items()}, new_ids


def stored_canonical(report_ids) -> dict[int, tuple]:
    """The stored structure of many reports in :meth:`ParsedReport.canonical` form (3 queries)."""
    sections: dict[int, list] = {rid: [] for rid in report_ids}
    sec_paras: dict[int, list] = {}
    for sid, rid, title, table in (
        Section.objects.filter(report_id__in=report_ids)
        .order_by("report_id", "position")
        .values_list("id", "report_id", "title", "table")
    ):
        paras: list = []
        sec_paras[sid] = paras
        sections[rid].append((title, table, paras))
    for sid, number, text, anchors in (
        Paragraph.objects.filter(report_id__in=report_ids)
        .order_by("report_id", "number")
        .values_list("section_id", "number", "text", "anchors")
    ):
        sec_paras[sid].append((number, text, sorted(map(tuple, anchors or ()))))
    cits: dict[int, list] = {rid: [] for rid in report_ids}
    for rid, stored in Report.objects.filter(pk__in=report_ids).values_list("id", "citations"):
        cits[rid] = sorted(
            (c.key, c.title, c.snippets, c.url, c.metadata) for c in cited(stored).values()
        )
    return {rid: (sections[rid], cits[rid]) for rid in report_ids}


def citations_json(parsed: ParsedReport) -> list[dict]:
    """What :attr:`Report.citations` stores of a parsed report's sources, in its order."""
    return [
        citation_item(c.key, c.title, c.snippets, c.url, c.metadata)
        for c in parsed.citations.values()
    ]


def write_structures(
    items: list[tuple[Report, ParsedReport, dict]], rep: ImportReport, new_ids: set[int],
    where: dict[int, tuple[str, str | None, int | None]] | None = None,
) -> None:  # fmt: skip
    """Store the structure of each report (normalised), its sources and its original:
    unchanged ones untouched, others replaced. The one report-structure writer: the importers and the
    API's report serializer both store through it (issue 14).

    Paragraph rows are kept by number and sections by position, updated in place:
    relevance judgments and adjudications point at paragraphs (annotation.units). They are
    read before anything is written, and the whole batch is refused
    (:class:`~annotation.units.JudgedUnitRemoved`) if a judged paragraph would be removed,
    or if the text or structure of a report experts labelled or judges scored would change
    (:class:`~annotation.units.JudgedReportChanged`: its labels and scores were given to
    that text). Each changed report is listed in the report's :attr:`~.base.ImportReport.changes`,
    named by ``where`` (report id -> (name, file, record)) or its id.

    New rows are inserted as plain rows (:func:`~.common.insert_new`, COPY on PostgreSQL),
    no model instances; sections' ids are read back by natural key among the rows inserted
    now (their paragraphs point at them): a ResearchQA-scale study stores 378,000 reports
    (issue 16). Sources and anchors are JSON on the report and paragraph rows (issue 29)."""
    if not items:
        return
    to_write, replaced, parts = _changed(items, rep, new_ids)
    for pk, changed in parts.items():
        name, file, record = (where or {}).get(pk, (f"report id {pk}", None, None))
        rep.change("Report", name, changed, file, record)
    if not to_write:
        return
    old = _OldRows.read(replaced, to_write)
    check_paragraphs_kept(old.removed)  # the judged paragraphs a change removes, by number
    # its text and structure, not its kept record alone (an extra key of the released record)
    check_reports_kept(
        {r.pk: [p for p in parts[r.pk] if p != "original"] for r, _ in to_write if r.pk in parts}
    )
    written = {r.pk for r, _ in to_write}
    # a report created now was inserted with its sources (ensure_report_ids)
    update_rows(
        Report, ["citations"],
        [(r.pk, citations_json(parsed)) for r, parsed in to_write if r.pk not in new_ids],
    )  # fmt: skip
    section_ids, kept_sections, n_new_sections = _write_sections(to_write, old, written)
    new_paras, kept_paras, n_anchors, n_citations = [], [], 0, 0
    for report, parsed in to_write:
        n_citations += len(parsed.citations)
        number = 0
        for pos, s in enumerate(parsed.sections, start=1):
            for p in s.paragraphs:
                number += 1
                anchors = stored_anchors(p)
                n_anchors += len(anchors)
                row = old.paragraphs.get((report.pk, number))
                if row is None:
                    new_paras.append(
                        (report.pk, number, p.text, section_ids[(report.pk, pos)], anchors)
                    )
                else:
                    row.section_id, row.text = section_ids[(report.pk, pos)], p.text
                    row.anchors = anchors
                    kept_paras.append(row)
    Paragraph.objects.bulk_update(kept_paras, ["section", "text", "anchors"], batch_size=2000)
    insert_whole(Paragraph, ("report", "number", "text", "section", "anchors"), new_paras)
    gone = [pk for ps in old.removed.values() for pk, _ in ps]
    if gone:
        Paragraph.objects.filter(pk__in=gone).delete()
    if old.replaced:
        Section.objects.filter(report_id__in=old.replaced).exclude(
            pk__in=[s.pk for s in kept_sections]
        ).delete()
    # a report that existed before (empty or not) now reads differently (new ones start at 0)
    bump_content_version(pk for pk in written if pk not in new_ids)
    for bucket, table, n in (
        ("created", "Section", n_new_sections),
        ("updated", "Section", len(kept_sections)),
        ("created", "Paragraph", len(new_paras)),
        ("updated", "Paragraph", len(kept_paras)),
        ("created", "Citation", n_citations),
        ("created", "CitationAnchor", n_anchors),
    ):
        if n:
            rep.count(bucket, table, n)


def _write_sections(to_write, old: _OldRows, written: set[int]):
    """Sections kept by position (updated) or inserted; returns their ids by (report,
    position), the kept rows and the number inserted."""
    new, kept = [], []
    for report, parsed in to_write:
        for pos, s in enumerate(parsed.sections, start=1):
            row = old.sections.get((report.pk, pos))
            if row is None:
                new.append((report.pk, pos, s.title, s.table))
            else:
                row.title, row.table = s.title, s.table
                kept.append(row)
    Section.objects.bulk_update(kept, ["title", "table"], batch_size=2000)
    ids = _insert_read_back(
        Section, ("report", "position"), written, ("report", "position", "title", "table"), new
    )
    ids.update({(s.report_id, s.position): s.pk for s in kept})
    return ids, kept, len(new)


def _insert_read_back(
    model,
    key: tuple[str, str],
    reports: set[int],
    fields: tuple[str, ...],
    rows: list[tuple],
    encoded: frozenset[str] = frozenset(),
):
    """Insert ``rows`` (tuples of ``fields``, :func:`insert_whole`) and return their ids by
    ``key`` (report, x).

    The ids are read among the rows above the table's highest id before the insert (ids
    only grow: PostgreSQL sequences, SQLite AUTOINCREMENT), keeping those of ``reports``:
    one range scan, whatever the table's size, and no list of ids in the SQL."""
    if not rows:
        return {}
    before = _highest_id(model)
    insert_whole(model, fields, rows, encoded=encoded)
    # plain columns (ints, or a key string): read by the cursor, no ORM row iterator and
    # converters per row (60,000 citation rows per 6,000 reports, issue 29)
    found = _ids_above(model, before, *key)
    return {(rid, x): pk for rid, x, pk in found if rid in reports}


def _changed(items, rep: ImportReport, new_ids: set[int]):
    """The reports whose structure differs from what is stored, and the ids of those of
    them that had a structure; changed originals saved, every report counted. A report
    created now has no structure yet (nothing to read). An original (with the records
    kept as released, :mod:`.released`) is compared as its stored text
    (:func:`same_text`): a record changed only in value types or key order is stored and
    the report counted updated, so the export writes the file imported last."""
    current = stored_canonical([r.pk for r, _, _ in items if r.pk not in new_ids])
    empty = ([], [])
    from . import released  # it reads stored reports by this module's functions

    to_write, originals, parts = [], {}, {}
    stored_original = {report.pk: report.original for report, _, _ in items}
    for report, parsed, original in items:
        changed = []
        if not same_text(report.original, original):
            report.original = original
            originals[report.pk] = original
            # a file laid out anew (indent, JSON lines) holds the same records: its layout is
            # kept for the export, the report is not counted as changed
            if not same_text(released.without_layout(stored_original[report.pk]),
                             released.without_layout(original)):  # fmt: skip
                changed.append("original")
        if report.pk in new_ids:  # no structure stored: equal only when it has none either
            same = not parsed.sections and not parsed.citations
        else:
            now = parsed.canonical()
            stored = current.get(report.pk, empty)
            same = stored == now
            changed += [
                n for n, a, b in zip(("sections", "citations"), stored, now, strict=True) if a != b
            ]
        if report.pk not in new_ids and changed:
            parts[report.pk] = changed
        if same:
            if "original" in changed and report.pk not in new_ids:
                rep.count("updated", "Report")
            else:
                rep.count("unchanged", "Report")
            continue
        if report.pk not in new_ids:
            rep.count("updated", "Report")
        to_write.append((report, parsed))
    update_rows(Report, ["original"], list(originals.items()))
    return to_write, [r.pk for r, _ in to_write if current.get(r.pk, empty) != empty], parts


@dataclass(eq=False)
class _ReportRow:
    """What :func:`write_structures` needs of a report (its id and original), read as
    values: no model instance per report of a 21,000-report file (issue 16)."""

    pk: int
    source_format: str
    original: dict


@dataclass
class _OldRows:
    """The stored sections and paragraphs of the reports about to be rewritten."""

    replaced: list[int]
    sections: dict[tuple[int, int], Section]
    paragraphs: dict[tuple[int, int], Paragraph]
    removed: dict[int, list[tuple[int, int]]]

    @classmethod
    def read(cls, replaced: list[int], to_write) -> _OldRows:
        if not replaced:  # only new or empty reports: nothing stored to keep
            return cls(replaced, {}, {}, {})
        sections = {
            (s.report_id, s.position): s for s in Section.objects.filter(report_id__in=replaced)
        }
        paragraphs = {
            (p.report_id, p.number): p
            for p in Paragraph.objects.filter(report_id__in=replaced).only(
                "id", "report_id", "number", "section_id", "text"
            )
        }
        wanted = {r.pk: sum(len(s.paragraphs) for s in parsed.sections) for r, parsed in to_write}
        removed: dict[int, list[tuple[int, int]]] = {}
        for (rid, number), para in paragraphs.items():
            if number > wanted[rid]:
                removed.setdefault(rid, []).append((para.pk, number))
        return cls(replaced, sections, paragraphs, removed)


def write_reports(
    study, system_name: str, inputs: list[ReportInput], source_format: str, rep: ImportReport,
    file: str = "upload",
) -> None:  # fmt: skip
    """Store one system's reports; ``file`` names the source when a re-import is refused
    for removing judged paragraphs (annotation.units)."""
    from annotation.normalise import normalise_reports

    question_ids = ensure_question_ids(
        study,
        {i.question_key: {"text": i.question_text, **i.question_fields} for i in inputs},
        rep,
    )
    systems = ensure_systems(study, [system_name], rep)
    # normalised first (pure): a report created below is inserted with its original
    normalised = []
    for i, (report, original) in zip(
        inputs, normalise_reports([i.parsed for i in inputs]), strict=True
    ):
        original.update(i.original_extra)
        normalised.append((i, report, original))
    warn_shared_closing(rep, file, [closing_paragraph(r) for _, r, _ in normalised])
    originals = {(i.question_key, system_name): original for i, _, original in normalised}
    sources = {(i.question_key, system_name): citations_json(r) for i, r, _ in normalised}
    ids, new_ids = ensure_report_ids(
        [(i.question_key, system_name) for i in inputs],
        {name: s.pk for name, s in systems.items()}, question_ids, rep, source_format,
        originals=originals, citations=sources,
    )  # fmt: skip
    # a report created now is as just inserted; only the others are read (their original
    # compared, their source format updated)
    by_id = {
        pk: _ReportRow(pk, fmt, original)
        for pk, fmt, original in Report.objects.filter(
            pk__in=[pk for pk in ids.values() if pk not in new_ids]
        ).values_list("id", "source_format", "original")
    }
    update_rows(
        Report, ["source_format"],
        [(r.pk, source_format) for r in by_id.values() if r.source_format != source_format],
    )  # fmt: skip
    for pair, pk in ids.items():
        if pk in new_ids:  # as inserted: its (last) record's original
            by_id[pk] = _ReportRow(pk, source_format, originals[pair])
    reports = {pair: by_id[pk] for pair, pk in ids.items()}
    items = [
        (reports[(i.question_key, system_name)], report, original)
        for i, report, original in normalised
    ]
    record = {reports[(i.question_key, system_name)].pk: i for i in inputs}
    where = {
        pk: (f"question {i.question_key!r}, system {system_name!r}", file, i.record)
        for pk, i in record.items()
    }
    try:
        write_structures(items, rep, new_ids, where)
    except JudgedUnitRemoved as refused:
        raise ImportFailed(
            [
                Problem(file, record[rid].record, "sections",
                        f"report of question {record[rid].question_key!r} " + refused.message(rid))
                for rid in refused.owners()
            ]
        ) from None  # fmt: skip


# --- The import of a report format (every report format registers through this) -------------


def report_loader(
    parse, *, source_format: str, directory: bool = False, parts=None, key_field: str = "",
    folder_hint: str = "",
):  # fmt: skip
    """``load(source, study, rep, system)`` for a report format whose ``parse(src, rep)``
    returns the :class:`ReportInput` of every record (the registry's ``load``).
    ``parts``: how the format parses its file in parts (:class:`.new_reports.Parts`),
    so that a new system's file is prepared on every core. ``key_field``: the record's
    field naming its question, for a format whose questions come from a questions file of
    their own (ResearcherBench, ResearchQA): a report whose question the study does not
    hold, in a study that holds questions, is warned of (:func:`warn_new_questions`).
    ``folder_hint``: what a folder format says to one file given alone (the layouts it
    reads, and that a folder is uploaded as a .zip)."""
    from . import new_reports
    from .common import fail, finite_source, gc_paused, read_source

    def load(source, study, rep: ImportReport, system: str | None = None) -> None:
        if not directory:
            refuse_folder(source, source_format)
        src = read_source(source, allow_directory=directory)
        if directory and src.directory is None:
            hint = other_format_of_file(src, source_format)
            fail(
                _display_name(source),
                (hint + "; " if hint else "")
                + (
                    folder_hint
                    or "this format reads a folder, not one file: upload the folder as a .zip"
                ),
            )
        system = system or (src.directory.name if src.directory else None)
        if not system:
            fail(_display_name(source), "a system name is required")
        known = _question_keys(study) if key_field else None
        # ~40 containers per report live until the write, none of them garbage: the
        # collector would walk them again and again, finding nothing (gc_paused; issue 29)
        with gc_paused(), finite_source(None if src.directory else src.text):
            if new_reports.is_new_system(study, system):  # nothing stored to compare
                keys = new_reports.load_new(parse, parts, src, study, system, source_format,
                                            rep, _display_name(source))  # fmt: skip
                warn_new_questions(rep, _display_name(source), key_field, known, keys)
                return
            inputs = parse(src, rep)
            rep.records = rep.records or len(inputs)
            warn_empty(inputs, rep, _display_name(source))
            write_reports(study, system, inputs, source_format, rep, file=_display_name(source))
            warn_new_questions(rep, _display_name(source), key_field, known,
                               [(i.record, i.question_key) for i in inputs])  # fmt: skip
            # freed while the collector is off: when it is back on, its first collection
            # walks every container allocated meanwhile that is still alive (the parsed
            # file: ~0.3 s per 6,000 reports, issue 29)
            del inputs

    return load


def refuse_folder(source, name: str) -> None:
    """A folder given to a one-file report format: refused naming the report formats that
    read a folder (a DeepScholar-Bench system folder; studies are untyped, so nothing else
    says it is the wrong format)."""
    from pathlib import Path

    from .common import fail
    from .registry import formats

    if isinstance(source, (str, os.PathLike)) and Path(source).is_dir():
        folders = " / ".join(f.name for f in formats("reports") if f.directory)
        fail(_display_name(source), f"is a directory; format {name} reads one file "
             f"(a system folder of reports is read with format {folders})")  # fmt: skip


def other_format_of_file(src, name: str) -> str:
    """What a file given to the folder format ``name`` is, when it is another format's
    JSON file (:mod:`.signatures`); "" when it is no JSON or no declared file."""
    from .common import parse_json_records
    from .signatures import looks_like_other_format

    try:
        data = parse_json_records(src, allow_mapping=True)
    except ImportFailed:
        return ""
    return looks_like_other_format(data, "reports", name) or ""


def _question_keys(study) -> set[str]:
    """The external ids of the study's questions (one query; before the import writes)."""
    return set(Question.objects.filter(study=study).values_list("external_id", flat=True))


def warn_new_questions(rep: ImportReport, file: str, field: str, known, keys) -> None:
    """A warning per record whose question the study did not hold, when it held some: the
    report created it, with nothing of the questions file (no rubric, no category). An id
    typed wrong in a reports file otherwise made a new question without a word (found by
    an admin importing the released ResearcherBench files). ``keys``: ``(record, question
    key)`` of the file's reports."""
    if not known:
        return
    for record, key in sorted(keys):
        if key not in known:
            rep.warn(file, record, field,
                     f"question {key!r} is not among the study's {len(known)} questions: "
                     "created from this report, with no rubric (import the questions file "
                     "first, or check the id)")  # fmt: skip


def has_text(parsed: ParsedReport) -> bool:
    """Whether a parsed report has something to read: a paragraph or a table (else it is
    set aside with a warning, :func:`warn_empty`)."""
    return any(s.paragraphs or s.table is not None for s in parsed.sections)


def stored_anchors(paragraph: ParsedParagraph) -> list[list]:
    """What :attr:`Paragraph.anchors` stores of a parsed paragraph's anchors: sorted
    ``[start, end, key]`` lists."""
    return [list(a) for a in sorted(paragraph.anchors)]


def warn_empty(inputs: list[ReportInput], rep: ImportReport, file: str) -> None:
    """A warning naming the record and question of each report with nothing to read (15 of
    ScholarQA-CS2's gemini dev reports have ``"sections": []``): it is stored as released
    (an export gives the file back) but set aside, never planned into an assignment
    (``Report.objects.readable``; issue 25)."""
    warn_unreadable(
        rep, file,
        [(i.record, i.question_text) for i in inputs if not has_text(i.parsed)],
    )  # fmt: skip


#: A closing paragraph is warned of when at least this share of a file's reports, and at
#: least :data:`SHARED_CLOSING_MIN` of them, end with it (:func:`warn_shared_closing`).
SHARED_CLOSING_SHARE = 0.9
SHARED_CLOSING_MIN = 5


def warn_shared_closing(rep: ImportReport, file: str, closings: list[str]) -> None:
    """One warning when one final paragraph (as annotators read it, normalised) ends most
    of the reports of one system's file: ``closings`` holds each report's ("" for one with
    no paragraph).

    Why: a line a system closes every report with ("（注：文档部分内容可能由 AI 生成）",
    Doubao's) tells annotators which system wrote a report. The notices seen are removed
    (``annotation.normalise.AI_NOTICES``); this catches the next vendor's signature at
    import, so that it can be declared there."""
    counted: dict[str, int] = {}
    for text in closings:
        if text:
            counted[text] = counted.get(text, 0) + 1
    if not counted:
        return
    text, n = max(counted.items(), key=lambda item: item[1])
    if n < SHARED_CLOSING_MIN or n < SHARED_CLOSING_SHARE * len(closings):
        return
    shown = " ".join(text.split())
    shown = shown if len(shown) <= 80 else shown[:79] + "…"
    rep.warn(file, None, "report",
             f"{n} of its {len(closings)} reports end with the same paragraph {shown!r}: a "
             "closing line every report of this file shares can tell annotators which "
             "system wrote it (a system's notice is declared in "
             "annotation.normalise.AI_NOTICES)")  # fmt: skip


def closing_paragraph(report: ParsedReport) -> str:
    """The last paragraph's text of a (normalised) report, "" when it has none."""
    return next((p.text for s in reversed(report.sections) for p in reversed(s.paragraphs)), "")


def warn_unreadable(rep: ImportReport, file: str, reports: list[tuple[int, str]]) -> None:
    """:func:`warn_empty`'s warning for each ``(record, question text)``."""
    for record, text in reports:
        question = " ".join(text.split())
        question = question if len(question) <= 80 else question[:79] + "…"
        rep.warn(file, record, "report",
                 f"the report of question {question!r} is empty (no text): set aside, "
                 "never assigned")  # fmt: skip


def _display_name(source) -> str:
    if isinstance(source, (bytes, bytearray)):
        return "upload"
    return str(getattr(source, "name", source))


# --- Reading stored reports back out (the writers of every report format) -------------------


@dataclass
class StoredReport:
    """One stored report as its format writers need it: the question, the system, the
    sections (title, table, paragraph texts) and the listed sources, all as stored."""

    question_id: str
    question_text: str
    system: str
    sections: list[tuple[str, dict | list | None, list[str]]]
    citations: list[ParsedCitation]
    #: The question's title (:attr:`Question.title`, the paper's title of a DeepScholar
    #: question), for the writers whose layout has a place for it; empty when it has none.
    question_title: str = ""


def _key_order(key: str):
    return (0, int(key), "") if key.isdecimal() else (1, 0, key)


def stored_reports(study, *, system: str | None = None) -> list[StoredReport]:
    """The study's reports (of one system, or all), by question id then system (5 queries)."""
    rows = Report.objects.filter(question__study=study)
    if system:
        rows = rows.filter(system__name=system)
    meta = list(
        rows.order_by("question__external_id", "system__name").values_list(
            "id", "question__external_id", "question__text", "system__name", "question__title"
        )
    )
    canonical = stored_canonical([rid for rid, *_ in meta])
    out = []
    for rid, qid, text, name, title in meta:
        sections, cits = canonical[rid]
        out.append(
            StoredReport(
                qid, text, name,
                [(title, table, [p[1] for p in paras]) for title, table, paras in sections],
                sorted(
                    (ParsedCitation(k, t, list(s or []), u, dict(m or {})) for k, t, s, u, m in cits),
                    key=lambda c: _key_order(c.key),
                ),
                title or "",
            )
        )  # fmt: skip
    return out


def to_markdown(report: StoredReport) -> str:
    """A stored report as markdown that :func:`parse_markdown` reads back to the same
    structure: a heading per titled section, paragraphs separated by blank lines, and the
    numbered sources as a closing "References" list (``[n] title url``)."""
    blocks = []
    for title, _table, paragraphs in report.sections:
        if title:
            blocks.append(f"## {title}")
        blocks.extend(paragraphs)
    refs = [
        f"[{c.key}] {' '.join(x for x in (c.title, c.url) if x)}".rstrip()
        for c in report.citations
        if c.key.isdecimal() and (c.title or c.url)
    ]
    if refs:
        blocks.append("## References")
        blocks.append("\n".join(refs))
    return "\n\n".join(blocks) + "\n"
