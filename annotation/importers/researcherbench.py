"""ResearcherBench (004): questions, weighted rubrics, and system responses.

Questions: ``questions.json``, a list of ``{id, question, category, Subject}``: ``Subject``
(the research area: "Reinforcement Learning", "Model Architecture") is the question's
``field``, the one assignment by expertise matches on; ``category`` (the question's type:
Open Consulting, Literature Review, Technical Details, the paper's §3.1 split) its
``intent``. Each record is kept as released (``Question.released``) and written back as it
came, whatever an admin later edits; another key is named in a warning. The rubric comes
from a second file ``rubric.json``,
``[{id, question, rubric: [{point, weight}]}]``, passed as ``rubric=`` (``--rubric FILE``).
Each rubric record is kept as released too (``Rubric.released``) and written back as it came
(a script joins the two files by id: ``"1"`` stays ``"1"``, ``2.0`` stays ``2.0``, extra keys
and record order stay), except an item stored differently since (an admin's edit), whose
changed value alone is written over (:func:`rubric_as_released`).
Responses: ``[{id, question, response}]`` with a markdown ``response``.
"""

from __future__ import annotations

from pathlib import Path

from annotation.normalise import clean_text
from annotation.rubric_weights import WEIGHT_RANGES, weight_refusal

from . import released
from .base import ImportReport
from .common import (
    Problems,
    Source,
    optional_str,
    parse_json_records,
    read_source,
    require,
    type_name,
)
from .questions import (
    ItemInput,
    QuestionInput,
    check_unique_ids,
    question_loader,
    rubric_to_write,
)
from .registry import Example, Format, Option, Signature, register
from .signatures import refuse_other_format
from .structure import ParsedReport, ReportInput, parse_markdown, report_loader, to_markdown

RUBRIC_KIND = "researcherbench"
FORMAT = "researcherbench"
EXAMPLES = Path(__file__).resolve().parent / "examples"


#: What a ResearcherBench question record, rubric record and rubric item carry; any other
#: key is named in a warning, never dropped silently (issue 25).
QUESTION_KEYS = ("id", "question", "category", "Subject")
RUBRIC_KEYS = ("id", "question", "rubric")
RUBRIC_ITEM_KEYS = ("point", "weight")
#: A criterion's weight, 1 (nice to have) to 3 (core): declared once for the rubric kind
#: (:data:`annotation.rubric_weights.WEIGHT_RANGES`), which the API and the admin ask too;
#: refused outside it: a weight of 5 would silently reweigh every system's Coverage S_c.
WEIGHTS = WEIGHT_RANGES[RUBRIC_KIND].bounds


#: What a warning says of a key the format does not have: a question record's and a rubric
#: record's other keys are kept with the record as released (written back by the export,
#: read by nothing; a rubric item's extra key, e.g. ``source``, is not shown to annotators).
KEPT = "not a ResearcherBench key: kept with the record as released, not read"
RUBRIC_KEPT = (
    "not a ResearcherBench key: kept with the rubric as released for export, "
    "not shown to annotators"
)
NOT_IMPORTED = "not a ResearcherBench key: not imported"


def _warn_unknown(rep, file: str, n: int, where: str, record, known,
                  note: str = NOT_IMPORTED) -> None:  # fmt: skip
    if rep is None or not isinstance(record, dict):
        return
    for key in record:
        if key not in known:
            rep.warn(file, n, f"{where}{key}", note)


