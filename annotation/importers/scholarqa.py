"""ScholarQA-CS2 (Hwang et al. 2026) report files, read and written.

The pairwise annotation records, which carry judge scores, are a judges-layer format
(``judges/formats/scholarqa_pairwise.py``).

Reports: a JSON list or JSON lines of
``{"question", "response": {"sections": [{"title", "text", "citations": [{"id", "title",
"snippets", "metadata"}], "table"}]}}``. Citation ids appear verbatim in the text
("(Rego et al., 2022)", "[5]", "[245738635 | Kang et al. | 2022 | Citations: 3]"); a bare
number "1" appears as "[1]". A citation listed twice (the same source in several sections)
is one Citation of the report; its snippets are merged in order.

Every released file is imported whole. Its oddities are interpreted by these rules, each
reported as a warning naming record and field (``ImportReport.warnings``), never silently:

* **A citation with an empty id** (two claude reports) is still a listed source the expert
  may read: it is the keyed source of the same title when the report lists one, else one
  source per title (or url) under a generated key ``no-id-1``, ``no-id-2`` … that no marker
  in the text can cite (so it is numbered after the cited sources). An empty id with no
  title, url or snippet names no source and is refused.
* **A numbered marker citing no listed source** (``[3]`` in a dev/perplexity report listing
  no source 3; within 1..the largest listed number, as before: "[1930]" is a year) is kept
  where the system put it, as a plain ``[n]`` in the one normalised style, linked to
  nothing and numbered after every listed source (``annotation.normalise``): the expert
  sees that the claim cites something, and no source is invented or mis-attributed.
* **A question asked twice** (dev/you) is one question with one report per system:
  the first record's report. A repeat with an identical report is imported once; a repeat
  with a *different* report is set aside for researchers in the kept report's
  ``Report.original["set_aside"]`` (record number and response as written). Why the
  first: the file gives no reason to prefer either run; the first is the one a reader of
  the file meets first, and the rule is stable. Both are checked like any other record.

Anything else malformed is refused as before, naming record and field.

Questions are known by their text only; their natural key is :func:`question_key`.
"""

from __future__ import annotations

import re
from pathlib import Path

from annotation.links import is_web_url
from annotation.normalise import PIPE_MARKER

from . import released
from .base import ImportReport
from .common import (
    Problems,
    Source,
    parse_json_records,
    question_key,
    require,
    type_name,
)
from .markdown import link_anchors, outside_math
from .new_reports import Parts
from .registry import Example, Format, Option, Signature, register
from .signatures import refuse_other_format
from .structure import (
    AnchorFinder,
    ParsedCitation,
    ParsedParagraph,
    ParsedReport,
    ParsedSection,
    ReportInput,
    StoredReport,
    anchor_forms,
    marker_forms,
    report_loader,
    split_paragraphs,
)

FORMAT = "scholarqa"
EXAMPLES = Path(__file__).resolve().parent / "examples"

# --- Reports --------------------------------------------------------------------------------


def parse_reports(src: Source, rep: ImportReport | None = None) -> list[ReportInput]:
    """Every record, checked; the oddities of the released files (module doc) are imported
    by their rule and reported as warnings in ``rep``, which also counts the records read."""
    records = read_records(src)
    inputs = parse_records(records, src.name, rep)
    released.mark_layout(inputs, src.text)  # the export writes the file as it was laid out
    if rep is not None:
        rep.records = len(records)
    return inputs


def read_records(src: Source) -> list:
    """The file's records, decoded (a file of another format refused, saying which)."""
    records = parse_json_records(src)
    check_records(src.name, records)
    return records


def check_records(name: str, records: list) -> None:
    """Refuse the file ``name`` when its first records show another format's file."""
    refuse_other_format(name, records, "reports", FORMAT)


def independent(records: list) -> bool:
    """Whether every record can be parsed apart from the others: each asks its own
    question (a question asked twice is resolved across records, module doc). What
    :func:`parse_records` may be given in parts (``annotation.importers.parallel``)."""
    keys = set()
    for record in records:
        question = record.get("question") if type(record) is dict else None
        if type(question) is not str:
            return False
        keys.add(question_key(question))
    return len(keys) == len(records)


