"""ResearchQA (000/001): questions with rubrics, and system responses.

Questions: a JSON list or JSON lines of ``{id, general_domain, subdomain, field, query, date,
rubric: [{rubric_item, type, citation_metadata?}]}`` (``citation_metadata``, the survey
passage an item was mined from, kept as the item's cited paper); stored with origin "survey_mined" and a rubric of kind
"researchqa". Responses in either shape the release uses: one JSON object
``{id: {"answer": markdown}}`` (the README's ``responses.json``, ``compute_coverage.py``'s
input) or a JSON list ``[{"corpusid_sectionid": id, "answer": markdown, ...}]`` (the 18
systems' released outputs, read so by ``src/judge_systems_by_gpt.py``). Each answer is split
into sections by headings and paragraphs by blank lines, citations kept as they appear
(:func:`annotation.importers.structure.parse_markdown`).
"""

from __future__ import annotations

from pathlib import Path

from annotation.models import Question

from . import released
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
    rubric_to_write,
)
from .registry import Example, Format, Option, Signature, register
from .signatures import refuse_other_format
from .structure import ParsedReport, ReportInput, parse_markdown, report_loader, to_markdown

RUBRIC_KIND = "researchqa"
EXAMPLES = Path(__file__).resolve().parent / "examples"
FORMAT = "researchqa"
#: The two released shapes of a responses file (module doc).
RESPONSES_SHAPE = '{id: {"answer": markdown}} or [{"corpusid_sectionid": id, "answer": markdown}]'


#: What a ResearchQA item and its rubric items carry (``researchqa_loader.py``'s dataclasses);
#: ``weight``, which the release does not have, is read as the item's weight.
ITEM_KEYS = ("id", "general_domain", "subdomain", "field", "query", "date", "rubric")
RUBRIC_ITEM_KEYS = ("rubric_item", "type", "citation_metadata", "weight")


def parse_questions(src: Source, rep: ImportReport | None = None) -> list[QuestionInput]:
    """Every item, checked; a key the format does not have is named in a warning (in
    ``rep``): it is not stored, and nothing is dropped silently (issue 25)."""
    records = parse_json_records(src)
    refuse_other_format(src.name, records, "questions", FORMAT)
    problems = Problems(src.name)
    out = []
    for n, r in enumerate(records, start=1):
        qid = require(problems, n, r, "id", "id")
        text = require(problems, n, r, "query", str)
        if not isinstance(r, dict):
            continue
        _warn_unknown(rep, src.name, n, "", r, ITEM_KEYS, KEPT)
        fields = {
            "text": text,
            "domain": optional_str(problems, n, r, "general_domain"),
            "subdomain": optional_str(problems, n, r, "subdomain"),
            "field": optional_str(problems, n, r, "field"),
            "origin": Question.Origin.SURVEY_MINED,
            "cutoff_date": parse_date(problems, n, r.get("date")),
            "released": {"format": FORMAT, "record": n, "data": released_item(r)},
        }
        rubric = require(problems, n, r, "rubric", list)
        items = []
        for i, item in enumerate(rubric or []):
            where = f"rubric[{i}]"
            t = require(problems, n, item, "rubric_item", str, label=f"{where}.rubric_item")
            if not isinstance(item, dict):
                continue
            _warn_unknown(rep, src.name, n, f"{where}.", item, RUBRIC_ITEM_KEYS)
            typ = item_type(problems, n, f"{where}.type", item.get("type"))
            cited = optional_str(problems, n, item, "citation_metadata")
            weight = item.get("weight", 1)
            if not is_number(weight) or weight <= 0:
                problems.add(n, f"{where}.weight", f"expected a positive number, found {weight!r}")
                continue
            if t and typ:
                items.append(ItemInput(t, typ, float(weight), cited_paper=cited))
        if qid is not None and text is not None and rubric is not None:
            out.append(QuestionInput(n, qid, fields, {RUBRIC_KIND: items}))
    check_unique_ids(problems, out)
    problems.raise_if_any()
    return out