def parse_questions(
    src: Source, rubric_src: Source | None, rep: ImportReport | None = None
) -> list[QuestionInput]:
    records = parse_json_records(src)
    refuse_other_format(src.name, records, "questions", FORMAT)
    rubric_records = None
    if rubric_src is not None:  # both files refused before either is read record by record
        rubric_records = parse_json_records(rubric_src)
        refuse_other_format(rubric_src.name, rubric_records, "questions", FORMAT, "rubric")
    problems = Problems(src.name)
    out = []
    for n, r in enumerate(records, start=1):
        qid = require(problems, n, r, "id", "id")
        text = require(problems, n, r, "question", str)
        if not isinstance(r, dict) or qid is None or text is None:
            continue
        _warn_unknown(rep, src.name, n, "", r, QUESTION_KEYS, KEPT)
        fields = {
            "text": text,
            "field": optional_str(problems, n, r, "Subject"),
            "intent": optional_str(problems, n, r, "category"),
            "released": {"format": FORMAT, "record": n, "data": r},
        }
        out.append(QuestionInput(n, qid, fields))
    check_unique_ids(problems, out)
    problems.raise_if_any()
    if rubric_src is not None:
        by_id = {q.external_id: q for q in out}
        rproblems = Problems(rubric_src.name)
        seen: dict[str, int] = {}  # a second rubric of one question is refused, not the last kept
        for n, r in enumerate(rubric_records, start=1):
            qid = require(rproblems, n, r, "id", "id")
            items = require(rproblems, n, r, "rubric", list)
            if qid is not None and qid in seen:
                rproblems.add(n, "id", f"id {qid!r} already used by record {seen[qid]}")
                continue
            if qid is not None:
                seen[qid] = n
            if qid is None or items is None:
                continue
            if qid not in by_id:
                rproblems.add(n, "id", f"no question with id {qid!r} in {src.name}")
                continue
            parsed = []
            _warn_unknown(rep, rubric_src.name, n, "", r, RUBRIC_KEYS, RUBRIC_KEPT)
            for i, item in enumerate(items):
                where = f"rubric[{i}]"
                point = require(rproblems, n, item, "point", str, label=f"{where}.point")
                if not isinstance(item, dict):
                    continue
                _warn_unknown(
                    rep, rubric_src.name, n, f"{where}.", item, RUBRIC_ITEM_KEYS, RUBRIC_KEPT
                )
                weight = item.get("weight", 1)
                if refusal := weight_refusal(RUBRIC_KIND, weight):
                    rproblems.add(n, f"{where}.weight", refusal)
                    continue
                if point:
                    parsed.append(ItemInput(point, "information", float(weight)))
            # An empty point is refused above, so item i is stored at position i + 1: the
            # position is what ties a kept item to its stored one (rubric_as_released).
            by_id[qid].rubrics[RUBRIC_KIND] = parsed
            by_id[qid].rubric_from[RUBRIC_KIND] = (rubric_src.name, n)
            by_id[qid].rubric_released[RUBRIC_KIND] = {"format": FORMAT, "record": n, "data": r}
        rproblems.raise_if_any()
    return out


def parse_responses(src: Source) -> list[ReportInput]:
    records = parse_json_records(src)
    refuse_other_format(src.name, records, "reports", FORMAT)
    problems = Problems(src.name)
    out = []
    seen: dict[str, int] = {}
    for n, r in enumerate(records, start=1):
        qid = require(problems, n, r, "id", "id")
        if not isinstance(r, dict):
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
            item = ReportInput(n, qid, question or qid, parse_markdown(response))
            released.keep(item, FORMAT, n, r)
            out.append(item)
    problems.raise_if_any()
    return out


def reread(entries: list[dict]) -> ParsedReport:
    """The report an import reads from one report's kept record (:attr:`Format.reread`)."""
    return parse_markdown(entries[0]["data"]["response"])


# --- Writing back (round trips, issue 18) ---------------------------------------------------