def parse_records(
    records: list, name: str, rep: ImportReport | None = None, first: int = 1
) -> list[ReportInput]:
    """:func:`parse_reports` of ``records``, the first of which is record ``first`` of the
    file ``name`` (a part of the file, :func:`independent`)."""
    problems = Problems(name)
    warnings = rep if rep is not None else ImportReport(kind="reports", dry_run=True)
    inputs: list[ReportInput] = []
    seen: dict[str, tuple[int, object, ReportInput | None]] = {}  # key -> record, response, input
    for n, record in enumerate(records, start=first):
        # a record as released read without a call per field; anything else by ``require``,
        # which says what is wrong
        question = record.get("question") if type(record) is dict else None
        if type(question) is not str or not question.strip():
            question = require(problems, n, record, "question", str)
        response = record.get("response") if type(record) is dict else None
        if type(response) is not dict:
            response = (
                require(problems, n, record, "response", dict) if isinstance(record, dict) else None
            )
        key = question_key(question) if question is not None else None
        earlier = seen.get(key) if key is not None else None
        if key is not None and earlier is None:
            seen[key] = (n, response, None)
        if response is None:
            continue
        sections = response.get("sections")
        if type(sections) is not list:
            sections = require(problems, n, response, "sections", list, label="response.sections")
        if sections is None:
            continue
        parsed = _parse_sections(problems, warnings, name, n, sections)
        if question is None or parsed is None:
            continue
        if earlier is not None:
            _repeated_question(warnings, name, n, record, earlier)
            continue
        item = ReportInput(n, key, question, parsed)
        released.keep(item, FORMAT, n, record)
        seen[key] = (n, response, item)
        inputs.append(item)
    problems.raise_if_any()
    return inputs


def reread(entries: list[dict]) -> ParsedReport:
    """The report an import reads from one report's kept records (:attr:`Format.reread`):
    its records parsed as the file's were, the first record's report kept (module doc)."""
    inputs = parse_records([e["data"] for e in entries], "kept record", None, entries[0]["record"])
    return inputs[0].parsed


def _repeated_question(rep: ImportReport, file: str, n: int, record, first) -> None:
    """Record ``n`` asks the question of an earlier record: one report per question and
    system, the first (see module doc); a different second report is kept for researchers.
    Either way the record is kept as released (:mod:`.released`): an export writes it back."""
    m, first_response, item = first
    response = record["response"]
    if item is not None:
        released.keep(item, FORMAT, n, record)
    if response == first_response:
        rep.warn(file, n, "question", f"the same question and report as record {m}: imported once")
        return
    message = (
        f"the same question as record {m} with a different report: record {m}'s report is "
        f"imported (the one annotators read); record {n}'s is kept for researchers only "
        "(Report.original, set_aside)"
    )
    rep.warn(file, n, "question", message)
    if item is not None:
        item.original_extra.setdefault("set_aside", []).append({"record": n, "response": response})


def _parse_sections(
    problems: Problems, rep: ImportReport, file: str, n: int, sections: list
) -> ParsedReport | None:
    read = _read_sections(problems, n, sections)
    if read is None:
        return None
    citations, unkeyed, dropped, raw_sections = read
    if rep is not None:
        for where, url in dropped:
            rep.warn(file, n, where, f"{url[:80]!r} is not an http(s) address: dropped")
    linkable = sorted(citations, key=len, reverse=True)  # generated keys are in no text
    if unkeyed:
        _key_unkeyed(rep, file, n, unkeyed, citations)
    unlisted = _unlisted_numbers(raw_sections, citations)
    find = AnchorFinder(anchor_forms(linkable))
    out = []
    for i, (title, text, table) in enumerate(raw_sections):
        paras = []
        for p in split_paragraphs(text):
            anchors = outside_math(p, find(p))
            if unlisted:
                anchors = sorted(anchors + _unlisted_anchors(p, unlisted))
            if "](" in p:  # a link citing no listed id is still a citation (issue 25),
                # unless it is part of a marker: "[id | [Gemini Team](url) | 2024 | …]"
                markers = [(m.start(), m.end(), "") for m in PIPE_MARKER.finditer(p)]
                anchors = sorted(anchors + link_anchors(p, citations, anchors + markers))
            paras.append(ParsedParagraph(p, anchors))
        markers = (  # scanned only when the report has such markers (issue 29)
            sorted({int(m.group(2)) for m in _NUMBER_MARKER.finditer(text)} & unlisted)
            if unlisted
            else []
        )
        if markers:
            rep.warn(
                file,
                n,
                f"response.sections[{i}].text",
                ", ".join(f"[{k}]" for k in markers)
                + (" cites" if len(markers) == 1 else " cite")
                + " no listed source (no citation with that id in the report): kept as plain"
                " numbered marker(s) after the listed sources' numbers, linked to nothing",
            )
        out.append(ParsedSection(title, paras, table))
    return ParsedReport(out, citations)