#: What a warning says of a key the format does not have: an item's other keys are kept
#: with the item as released (written back by the export, read by nothing); a rubric item's
#: are not (the rubric is written from the stored items).
KEPT = "not a ResearchQA key: kept with the item as released, not read"
NOT_IMPORTED = "not a ResearchQA key: not imported"


def _warn_unknown(rep, file: str, n: int, where: str, record: dict, known,
                  note: str = NOT_IMPORTED) -> None:  # fmt: skip
    if rep is None:
        return
    for key in record:
        if key not in known:
            rep.warn(file, n, f"{where}{key}", note)


def released_item(record: dict) -> dict:
    """An item as released, but for its rubric's value (stored as items and written from
    them: a re-import updates the items in place); the key stays, so the export writes the
    rubric where the release had it."""
    return {k: (None if k == "rubric" else v) for k, v in record.items()}


#: The key of a released system-output record in its list shape (the repository's
#: ``judge_systems_by_gpt.py`` reads ``{item["corpusid_sectionid"]: item}``).
LIST_KEY = "corpusid_sectionid"


def released_entries(
    src: Source, data, problems: Problems, what: str
) -> list[tuple[int, str, object]]:
    """``(record number, question id, entry)`` of a ResearchQA file in either released shape:
    the mapping ``{id: entry}`` (``compute_coverage.py``'s input and output) or the list
    ``[{corpusid_sectionid, ...}]`` (the 18 systems' outputs and their judge files, as the
    repository's ``judge_systems_by_gpt.py`` and leaderboard notebook read them). In the list
    shape the entry is the record itself; an id given twice is a problem naming both records."""
    if isinstance(data, dict):
        return [(n, str(qid), entry) for n, (qid, entry) in enumerate(data.items(), start=1)]
    out, seen = [], {}
    for n, record in enumerate(data, start=1):
        qid = require(problems, n, record, LIST_KEY, "id")
        if qid is None:
            continue
        if qid in seen:
            problems.add(n, LIST_KEY, f"{qid!r} already given by record {seen[qid]}")
            continue
        seen[qid] = n
        out.append((n, qid, record))
    if not out and not problems:
        problems.file_level(f"no records; expected {what}")
    return out


def parse_responses(src: Source) -> list[ReportInput]:
    """Every answer of a responses file in either released shape (module doc)."""
    data = parse_json_records(src, allow_mapping=True)
    refuse_other_format(src.name, data, "reports", FORMAT)
    problems = Problems(src.name)
    listed = isinstance(data, list)
    out = []
    for n, qid, entry in released_entries(src, data, problems, RESPONSES_SHAPE):
        if not isinstance(entry, dict):
            problems.add(n, qid, f"expected an object with 'answer', found {type_name(entry)}")
            continue
        answer = require(problems, n, entry, "answer", str,
                         label="answer" if listed else f"{qid}.answer")  # fmt: skip
        if answer is not None:
            item = ReportInput(n, qid, qid, parse_markdown(answer))
            released.keep(item, FORMAT, n, {"shape": "list" if listed else "mapping",
                                                      "id": qid, "entry": entry})  # fmt: skip
            out.append(item)
    problems.raise_if_any()
    return out


def reread(entries: list[dict]) -> ParsedReport:
    """The report an import reads from one report's kept record (:attr:`Format.reread`)."""
    return parse_markdown(entries[0]["data"]["entry"]["answer"])


# --- Writing back (round trips, issue 18) ---------------------------------------------------


