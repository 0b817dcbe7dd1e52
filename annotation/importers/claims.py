"""Claims of reports, for the claim citation check (003 A.5, METHODS §1 and §2.6). Kind
``claims``, format ``jsonl`` (issue 26, dead end 5: no import carried claims, so the check
could only start after a live judge extracted them).

JSON lines (or a JSON list), one claim a record::

    {"question_id": "q1", "system": "sqa", "position": 0, "paragraph": 3,
     "text": "Fine-tuning on summarization raises memorization",
     "citations": ["[1]", "[2]"], "source": "gpt-4.1 extraction"}

``question_id`` and ``system`` name the report (imported first); ``position`` orders the
report's claims (and is the claim's natural key within its report: a re-import updates the
claim at that position, never duplicates it; default: the record's order within its
report); ``paragraph`` is the number of the paragraph the claim ends in (optional: found
by its text when left out); ``citations`` are citation keys of that report, in the order
they close the claim (at least one: a claim is a span ending in citations); ``source``
says where the claim came from and is never shown to annotators.

Checked against the report: the stored report is what annotators read, not the released
text (the reader renumbers citations, ``[^9][^11]`` shown ``[1][2]``, and strips markdown),
so a claim written against the released text would otherwise be shown wrong, with no
warning (a tester's finding). The rule:

* ``paragraph``, when given, is a paragraph of the report;
* ``text`` stands in that paragraph as the page shows it: its letters and digits are a
  run of those of the paragraph's selectable text (the metric-wise rule,
  :func:`annotation.rendering.selectable_letters`), citation markers left out on both
  sides (``[3]``, ``[^9]``, ``【5】``: the claim's sources are its ``citations``). Markdown
  (``**``, ``__``) is read as the reader reads it: the claim is stored as the page shows
  that span (a span over math, shown as MathML, is found in the paragraph's stored text
  instead and kept as written, markers and emphasis marks left out). The text is stored
  as given: what it has before its first letter and after its last (a final period, a
  quote) is kept when the page shows it there. A paragraph number
  that does not hold the text is mapped to the one
  paragraph that does (a warning says so); held by several, or by none, it is refused;
* ``citations`` are the report's keys; keys of the released text are mapped to the keys
  they became (the report keeps which: ``Report.original``), with a warning. Keys that
  read both ways as different sources are taken in the reading whose sources the
  claim's paragraph cites, else refused; a marker as shown (``"[1]"`` for key ``"1"``)
  is refused, naming the key.

A problem names the record and the field, and nothing is written.

The contract of :mod:`annotation.importers.base`: every record is checked against the study
first and a problem names the record and the field; nothing is written when one is wrong.
A claim already checked by an expert keeps its checks (claims are updated, never deleted),
and a claim experts checked (or began to: a claim check draft) or a judge gave a verdict
keeps its text, citations and paragraph: a file that changes them is refused naming the
record and field (:func:`annotation.units.refused_changes`, :func:`annotation.units.claim_work`).
Each claim a file changes is listed (``changes``, what a dry run shows). The same claim
(text and citations) at two positions of one report is refused: the claim check would
show it twice.
"""

from __future__ import annotations

import re
from pathlib import Path

from annotation.models import Paragraph, Report, ReportClaim, cited
from annotation.rendering import CITATION_MARKER, claim_letters, claim_spans, paragraph_html

from .base import ImportReport
from .common import (
    Problems,
    json_lines_text,
    optional_str,
    parse_json_records,
    read_source,
    require,
    sync_rows,
    type_name,
)
from .registry import Example, Format, Kind, register, register_kind

EXAMPLES = Path(__file__).resolve().parent / "examples"

FIELDS = ["paragraph", "text", "citation_keys", "source"]
#: Bounds of the columns (a larger value is refused naming the record, never a database error).
MAX_POSITION = 2**31 - 1
SOURCE_CHARS = ReportClaim._meta.get_field("source").max_length
#: Markdown emphasis marks, left out of a claim found only in its paragraph's stored text.
EMPHASIS = re.compile(r"\*\*|__")


def _index(study):
    reports = {
        (q, s): pk
        for pk, q, s in Report.objects.filter(question__study=study).values_list(
            "id", "question__external_id", "system__name"
        )
    }
    return reports


