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
report); ``paragraph`` is the number of the paragraph the claim ends in (optional; the
page shows the claim in its paragraph when given); ``citations`` are citation keys of that
report, in the order they close the claim (at least one: a claim is a span ending in
citations); ``source`` says where the claim came from and is never shown to annotators.

The contract of :mod:`annotation.importers.base`: every record is checked against the study
first and a problem names the record and the field; nothing is written when one is wrong.
A claim already checked by an expert keeps its checks (claims are updated, never deleted).
"""

from __future__ import annotations

from pathlib import Path

from annotation.models import Paragraph, Report, ReportClaim, citation_keys

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


def _index(study):
    reports = {
        (q, s): pk
        for pk, q, s in Report.objects.filter(question__study=study).values_list(
            "id", "question__external_id", "system__name"
        )
    }
    paragraphs = {
        (r, n): pk
        for pk, r, n in Paragraph.objects.filter(report__question__study=study).values_list(
            "id", "report_id", "number"
        )
    }
    keys = citation_keys(Report.objects.filter(question__study=study))
    return reports, paragraphs, keys


def read(src, study) -> dict[tuple[int, int], tuple]:
    """(report id, position) -> (paragraph id, text, citation keys, source), all checked."""
    records = parse_json_records(src)
    problems = Problems(src.name)
    reports, paragraphs, keys = _index(study)
    out: dict[tuple[int, int], tuple] = {}
    first: dict[tuple[int, int], int] = {}
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
        paragraph = None
        if r.get("paragraph") is not None:
            number = r["paragraph"]
            paragraph = paragraphs.get((report, number)) if isinstance(number, int) else None
            if paragraph is None:
                problems.add(n, "paragraph", f"the report has no paragraph {number!r}")
                continue
        if not cites or not all(isinstance(c, str) and c for c in cites):
            problems.add(n, "citations", "expected a list of the report's citation keys")
            continue
        unknown = [c for c in cites if (report, c) not in keys]
        if unknown:
            hint = ""
            bare = [c[1:-1] for c in unknown if c[:1] == "[" and c[-1:] == "]"]
            if bare and all((report, c) in keys for c in bare):
                # the marker as annotators read it ("[1]"), not the source's key ("1")
                hint = (
                    f" (a source's key is written without brackets: {', '.join(map(repr, bare))})"
                )
            problems.add(n, "citations", f"the report cites no source {', '.join(unknown)}{hint}")
            continue
        if (report, position) in first:
            problems.add(n, "position", f"the same claim as record {first[(report, position)]}")
            continue
        first[(report, position)] = n
        source = optional_str(problems, n, r, "source")
        if len(source) > SOURCE_CHARS:
            problems.add(n, "source", f"at most {SOURCE_CHARS} characters")
            continue
        out[(report, position)] = (paragraph, text.strip(), list(cites), source)
    problems.raise_if_any()
    return out


def load(source, study, rep: ImportReport, **_options) -> None:
    src = read_source(source)
    wanted = read(src, study)
    rep.records = len(wanted)
    stored = {
        (r, p): (pk, tuple(v))
        for pk, r, p, *v in ReportClaim.objects.filter(report__question__study=study).values_list(
            "id", "report_id", "position", "paragraph_id", "text", "citation_keys", "source"
        )
    }
    sync_rows(
        ReportClaim, rep, stored=stored, wanted=wanted, fields=FIELDS,
        new_row=lambda key, v: {"report": key[0], "position": key[1],
                                **dict(zip(FIELDS, v, strict=True))},
    )  # fmt: skip


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
            "the report (question_id, system) is imported first; citations are its keys."
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
