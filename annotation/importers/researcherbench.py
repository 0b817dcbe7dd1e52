"""ResearcherBench (004): questions, weighted rubrics, and system responses.

Questions: ``questions.json``, a list of ``{id, question, category, Subject}`` (``category``
kept as the question's field, ``Subject`` as its subdomain; any other key is named in a warning); the rubric comes from a second file ``rubric.json``,
``[{id, question, rubric: [{point, weight}]}]``, passed as ``rubric=`` (``--rubric FILE``).
Responses: ``[{id, question, response}]`` with a markdown ``response``.
"""

from __future__ import annotations

from .base import ImportReport
from .common import (
    Problems,
    Source,
    is_number,
    optional_str,
    parse_json_records,
    read_source,
    require,
    type_name,
)
from .questions import ItemInput, QuestionInput, check_unique_ids, question_loader, unknown_keys
from .registry import Format, Option, register
from .structure import ReportInput, parse_markdown, report_loader, stored_reports, to_markdown

RUBRIC_KIND = "researcherbench"
#: What a ResearcherBench question record carries (``Subject`` kept as the subdomain).
QUESTION_KEYS = {"id", "question", "category", "Subject"}
WHAT = "ResearcherBench"


def parse_questions(src: Source, rubric_src: Source | None) -> list[QuestionInput]:
    records = parse_json_records(src)
    problems = Problems(src.name)
    out = []
    for n, r in enumerate(records, start=1):
        qid = require(problems, n, r, "id", "id")
        text = require(problems, n, r, "question", str)
        if not isinstance(r, dict) or qid is None or text is None:
            continue
        fields = {
            "text": text,
            "field": optional_str(problems, n, r, "category"),
            "subdomain": optional_str(problems, n, r, "Subject"),  # e.g. "Model Architecture"
        }
        out.append(
            QuestionInput(n, qid, fields, warnings=unknown_keys(r, QUESTION_KEYS, what=WHAT))
        )
    check_unique_ids(problems, out)
    problems.raise_if_any()
    if rubric_src is not None:
        by_id = {q.external_id: q for q in out}
        rproblems = Problems(rubric_src.name)
        for n, r in enumerate(parse_json_records(rubric_src), start=1):
            qid = require(rproblems, n, r, "id", "id")
            items = require(rproblems, n, r, "rubric", list)
            if qid is None or items is None:
                continue
            if qid not in by_id:
                rproblems.add(n, "id", f"no question with id {qid!r} in {src.name}")
                continue
            parsed = []
            said = by_id[qid].warnings
            said += unknown_keys(
                r, {"id", "question", "rubric"}, where=f"{rubric_src.name}: ", what=WHAT
            )
            for i, item in enumerate(items):
                where = f"rubric[{i}]"
                point = require(rproblems, n, item, "point", str, label=f"{where}.point")
                if not isinstance(item, dict):
                    continue
                said += unknown_keys(
                    item, {"point", "weight"}, where=f"{rubric_src.name}: {where}.", what=WHAT
                )
                weight = item.get("weight", 1)
                if not is_number(weight) or weight <= 0:
                    rproblems.add(
                        n, f"{where}.weight", f"expected a positive number, found {weight!r}"
                    )
                    continue
                if point:
                    parsed.append(ItemInput(point, "information", float(weight)))
            by_id[qid].rubrics[RUBRIC_KIND] = parsed
        rproblems.raise_if_any()
    return out


def parse_responses(src: Source, rep: ImportReport | None = None) -> list[ReportInput]:
    records = parse_json_records(src)
    problems = Problems(src.name)
    out = []
    seen: dict[str, int] = {}
    for n, r in enumerate(records, start=1):
        qid = require(problems, n, r, "id", "id")
        if not isinstance(r, dict):
            continue
        response = r.get("response")
        if isinstance(response, dict):
            problems.add(
                n,
                "response",
                "expected markdown text, found an object (a ScholarQA-CS2 file? use --format scholarqa)",
            )
            continue
        response = require(problems, n, r, "response", str)
        question = r.get("question")
        if question is not None and not isinstance(question, str):
            problems.add(n, "question", f"expected a string, found {type_name(question)}")
            question = None
        if qid is not None and qid in seen:
            problems.add(n, "id", f"id {qid!r} already used by record {seen[qid]}")
        if qid is not None:
            seen.setdefault(qid, n)
        if qid is not None and response is not None:
            out.append(ReportInput(n, qid, question or qid, parse_markdown(response)))
            for fld, message in unknown_keys(r, {"id", "question", "response"}, what=WHAT):
                if rep is not None:
                    rep.warn(src.name, n, fld, message)
    problems.raise_if_any()
    return out


# --- Writing back (round trips, issue 18) ---------------------------------------------------


def dump_questions(study, *, rubric_kind: str = RUBRIC_KIND) -> dict[str, str]:
    """``questions.json`` (id, question, category) and ``rubric.json`` (the rubric of kind
    ``rubric_kind``: points and weights), as ResearcherBench ships them."""
    import json

    questions, rubrics = [], []
    for q in study.questions.order_by("pk").prefetch_related("rubrics__items"):
        rec = {"id": q.external_id, "question": q.text}
        if q.field:
            rec["category"] = q.field
        if q.subdomain:
            rec["Subject"] = q.subdomain
        questions.append(rec)
        rubric = next((r for r in q.rubrics.all() if r.kind == rubric_kind), None)
        if rubric is not None:
            items = sorted(rubric.items.all(), key=lambda i: i.position)
            rubrics.append({"id": q.external_id, "question": q.text,
                            "rubric": [{"point": i.text, "weight": i.weight} for i in items]})  # fmt: skip
    dumps = lambda data: json.dumps(data, ensure_ascii=False, indent=1) + "\n"  # noqa: E731
    return {"questions.json": dumps(questions), "rubric.json": dumps(rubrics)}


def dump_responses(study, *, system: str) -> dict[str, str]:
    """One system's reports as ResearcherBench responses ``[{id, question, response}]``."""
    import json

    data = [
        {"id": r.question_id, "question": r.question_text, "response": to_markdown(r)}
        for r in stored_reports(study, system=system)
    ]
    return {f"{system}.json": json.dumps(data, ensure_ascii=False, indent=1) + "\n"}


register(
    Format(
        "reports",
        "researcherbench",
        "ResearcherBench responses: a JSON list of {id, question, response: markdown}",
        load=report_loader(parse_responses, source_format="researcherbench"),
        dump=dump_responses,
        dump_options=(Option("system", "the system whose reports are written", required=True),),
        label="ResearcherBench responses",
        extension=".json",
    )
)
register(
    Format(
        "questions",
        "researcherbench",
        "ResearcherBench questions.json (with its rubric.json as --rubric)",
        load=question_loader(
            lambda src, rubric=None: parse_questions(src, read_source(rubric) if rubric else None)
        ),
        options=(Option("rubric", "ResearcherBench rubric.json", type="file"),),
        dump=dump_questions,
        label="ResearcherBench questions.json and rubric.json",
        extension=".zip",
    )
)