class _Report:
    """One stored report as a claim is checked against it, read once and only for the
    reports a file names: its paragraphs as the page renders them, its sources' keys, and
    which key each key of the released text became (``Report.original``: the reader
    renumbers ``[^9][^11]`` as ``[1][2]``, blinding)."""

    def __init__(self, pk: int):
        report = Report.objects.only("citations", "original").get(pk=pk)
        citations = cited(report.citations)
        self.keys = set(citations)
        original = report.original if isinstance(report.original, dict) else {}
        self.released: dict[str, str] = {}
        for c in [*(original.get("citations") or ()), *(original.get("unlisted_markers") or ())]:
            if isinstance(c, dict) and str(c.get("normalised_key", "")) in self.keys:
                self.released[str(c.get("key", c.get("marker", "")))] = str(c["normalised_key"])
        self.paragraphs = {}  # number -> (pk, rendered html, keys it cites)
        self.written = {}  # number -> letters of its stored text, markers left out
        for p in Paragraph.objects.filter(report_id=pk).order_by("number"):
            html, keys = paragraph_html(p, p.anchors, citations, f"p{p.number}")
            self.paragraphs[p.number] = (p.pk, html, set(keys))
            self.written[p.number] = claim_letters(p.text)

    def shown_keys(self, cites: list[str]) -> list[str] | None:
        """``cites`` as keys of the released text, each mapped to the key it became
        (written ``"9"``, ``"[^9]"``, ``"[9]"`` or ``"^9"``), or None when one is not."""
        out = []
        for c in cites:
            key = c if c in self.released else c.strip().strip("\\[]^").strip()
            if key not in self.released:
                return None
            out.append(self.released[key])
        return out

    def places(self, text: str) -> dict[int, list[str]]:
        """paragraph number -> the claim's text as shown there, for each paragraph
        holding it (:func:`annotation.rendering.claim_spans`)."""
        out = {}
        wanted = claim_letters(text)
        for number, (_, html, _) in self.paragraphs.items():
            spans = claim_spans(html, text)
            if not spans and wanted and wanted in self.written[number]:
                # shown otherwise than written (math shown as MathML): the claim as
                # written, its markers and emphasis marks left out
                spans = [" ".join(EMPHASIS.sub("", CITATION_MARKER.sub("", text)).split())]
            if spans:
                out[number] = spans
        return out


def _numbers(numbers) -> str:
    return ", ".join(str(n) for n in sorted(numbers))


def read(
    src, study, rep: ImportReport | None = None, records_at: dict | None = None
) -> dict[tuple[int, int], tuple]:
    """(report id, position) -> (paragraph id, text, citation keys, source), all checked
    against the stored report (module doc, "Checked against the report"); ``records_at``,
    when given, is filled with (report id, position) -> the record's number."""
    records = parse_json_records(src)
    problems = Problems(src.name)
    reports = _index(study)
    stored: dict[int, _Report] = {}
    out: dict[tuple[int, int], tuple] = {}
    first: dict[tuple[int, int], int] = {} if records_at is None else records_at
    order: dict[int, int] = {}
    for n, r in enumerate(records, start=1):
        qid = require(problems, n, r, "question_id", "id")
        system = require(problems, n, r, "system", str)
        text = require(problems, n, r, "text", str)
        cites = require(problems, n, r, "citations", list)
        if None in (qid, system, text, cites):
            continue
        report = reports.get((qid, system))
        if report is None:
            problems.add(n, "system", f"no report of system {system!r} for question {qid!r}")
            continue
        position = r.get("position", order.get(report, 0))
        if isinstance(position, bool) or not isinstance(position, int) or position < 0:
            problems.add(n, "position", f"expected a number ≥ 0, found {type_name(position)}")
            continue
        if position > MAX_POSITION:
            problems.add(n, "position", f"at most {MAX_POSITION}")
            continue
        order[report] = position + 1
        if report not in stored:
            stored[report] = _Report(report)
        shown = stored[report]
        number = r.get("paragraph")
        if number is not None and (
            isinstance(number, bool)
            or not isinstance(number, int)
            or number not in shown.paragraphs
        ):
            problems.add(n, "paragraph", f"the report has no paragraph {number!r}")
            continue
        if not cites or not all(isinstance(c, str) and c for c in cites):
            problems.add(n, "citations", "expected a list of the report's citation keys")
            continue
        places = shown.places(text)
        if not places:
            where = f"paragraph {number}" if number is not None else "any paragraph"
            problems.add(
                n, "text",
                f"not found in {where} of the report (its letters and digits, citation "
                "markers left out, must be a run of those the page shows there)",
            )  # fmt: skip
            continue
        if number is not None and number not in places:
            if len(places) > 1:
                problems.add(
                    n, "paragraph",
                    f"the text is not in paragraph {number} but in paragraphs "
                    f"{_numbers(places)}: give the one it stands in",
                )  # fmt: skip
                continue
            found = next(iter(places))
            if rep is not None:
                rep.warn(src.name, n, "paragraph",
                         f"the text stands in paragraph {found}, not {number}: "
                         f"stored in paragraph {found}")  # fmt: skip
            number = found
        elif number is None:
            if len(places) > 1:
                problems.add(
                    n, "paragraph",
                    f"the text stands in paragraphs {_numbers(places)}: give its paragraph",
                )  # fmt: skip
                continue
            number = next(iter(places))
        spans = places[number]
        if len(set(spans)) > 1:  # the same letters shown two ways in one paragraph
            problems.add(n, "text", f"found {len(spans)} times in paragraph {number}")
            continue
        keys = _keys(problems, n, cites, shown, number)
        if keys is None:
            continue
        if rep is not None and keys != list(cites):
            rep.warn(src.name, n, "citations",
                     f"{', '.join(cites)} of the released text stored as the report's "
                     f"{', '.join(keys)}")  # fmt: skip
        if (report, position) in first:
            problems.add(n, "position", f"the same claim as record {first[(report, position)]}")
            continue
        first[(report, position)] = n
        source = optional_str(problems, n, r, "source")
        if len(source) > SOURCE_CHARS:
            problems.add(n, "source", f"at most {SOURCE_CHARS} characters")
            continue
        out[(report, position)] = (shown.paragraphs[number][0], spans[0], keys, source)
    problems.raise_if_any()
    return out