def dump_questions(study, *, rubric_kind: str = RUBRIC_KIND) -> dict[str, str]:
    """``questions.json`` (id, question, category, Subject) and ``rubric.json`` (the rubric
    of kind ``rubric_kind``: points and weights), as ResearcherBench ships them: a question
    imported from this format as its record was released, any other built from what is
    stored (``intent`` as the category, ``field`` as the Subject). A rubric imported from
    this format is its record as released (:func:`rubric_as_released`), in the rubric file's
    record order; the others follow, built from the stored items in question order, and
    are named in a third file, :data:`REBUILT_NOTE` (:func:`rebuilt_note`): not the
    released records, which the export would otherwise pass them off as."""
    import json

    questions, kept_rubrics, rubrics, rebuilt = [], [], [], []
    for q in study.questions.order_by("pk").prefetch_related("rubrics__items"):
        kept = q.released if isinstance(q.released, dict) else {}
        if kept.get("format") == FORMAT and isinstance(kept.get("data"), dict):
            questions.append(kept["data"])
        else:
            rec = {"id": released_id(q.external_id), "question": q.text}
            if q.intent:
                rec["category"] = q.intent
            if q.field:
                rec["Subject"] = q.field
            questions.append(rec)
        rubric = rubric_to_write(q, rubric_kind)
        if rubric is not None:
            items = sorted(rubric.items.all(), key=lambda i: i.position)
            kept = rubric.released if isinstance(rubric.released, dict) else {}
            if kept.get("format") == FORMAT and isinstance(kept.get("data"), dict):
                record = rubric_as_released(kept["data"], items)
                kept_rubrics.append((kept.get("record", 0), len(kept_rubrics), record))
                continue
            rubrics.append({"id": released_id(q.external_id), "question": q.text,
                            "rubric": [{"point": i.text, "weight": released_weight(i.weight)}
                                       for i in items]})  # fmt: skip
            rebuilt.append(q.external_id)
    rubrics = [record for *_, record in sorted(kept_rubrics, key=lambda k: k[:2])] + rubrics
    dumps = lambda data: json.dumps(data, ensure_ascii=False, indent=1) + "\n"  # noqa: E731
    files = {"questions.json": dumps(questions), "rubric.json": dumps(rubrics)}
    if rebuilt:
        files[REBUILT_NOTE] = rebuilt_note(rebuilt, len(rubrics))
    return files


#: The export's note naming the rubric.json records rebuilt from stored items.
REBUILT_NOTE = "rubric-rebuilt.txt"


def rebuilt_note(question_ids: list[str], total: int) -> str:
    """Why and which rubric.json records are rebuilt, not as released: their rubric has no
    kept record (``Rubric.released``): imported before Concord kept them (migration 0025),
    or from another format, or written here. Rebuilt records have ids as numbers, integer
    weights as integers and only ``point`` and ``weight``: a released file's string ids,
    ``2.0`` weights, extra keys and record order are not known."""
    return (
        f"rubric.json: {len(question_ids)} of its {total} records are REBUILT from the stored "
        "rubric items, not written as their rubric.json released them (ids, weight types, "
        "key order and extra keys may differ). Their rubrics were imported before Concord "
        "kept the released rubric record (migration 0025) or from another format. To "
        "export them as released, import their rubric.json again (questions, format "
        "researcherbench, --rubric).\n"
        "Rebuilt records (question id):\n" + "".join(f"{q}\n" for q in question_ids)
    )


def rubric_as_released(record: dict, items) -> dict:
    """A kept ``rubric.json`` record with the rubric's stored ``items`` (by position) written
    over its own: an item whose text or weight is stored as it came is the released item,
    untouched; one changed since (an admin's edit through the API) gets the changed value
    alone, in its key's place and its type (``2.0`` -> ``3.0``, ``2`` -> ``3``); an item
    deleted since is left out, one added since is appended as ``{point, weight}``. Extra
    keys, the record's id and question stay as released: questions.json is written as
    released too, and a script joins the two by id."""
    released = record.get("rubric")
    if not isinstance(released, list):
        return record
    stored = {i.position: i for i in items}
    out = []
    for position, item in enumerate(released, start=1):
        now = stored.pop(position, None)
        if now is not None:
            out.append(_item_as_stored(item, now))
    out += [{"point": i.text, "weight": released_weight(i.weight)}
            for _, i in sorted(stored.items())]  # fmt: skip
    if len(out) == len(released) and all(a is b for a, b in zip(out, released, strict=True)):
        return record
    return {**record, "rubric": out}


def _item_as_stored(item: dict, stored) -> dict:
    """``item`` as released, or with the stored text or weight that differs from it written
    over (the import stored the point cleaned, ``clean_text``: that is no change)."""
    changes = {}
    if stored.text != clean_text(item.get("point", "")):
        changes["point"] = stored.text
    weight = item.get("weight", 1)
    if float(weight) != stored.weight:
        changes["weight"] = float(stored.weight) if isinstance(weight, float) else (
            released_weight(stored.weight))  # fmt: skip
    return {**item, **changes} if changes else item