def _read_sections(problems: Problems, n: int, sections: list):
    """The sections' fields and listed sources, checked: (citations by key, the sources
    listed with an empty id, the urls dropped, (title, text, table) of each section), or
    None when something is wrong (said in ``problems``)."""
    citations: dict[str, ParsedCitation] = {}
    unkeyed: list[tuple[str, ParsedCitation]] = []  # (field, citation) of each empty id
    dropped: list[tuple[str, str]] = []  # (field, url) of each URL that is no web address
    raw_sections = []
    ok = True
    for i, sec in enumerate(sections):
        where = f"response.sections[{i}]"
        if not isinstance(sec, dict):
            problems.add(n, where, f"expected an object, found {type_name(sec)}")
            ok = False
            continue
        title = sec.get("title") or ""
        if not isinstance(title, str):
            problems.add(n, f"{where}.title", f"expected a string, found {type_name(title)}")
            ok = False
        text = sec.get("text")
        if not isinstance(text, str):
            msg = (
                "missing required field"
                if text is None
                else f"expected a string, found {type_name(text)}"
            )
            problems.add(n, f"{where}.text", msg)
            ok = False
            text = ""
        table = sec.get("table")
        if table is not None and not isinstance(table, (dict, list)):
            problems.add(
                n, f"{where}.table", f"expected an object or null, found {type_name(table)}"
            )
            ok = False
        cits = sec.get("citations") or []
        if not isinstance(cits, list):
            problems.add(n, f"{where}.citations", f"expected a list, found {type_name(cits)}")
            ok = False
            cits = []
        for j, c in enumerate(cits):
            parsed = _parse_citation(problems, n, where, j, c, dropped)
            if parsed is None:
                ok = False
                continue
            key = parsed.key
            if not key:
                unkeyed.append((f"{where}.citations[{j}].id", parsed))
                continue
            prev = citations.get(key)
            if prev is None:
                citations[key] = parsed
            elif not _merge(prev, parsed):
                problems.add(
                    n,
                    f"{where}.citations[{j}].title",
                    f"citation {parsed.key!r} has another title elsewhere in the report",
                )
                ok = False
        raw_sections.append((title if isinstance(title, str) else "", text, table))
    return (citations, unkeyed, dropped, raw_sections) if ok else None


def _merge(prev: ParsedCitation, other: ParsedCitation) -> bool:
    """The same source listed again (another section): its snippets and metadata join the
    first listing's. False when the titles contradict (then they are not one source)."""
    if other.title and prev.title and other.title != prev.title:
        return False
    prev.title = prev.title or other.title
    prev.url = prev.url or other.url
    prev.snippets.extend(s for s in other.snippets if s not in prev.snippets)
    for k, v in other.metadata.items():
        prev.metadata.setdefault(k, v)
    return True


#: The key given to a listed source whose id is empty (never found in report text).
GENERATED_KEY = "no-id-{}"


def _key_unkeyed(rep, file, n, unkeyed, citations) -> None:
    """Sources listed with an empty id (module doc): the keyed source of the same title, else
    one source per title (or url) under a generated key; one warning per source."""
    by_title = {c.title: k for k, c in citations.items() if c.title}
    generated: dict[str, str] = {}
    listings: dict[str, list[str]] = {}
    for where, c in unkeyed:
        identity = c.title or c.url
        key = by_title.get(c.title) if c.title else None
        if key is None:
            key = generated.get(identity) if identity else None
        if key is None:
            number = len(generated) + 1
            while GENERATED_KEY.format(number) in citations:
                number += 1
            key = c.key = GENERATED_KEY.format(number)
            citations[key] = c
            if identity:
                generated[identity] = key
        elif not _merge(citations[key], c):  # pragma: no cover - same title or url by design
            continue
        listings.setdefault(key, []).append(where)
    for key, wheres in listings.items():
        c = citations[key]
        name = repr(c.title[:80]) if c.title else c.url or "(snippets only)"
        more = f" (and {len(wheres) - 1} more listing(s))" if len(wheres) > 1 else ""
        if key.startswith(GENERATED_KEY.format("")):
            what = f"kept as a listed source under the generated key {key!r}"
        else:
            what = f"the source listed with id {key!r} and the same title"
        rep.warn(file, n, wheres[0], f"empty citation id{more}: {name}: {what}")