def _keys(problems, n: int, cites: list[str], shown: _Report, number: int) -> list[str] | None:
    """The report's keys of a claim's ``cites``: as written when they are the report's
    keys, mapped when they are keys of the released text (``Report.original``). When they
    read as different sources (the report's keys, the released text's, or the markers a
    reader sees, ``[1]`` for key ``1``), the paragraph decides (the one reading whose
    sources it cites); else, and for markers, the record is refused."""
    as_written = list(cites) if all(c in shown.keys for c in cites) else None
    released = shown.shown_keys(cites)
    inner = [c[1:-1] if c[:1] == "[" and c[-1:] == "]" else c for c in cites]
    as_marker = inner if inner != list(cites) and all(c in shown.keys for c in inner) else None
    readings = []
    for k in (as_written, released, as_marker):
        if k is not None and k not in readings:
            readings.append(k)
    if len(readings) > 1:
        cited_here = shown.paragraphs[number][2]
        fits = [k for k in readings if set(k) <= cited_here]
        if len(fits) == 1 and fits[0] in (as_written, released):
            return fits[0]
        problems.add(
            n, "citations",
            f"{', '.join(cites)} read as different sources of the report: "
            + "; ".join(
                f"{what} {', '.join(k)}"
                for what, k in (("the report's keys", as_written),
                                ("keys of its released text, now", released),
                                ("the markers shown, keys", as_marker))
                if k is not None
            )
            + f" (paragraph {number} cites {', '.join(sorted(cited_here)) or 'none'}); "
            "write the report's keys",
        )  # fmt: skip
        return None
    if as_written is not None or released is not None:
        return as_written if as_written is not None else released
    unknown = [c for c in cites if c not in shown.keys]
    hint = ""
    if as_marker is not None:
        # the marker as annotators read it ("[1]"), not the source's key ("1")
        bare = [c[1:-1] for c in unknown]
        hint = f" (a source's key is written without brackets: {', '.join(map(repr, bare))})"
    problems.add(n, "citations", f"the report cites no source {', '.join(unknown)}{hint}")
    return None


def load(source, study, rep: ImportReport, **_options) -> None:
    src = read_source(source)
    records_at: dict[tuple[int, int], int] = {}
    wanted = read(src, study, rep, records_at)
    rep.records = len(wanted)
    rows = {
        (c.report_id, c.position): c
        for c in ReportClaim.objects.filter(report__question__study=study).select_related("report")
    }
    stored = {
        key: (c.pk, (c.paragraph_id, c.text, c.citation_keys, c.source)) for key, c in rows.items()
    }
    _check(src.name, rows, stored, wanted, records_at, rep)
    sync_rows(
        ReportClaim, rep, stored=stored, wanted=wanted, fields=FIELDS,
        new_row=lambda key, v: {"report": key[0], "position": key[1],
                                **dict(zip(FIELDS, v, strict=True))},
    )  # fmt: skip