def dump_responses(study, *, system: str) -> dict[str, str]:
    """One system's reports as ResearcherBench responses ``[{id, question, response}]``: the
    records as released (:mod:`.released`), then those of reports imported otherwise,
    built from what is stored; textless placeholder reports are not written."""
    import json

    written = released.for_export(study, system, FORMAT)
    data = [e["data"] for e in written.records] + [
        {"id": released_id(r.question_id), "question": r.question_text, "response": to_markdown(r)}
        for r in written.rebuilt
    ]
    return {f"{system}.json": json.dumps(data, ensure_ascii=False, indent=1) + "\n"}


def released_weight(value: float):
    """A weight as released: ResearcherBench's are integers 1-3 (``3``, not ``3.0``); the
    judge results' export writes its criteria's weights with it too."""
    return int(value) if float(value).is_integer() else value


def released_id(external_id: str):
    """ResearcherBench's ids are numbers (``"id": 1``): an id stored from one is written as
    one again; any other id as the text it is (questions, responses and judge results)."""
    if external_id.isdecimal() and str(int(external_id)) == external_id:
        return int(external_id)
    return external_id


register(
    Format(
        "reports",
        "researcherbench",
        "ResearcherBench responses: a JSON list of {id, question, response: markdown}",
        load=report_loader(
            lambda src, rep: parse_responses(src), source_format="researcherbench", key_field="id"
        ),
        dump=dump_responses,
        reread=reread,
        dump_options=(Option("system", "the system whose reports are written", required=True),),
        label="ResearcherBench responses",
        extension=".json",
        system_from_file_name=True,
        shape=(
            "One system's responses (data/user_data/<system>.json):\n"
            '  [{"id": 1, "question": "<text>", "response": "<markdown>"}, ...]\n'
            "Markdown as the system wrote it: [n] markers or footnotes [^n] with their\n"
            "reference list or definitions, markdown links."
        ),
        example=Example(EXAMPLES, "researcherbench_responses.json", {"system": "example-system"}),
        signatures=(
            Signature.of(
                "a ResearcherBench user_data/<system>.json responses file",
                id=None,
                question=str,
                response=str,
            ),
        ),
    )
)
register(
    Format(
        "questions",
        "researcherbench",
        "ResearcherBench questions.json (with its rubric.json as --rubric)",
        load=question_loader(
            lambda src, rep, rubric=None: parse_questions(
                src, read_source(rubric) if rubric else None, rep
            ),
            with_report=True,
        ),
        options=(
            Option(
                "rubric",
                "ResearcherBench rubric.json",
                type="file",
                signature=Signature.of(
                    "ResearcherBench's rubric.json", id=None, question=str, rubric=list
                ),
            ),
        ),
        dump=dump_questions,
        label="ResearcherBench questions.json and rubric.json",
        extension=".zip",
        shape=(
            'questions.json: [{"id": 1, "question": "<text>", "category": "<type>",\n'
            '                  "Subject": "<subject>"}, ...]\n'
            'rubric.json (the rubric file): [{"id": 1, "question": "<text>",\n'
            '                  "rubric": [{"point": "<criterion>", "weight": '
            f"{WEIGHTS[0]}-{WEIGHTS[1]}}}]}}, ...]\n"
            "The export (a .zip) writes both files as imported. A rubric with no kept\n"
            "record (imported before migration 0025, or from another format) is rebuilt\n"
            f"from its stored items and named in a third file, {REBUILT_NOTE}, which\n"
            "says how to get it as released; the import reads only the two JSON files."
        ),
        rubric_weights=WEIGHTS,
        example=Example(
            EXAMPLES, "researcherbench_questions.json", {"rubric": "researcherbench_rubric.json"}
        ),  # fmt: skip
        signatures=(Signature.of("ResearcherBench's questions.json", id=None, question=str),),
    )
)
