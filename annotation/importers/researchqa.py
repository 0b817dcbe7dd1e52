"""ResearchQA (000/001): questions with rubrics, and system responses.

Questions: a JSON list or JSON lines of ``{id, general_domain, subdomain, field, query, date,
rubric: [{rubric_item, type, weight?}]}``; stored with origin "survey_mined" and a rubric of
kind "researchqa" (an item's ``weight`` kept when given). Responses: one JSON object
``{id: {"answer": markdown, "citation_metadata"?}}``; each answer is split into sections by
headings and paragraphs by blank lines, citations kept as they appear
(:func:`annotation.importers.structure.parse_markdown`); ``citation_metadata`` is kept as
written in the report's original. Any other key is named in a warning, never dropped
silently.
"""

from __future__ import annotations

from annotation.models import Question

from .base import ImportReport
from .common import (
    Problems,
    Source,
    is_number,
    optional_str,
    parse_json_records,
    require,
    type_name,
)
from .questions import (
    ItemInput,
    QuestionInput,
    check_unique_ids,
    item_type,
    parse_date,
    question_loader,
    unknown_keys,
)
from .registry import Format, Option, register
from .structure import ReportInput, parse_markdown, report_loader, stored_reports, to_markdown

RUBRIC_KIND = "researchqa"
WHAT = "ResearchQA"
#: What a ResearchQA item and its rubric items carry; any other key is named in a warning.
QUESTION_KEYS = {"id", "general_domain", "subdomain", "field", "query", "date", "rubric"}
ITEM_KEYS = {"rubric_item", "type", "weight"}
#: What a response carries beside its answer, kept in ``Report.original`` (researchers).
RESPONSE_EXTRAS = ("citation_metadata",)


def parse_questions(src: Source) -> list[QuestionInput]:
    records = parse_json_records(src)
    problems = Problems(src.name)
    out = []
    for n, r in enumerate(records, start=1):
        qid = require(problems, n, r, "id", "id")
        text = require(problems, n, r, "query", str)
        if not isinstance(r, dict):
            continue
        fields = {
            "text": text,
            "domain": optional_str(problems, n, r, "general_domain"),
            "subdomain": optional_str(problems, n, r, "subdomain"),
            "field": optional_str(problems, n, r, "field"),
            "origin": Question.Origin.SURVEY_MINED,
            "cutoff_date": parse_date(problems, n, r.get("date")),
        }
        rubric = require(problems, n, r, "rubric", list)
        items = []
        said = unknown_keys(r, QUESTION_KEYS, what=WHAT)
        for i, item in enumerate(rubric or []):
            where = f"rubric[{i}]"
            t = require(problems, n, item, "rubric_item", str, label=f"{where}.rubric_item")
            if not isinstance(item, dict):
                continue
            said += unknown_keys(item, ITEM_KEYS, where=f"{where}.", what=WHAT)
            typ = item_type(problems, n, f"{where}.type", item.get("type"))
            weight = item.get("weight", 1)  # kept when given: a weighted rubric's item
            if not is_number(weight) or weight <= 0:
                problems.add(n, f"{where}.weight", f"expected a positive number, found {weight!r}")
                continue
            if t and typ:
                items.append(ItemInput(t, typ, float(weight)))
        if qid is not None and text is not None and rubric is not None:
            out.append(QuestionInput(n, qid, fields, {RUBRIC_KIND: items}, warnings=said))
    check_unique_ids(problems, out)
    problems.raise_if_any()
    return out


def parse_responses(src: Source, rep: ImportReport | None = None) -> list[ReportInput]:
    """Each ``{id: {answer, citation_metadata?}}``; ``citation_metadata`` is kept in the
    report's original, another key is named in a warning in ``rep``."""
    data = parse_json_records(src, allow_mapping=True)
    problems = Problems(src.name)
    if not isinstance(data, dict):
        problems.file_level(
            'expected one JSON object {id: {"answer": ...}}; found a list'
            + (" (a ScholarQA-CS2 file? use --format scholarqa)" if _looks_scholarqa(data) else "")
        )
        problems.raise_if_any()
    out = []
    for n, (qid, entry) in enumerate(data.items(), start=1):
        if not isinstance(entry, dict):
            problems.add(n, qid, f"expected an object with 'answer', found {type_name(entry)}")
            continue
        answer = require(problems, n, entry, "answer", str, label=f"{qid}.answer")
        if answer is not None:
            kept = {k: entry[k] for k in RESPONSE_EXTRAS if k in entry}
            out.append(
                ReportInput(n, str(qid), str(qid), parse_markdown(answer), original_extra=kept)
            )
            if rep is not None:
                for fld, message in unknown_keys(
                    entry, {"answer", *RESPONSE_EXTRAS}, where=f"{qid}.", what=WHAT
                ):
                    rep.warn(src.name, n, fld, message)
    problems.raise_if_any()
    return out


def _looks_scholarqa(data) -> bool:
    return (
        bool(data) and isinstance(data[0], dict) and "response" in data[0] and "question" in data[0]
    )


# --- Writing back (round trips, issue 18) ---------------------------------------------------


def dump_questions(study, *, rubric_kind: str = RUBRIC_KIND) -> dict[str, str]:
    """The study's questions as ResearchQA items (JSON lines), with their rubric of kind
    ``rubric_kind``."""
    import json

    lines = []
    for q in study.questions.order_by("pk").prefetch_related("rubrics__items"):
        rubric = next((r for r in q.rubrics.all() if r.kind == rubric_kind), None)
        items = sorted(rubric.items.all(), key=lambda i: i.position) if rubric else []
        rec = {
            "id": q.external_id,
            "general_domain": q.domain,
            "subdomain": q.subdomain,
            "field": q.field,
            "query": q.text,
            "date": q.cutoff_date.isoformat() if q.cutoff_date else None,
            "rubric": [
                {"rubric_item": i.text, "type": i.item_type}
                | ({"weight": i.weight} if i.weight != 1 else {})
                for i in items
            ],
        }
        lines.append(json.dumps(rec, ensure_ascii=False))
    return {"researchqa_items.jsonl": "".join(line + "\n" for line in lines)}


def dump_responses(study, *, system: str) -> dict[str, str]:
    """One system's reports as a ResearchQA responses file ``{id: {"answer": markdown}}``."""
    import json

    data = {r.question_id: {"answer": to_markdown(r)} for r in stored_reports(study, system=system)}
    return {f"{system}.json": json.dumps(data, ensure_ascii=False, indent=1) + "\n"}


_SYSTEM = Option("system", "the system whose reports are written", required=True)

register(
    Format(
        "reports",
        "researchqa",
        "ResearchQA responses: one JSON object {id: {answer: markdown}}",
        load=report_loader(parse_responses, source_format="researchqa"),
        dump=dump_responses,
        dump_options=(_SYSTEM,),
        label="ResearchQA responses",
        extension=".json",
    )
)
register(
    Format(
        "questions",
        "researchqa",
        "ResearchQA items: JSON lines of {id, general_domain, subdomain, field, query, date, "
        "rubric: [{rubric_item, type}]}",
        load=question_loader(lambda src: parse_questions(src)),
        dump=dump_questions,
        label="ResearchQA items and rubrics",
        extension=".jsonl",
    )
)
