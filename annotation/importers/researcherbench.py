"""ResearcherBench (004): questions, weighted rubrics, and system responses.

Questions: ``questions.json``, a list of ``{id, question, ...}`` (``category`` kept as the
question's field when present); the rubric comes from a second file ``rubric.json``,
``[{id, question, rubric: [{point, weight}]}]``, passed as ``rubric=`` (``--rubric FILE``).
Responses: ``[{id, question, response}]`` with a markdown ``response``.
"""

from __future__ import annotations

from .common import (
    Problems,
    Source,
    is_number,
    optional_str,
    parse_json_records,
    require,
    type_name,
)
from .questions import ItemInput, QuestionInput, check_unique_ids
from .structure import ReportInput, parse_markdown

RUBRIC_KIND = "researcherbench"


def parse_questions(src: Source, rubric_src: Source | None) -> list[QuestionInput]:
    records = parse_json_records(src)
    problems = Problems(src.name)
    out = []
    for n, r in enumerate(records, start=1):
        qid = require(problems, n, r, "id", "id")
        text = require(problems, n, r, "question", str)
        if not isinstance(r, dict) or qid is None or text is None:
            continue
        fields = {"text": text, "field": optional_str(problems, n, r, "category")}
        out.append(QuestionInput(n, qid, fields))
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
            for i, item in enumerate(items):
                where = f"rubric[{i}]"
                point = require(rproblems, n, item, "point", str, label=f"{where}.point")
                if not isinstance(item, dict):
                    continue
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


def parse_responses(src: Source) -> list[ReportInput]:
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
    problems.raise_if_any()
    return out