_CITATION_FIELDS = frozenset({"id", "title", "snippets", "metadata"})
#: ``isinstance(x, str)`` as one C callable for ``map`` (no generator frame per snippet)
_IS_STR = str.__instancecheck__


def _parse_citation(
    problems: Problems, n: int, section: str, j: int, c, dropped: list[tuple[str, str]]
) -> ParsedCitation | None:
    """One listed source (``section``'s citation ``j``); an empty id gives key "" (keyed
    later, see :func:`_key_unkeyed`).

    A citation as the released files have them (an object of id, title, snippets and
    metadata, each of its type, a non-empty id) is read by a short path: 150,000 of them
    in the report benchmark's 15,000 reports (issue 29). Anything else, by
    :func:`_parse_citation_checked`, which says what is wrong; both read the same."""
    if type(c) is dict and c.keys() <= _CITATION_FIELDS:
        key, title = c.get("id"), c.get("title") or ""
        snippets, metadata = c.get("snippets") or [], c.get("metadata") or {}
        if (
            type(key) is str
            and type(title) is str
            and type(snippets) is list
            and type(metadata) is dict
            and all(map(_IS_STR, snippets))
        ):
            key = key.strip()
            if key and len(key) <= 300:
                metadata = dict(metadata)
                url = metadata.get("url")
                if not url or not isinstance(url, str) or len(url) > 2000:
                    url = ""
                elif not is_web_url(url):
                    dropped.append((f"{section}.citations[{j}].metadata.url", url))
                    url = ""
                return ParsedCitation(key, title, list(snippets), url, metadata)
    return _parse_citation_checked(problems, n, f"{section}.citations[{j}]", c, dropped)


def _parse_citation_checked(
    problems: Problems, n: int, where: str, c, dropped: list[tuple[str, str]]
) -> ParsedCitation | None:
    """:func:`_parse_citation`, every field checked in turn; the first problem is said."""
    if not isinstance(c, dict):
        problems.add(n, where, f"expected an object, found {type_name(c)}")
        return None
    raw = c.get("id")
    key = raw if isinstance(raw, str) else require(problems, n, c, "id", "id", label=f"{where}.id")
    if key is None:
        return None
    key = key.strip()
    if len(key) > 300:
        problems.add(n, f"{where}.id", "must be 1 to 300 characters")
        return None
    title = c.get("title") or ""
    if not isinstance(title, str):
        problems.add(n, f"{where}.title", f"expected a string, found {type_name(title)}")
        return None
    snippets = c.get("snippets") or []
    if not isinstance(snippets, list) or not all(map(_IS_STR, snippets)):
        problems.add(n, f"{where}.snippets", "expected a list of strings")
        return None
    metadata = c.get("metadata") or {}
    if not isinstance(metadata, dict):
        problems.add(n, f"{where}.metadata", f"expected an object, found {type_name(metadata)}")
        return None
    metadata = dict(metadata)
    extras = c.keys() - _CITATION_FIELDS  # most citations have none
    for extra in sorted(extras) if extras else ():
        metadata.setdefault(extra, c[extra])  # e.g. corpus_id: kept, not lost
    url = metadata.get("url") if isinstance(metadata.get("url"), str) else ""
    if len(url) > 2000:
        url = ""
    if url and not is_web_url(url):
        # the one link rule (annotation.links): dropped, said by a warning, never a link
        dropped.append((f"{where}.metadata.url", url))
        url = ""
    if not key and not (title.strip() or url or any(s.strip() for s in snippets)):
        problems.add(
            n, f"{where}.id", "empty, and the citation has no title, url or snippet: no source"
        )
        return None
    return ParsedCitation(key=key, title=title, snippets=list(snippets), url=url, metadata=metadata)


_NUMBER_MARKER = re.compile(r"(\^?)\[(\d+)\]")
_BRACKETED = re.compile(r"\[(\d+)\]")
_CARET_BRACKETED = re.compile(r"\^\[(\d+)\]")