def _check(file, rows, stored, wanted, records_at, rep: ImportReport) -> None:
    """Before anything is written: a stored claim the file would change is listed
    (``rep.changes``: what a dry run shows), and refused when experts checked it or a
    judge gave it a verdict (:func:`annotation.units.refused_changes`: its text,
    citations and paragraph are kept, the labels were given to them); a claim the file
    adds may not repeat, text and citations, one the report keeps at another position
    (two identical claims on the claim check page)."""
    problems = Problems(file)
    kept = {}
    for key, values in wanted.items():
        old = stored.get(key)
        if old is None:
            continue
        changed = [f for f, a, b in zip(FIELDS, old[1], values, strict=True) if a != b]
        if not changed:
            continue
        row = rows[key]
        rep.change("ReportClaim", f"report {row.report.public_id}, claim at position {key[1]}",
                   changed, file, records_at.get(key))  # fmt: skip
        new = dict(zip(FIELDS, values, strict=True))
        kept[key] = (row, {"paragraph": new["paragraph"], "text": new["text"],
                           "citation_keys": new["citation_keys"]})  # fmt: skip
    if kept:
        from annotation.units import refused_changes

        for key, (row, new) in kept.items():
            for name, why in refused_changes(row, new).items():
                field = {"citation_keys": "citations"}.get(name, name)
                problems.add(records_at.get(key), field, why)
    same: dict[tuple[int, tuple], int] = {}  # (report, (text, keys)) -> its first record
    for key, values in sorted(wanted.items(), key=lambda kv: records_at.get(kv[0], 0)):
        claim = (key[0], (values[1], tuple(values[2])))
        if claim in same:  # shown twice, identical, on the claim check page
            problems.add(
                records_at.get(key), "text",
                f"the same claim (text and citations) as record {same[claim]} of this "
                "report: a claim is imported once",
            )  # fmt: skip
        else:
            same[claim] = records_at.get(key)
    others = {  # (report, (text, keys)) -> position, of stored claims the file leaves alone
        (key[0], (v[1], tuple(v[2]))): key[1] for key, (_, v) in stored.items() if key not in wanted
    }
    for key, values in wanted.items():
        other = others.get((key[0], (values[1], tuple(values[2]))))
        if other is not None:
            problems.add(
                records_at.get(key), "text",
                f"the same claim (text and citations) as the report's stored claim at "
                f"position {other}: a claim is imported once",
            )  # fmt: skip
    problems.raise_if_any()


def dump(study, **_options) -> dict[str, str]:
    """The study's claims in the format ``load`` reads (report by report, in order)."""
    rows = ReportClaim.objects.filter(report__question__study=study).order_by(
        "report__question__external_id", "report__system__name", "position", "pk"
    )
    records = []
    for c in rows.values(
        "report__question__external_id", "report__system__name", "position",
        "paragraph__number", "text", "citation_keys", "source",
    ):  # fmt: skip
        record = {"question_id": c["report__question__external_id"],
                  "system": c["report__system__name"], "position": c["position"]}  # fmt: skip
        if c["paragraph__number"] is not None:
            record["paragraph"] = c["paragraph__number"]
        record.update({"text": c["text"], "citations": c["citation_keys"]})
        if c["source"]:
            record["source"] = c["source"]
        records.append(record)
    return {"claims.jsonl": json_lines_text(records)}


register_kind(
    Kind(
        "claims",
        "claims of reports for the claim citation check (after the reports)",
        creates_study=False,
        default="jsonl",
    )
)
register(
    Format(
        "claims",
        "jsonl",
        "one claim a line: question_id, system, position, paragraph, text, citations "
        "(the report's citation keys), source (annotation/importers/claims.py)",
        load=load,
        dump=dump,
        label="Claims of reports (JSON lines)",
        extension=".jsonl",
        shape=(
            'JSON lines (or a JSON list), one claim a record: {"question_id", "system",\n'
            '"position"?, "paragraph"?, "text", "citations": ["<citation key>", ...], "source"?};\n'
            "the report (question_id, system) is imported first; citations are its keys.\n"
            "Checked against the stored report: the paragraph exists; the text stands in the\n"
            "report as the page shows it (letters and digits, citation markers left out;\n"
            "markdown read as the page reads it), stored as given there; a paragraph number\n"
            "that does not hold the text is mapped, with a warning, to the one paragraph\n"
            "that does (held by several or none: refused); citations are the report's keys or\n"
            "keys of its released text (mapped to the keys they became, [^9] -> 1) when that\n"
            "is unambiguous. The same text and citations twice in a report is refused; a claim\n"
            "experts checked or a judge gave a verdict keeps its text, citations and paragraph.\n"
            "Otherwise the record and field are named and nothing is written."
        ),
        example=Example(
            EXAMPLES,
            "claims.jsonl",
            needs=(
                ("questions", "researchqa", {}),
                ("reports", "researchqa", {"system": "example-system"}),
            ),
        ),  # fmt: skip
    )
)