def dump_questions(study, *, rubric_kind: str = RUBRIC_KIND) -> dict[str, str]:
    """The study's questions as ResearchQA items, a JSON list as the release's ``test.json``
    (what ``researchqa_loader.py`` reads), each with its rubric of kind ``rubric_kind`` (else
    its first rubric, :func:`rubric_to_write`)."""
    import json

    records = []
    for q in study.questions.order_by("pk").prefetch_related("rubrics__items"):
        rubric = rubric_to_write(q, rubric_kind)
        items = sorted(rubric.items.all(), key=lambda i: i.position) if rubric else []
        kept = q.released if isinstance(q.released, dict) else {}
        if kept.get("format") == FORMAT and isinstance(kept.get("data"), dict):
            # as released (an admin's edit of the field does not rewrite the benchmark's
            # file), its rubric where the release has it
            rec = dict(kept["data"])
        else:
            rec = {
                "id": q.external_id,
                "general_domain": q.domain,
                "subdomain": q.subdomain,
                "field": q.field,
                "query": q.text,
                "date": q.cutoff_date.isoformat() if q.cutoff_date else None,
                "rubric": None,
            }
        rec["rubric"] = [
            {
                "rubric_item": i.text,
                "type": i.item_type,
                **({"citation_metadata": i.cited_paper} if i.cited_paper else {}),
                **({"weight": _number(i.weight)} if i.weight != 1 else {}),
            }
            for i in items
        ]
        records.append(rec)
    return {"researchqa_items.json": json.dumps(records, ensure_ascii=False, indent=1) + "\n"}


def _number(value: float):
    return int(value) if float(value).is_integer() else value


def dump_responses(study, *, system: str) -> dict[str, str]:
    """One system's reports as a ResearchQA responses file, in the shape it was imported
    in (the mapping ``{id: {"answer": markdown}}`` unless every kept record came as the
    list ``[{corpusid_sectionid, answer}]``): the entries as released (:mod:`.released`),
    then those of reports imported otherwise, built from what is stored; textless
    placeholder reports are not written."""
    import json

    written = released.for_export(study, system, FORMAT)
    kept = [e["data"] for e in written.records]
    entries = [(k["id"], k["entry"]) for k in kept]
    entries += [(r.question_id, {"answer": to_markdown(r)}) for r in written.rebuilt]
    if kept and all(k["shape"] == "list" for k in kept):
        data = [entry if LIST_KEY in entry else {LIST_KEY: qid, **entry} for qid, entry in entries]
    else:
        data = {qid: {k: v for k, v in entry.items() if k != LIST_KEY} for qid, entry in entries}
    return {f"{system}.json": json.dumps(data, ensure_ascii=False, indent=1) + "\n"}


_SYSTEM = Option("system", "the system whose reports are written", required=True)

register(
    Format(
        "reports",
        "researchqa",
        "ResearchQA responses: one JSON object {id: {answer: markdown}}",
        load=report_loader(
            lambda src, rep: parse_responses(src), source_format="researchqa", key_field=LIST_KEY
        ),
        dump=dump_responses,
        reread=reread,
        dump_options=(_SYSTEM,),
        label="ResearchQA responses",
        extension=".json",
        shape=(
            "One system's answers, in either released shape:\n"
            '  {"<question id>": {"answer": "<markdown>"}, ...}\n'
            '  [{"corpusid_sectionid": "<question id>", "answer": "<markdown>", ...}, ...]\n'
            "Headings make sections, blank lines paragraphs; [n] markers cite a closing\n"
            "References list ([n] Title. URL); markdown links and (Author et al., 2020) cite too."
        ),
        example=Example(EXAMPLES, "researchqa_responses.json", {"system": "example-system"}),
        signatures=(
            Signature.of("a ResearchQA responses file", mapping=True, answer=str),
            Signature.of("a ResearchQA responses file", corpusid_sectionid=None, answer=str),
        ),
    )
)
register(
    Format(
        "questions",
        "researchqa",
        "ResearchQA items: a JSON list (or JSON lines) of {id, general_domain, subdomain, field, query, date, "
        "rubric: [{rubric_item, type}]}",
        load=question_loader(parse_questions, with_report=True),
        dump=dump_questions,
        label="ResearchQA items and rubrics",
        extension=".json",
        shape=(
            "A JSON list (the release's test.json) or JSON lines of\n"
            '  {"id", "general_domain", "subdomain", "field", "query", "date": "YYYY-MM-DD",\n'
            '   "rubric": [{"rubric_item": "<text>", "type": "information|depth|citation|...",\n'
            '               "citation_metadata": "<survey passage, optional>",\n'
            '               "weight": <number, optional; not in the release>}]}'
        ),
        example=Example(EXAMPLES, "researchqa_items.json"),
        signatures=(Signature.of("a ResearchQA items file", id=None, query=str, rubric=list),),
    )
)