def _unlisted_numbers(raw_sections, citations) -> set[int]:
    """In a report with numbered citations, the ``[k]`` within 1..max that cite nothing.

    Larger numbers in brackets are not citations (a year such as "Ramsey [1930]").
    """
    numbers = []
    for k in citations:  # every key a number, else none is (most reports: the first)
        digits = k.strip("[]^")
        if not digits.isdecimal():
            return set()
        numbers.append(int(digits))
    if not numbers:
        return set()
    known, top = set(numbers), max(numbers)
    # each distinct number once, by findall (a Python step per distinct number, not per
    # marker; a pattern that starts with "[" is searched for its first character, one that
    # may start with "^" is tried at every position: issue 29)
    # every number 1..top listed (most reports): no [k] within them cites nothing
    complete = len(known - {0}) == top
    found: set[int] = set()
    for _, text, _ in raw_sections:
        if not complete:
            found.update(k for k in map(int, set(_BRACKETED.findall(text))) if 1 <= k <= top)
        if "^[" in text:  # "^[16]" is a marker whatever its number, "[1930]" a year
            found.update(map(int, set(_CARET_BRACKETED.findall(text))))
    return found - known


def _unlisted_anchors(text: str, unlisted: set[int]) -> list[tuple[int, int, str]]:
    """Anchors keyed by the marker itself ("[3]"), a key no citation has: normalisation
    renders them as plain numbered markers (annotation.normalise)."""
    return [
        (m.start(), m.end(), f"[{m.group(2)}]")
        for m in _NUMBER_MARKER.finditer(text)
        if int(m.group(2)) in unlisted
    ]


# --- Writing reports back in the released form ----------------------------------------------


def to_record(report: StoredReport) -> dict:
    """One stored report as a released record: each listed source under the first section
    whose text cites it (uncited ones under the first section), its id as the key the text
    cites (``[n]`` for a number)."""
    cited_in: dict[str, int] = {}
    for i, (_title, _table, paragraphs) in enumerate(report.sections):
        text = "\n\n".join(paragraphs)
        for c in report.citations:
            if c.key not in cited_in and any(f in text for f in marker_forms(c.key)):
                cited_in[c.key] = i
    sections = []
    for title, table, paragraphs in report.sections:
        section = {"title": title, "text": "\n\n".join(paragraphs), "citations": []}
        if table is not None:
            section["table"] = table
        sections.append(section)
    for c in report.citations:
        metadata = dict(c.metadata)
        if c.url and not metadata.get("url"):
            metadata["url"] = c.url
        where = sections[cited_in.get(c.key, 0)] if sections else None
        if where is not None:
            where["citations"].append(
                {"id": c.key, "title": c.title, "snippets": list(c.snippets), "metadata": metadata}
            )
    return {"question": report.question_text, "response": {"sections": sections}}


def dump_reports(study, *, system: str) -> dict[str, str]:
    """One system's reports as a ScholarQA-CS2 report file, in the layout it was imported
    in (a JSON list, or JSON lines as ``<system>.jsonl``; :func:`.released.dumps`): the
    records as released, in file order (:mod:`.released`), then the reports that have none, built from
    what is stored (:func:`to_record`); textless placeholder reports are not reports."""
    written = released.for_export(study, system, FORMAT)
    records = [e["data"] for e in written.records] + [to_record(r) for r in written.rebuilt]
    text, lines = released.dumps(records, written.records)
    return {f"{system}.{'jsonl' if lines else 'json'}": text}


register(
    Format(
        "reports",
        FORMAT,
        "ScholarQA-CS2 report file: a JSON list of {question, response: {sections}}",
        load=report_loader(
            parse_reports,
            source_format=FORMAT,
            parts=Parts(check_records, independent, parse_records),
        ),  # fmt: skip
        dump=dump_reports,
        reread=reread,
        dump_options=(Option("system", "the system whose reports are written", required=True),),
        label="ScholarQA-CS2 report file",
        extension=".json",
        shape=(
            "One system's reports, a JSON list or JSON lines of\n"
            '  {"question": "<text>", "response": {"sections": [{"title", "text",\n'
            '   "citations": [{"id": "<marker as in text>", "title", "snippets": [...],\n'
            '                  "metadata": {...}}], "table": null}]}}\n'
            'A citation id appears verbatim in the text ("(Lewis et al., 2020)", "[2]").'
        ),
        example=Example(EXAMPLES, "scholarqa_reports.json", {"system": "example-system"}),
        signatures=(Signature.of("a ScholarQA-CS2 report file", question=str, response=dict),),
    )
)
