"""DeepScholar-Bench units a human agreement study needs (seed 002 §8.11): a question's
nuggets, and its human-written exemplar with the exemplar's references. JSON lines, one
question a line; the question must already be in the study (by its id, the paper id of a
DeepScholar folder).

nuggets              ``{"question_id": "2401.00001", "nuggets": [{"id": "n1", "text": "…"}]}``
                     (``id`` optional: the nugget's position from 1)
exemplar-references  ``{"question_id": "2401.00001", "exemplar": "…related work…",
                     "references": [{"id": "r1", "title": "…", "url": "…"}]}``
                     (``exemplar`` and a reference's ``url`` optional; ``title`` or ``id``)

Every record is validated before anything is written (a problem names the record and the
field, and nothing changes); a re-import replaces the question's nuggets or references by
id — an id no longer in the file is removed — and labels already given stay (they are keyed
by the unit's id, see :mod:`annotation.models.deepscholar`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from annotation.links import clean_url, is_web_url
from annotation.models import Exemplar, ExemplarReference, Nugget, Question

from .base import ImportReport
from .common import (
    Problems,
    fits,
    optional_str,
    parse_json_records,
    read_source,
    require,
    type_name,
)
from .registry import Example, Format, Kind, register, register_kind


@dataclass
class UnitsInput:
    question: Question
    rows: list[dict] = field(default_factory=list)  # key, position, and the unit's fields
    exemplar: str | None = None


def _questions(study) -> dict[str, Question]:
    return {q.external_id: q for q in Question.objects.filter(study=study)}


def _entries(problems, n, record, list_key, question, seen_questions):
    if isinstance(record, dict) and "qid" in record and "question_id" not in record:
        problems.add(n, "question_id", "missing; this record has 'qid': the nuggetizer's own "
                     "output (res.json) is read with --format nuggetizer")  # fmt: skip
        return None, None
    qid = require(problems, n, record, "question_id", "id")
    entries = require(problems, n, record, list_key, list)
    if qid is None:
        return None, None
    if qid not in question:
        problems.add(n, "question_id", f"no question {qid!r} in this study")
        return None, None
    if qid in seen_questions:
        problems.add(
            n, "question_id", f"question {qid!r} again (first in record {seen_questions[qid]})"
        )
        return None, None
    seen_questions[qid] = n
    return question[qid], entries


def _unit(problems, n, where, entry, i, text_key, seen, model) -> tuple[str, str] | None:
    """(key, text) of one entry; its id defaults to its position (from 1)."""
    if not isinstance(entry, dict):
        problems.add(n, where, f"expected an object, found {type_name(entry)}")
        return None
    key = str(i + 1)
    if entry.get("id") is not None:
        key = require(problems, n, entry, "id", "id", label=f"{where}.id")
        key = fits(problems, n, f"{where}.id", key, model, "key")
        if key is None:
            return None
    if key in seen:
        problems.add(n, f"{where}.id", f"id {key!r} again (first at [{seen[key]}])")
        return None
    seen[key] = i
    if text_key is None:
        return key, ""
    text = require(problems, n, entry, text_key, str, label=f"{where}.{text_key}")
    return (key, text.strip()) if text is not None else None


def parse_nuggets(src, study) -> list[UnitsInput]:
    problems = Problems(src.name)
    question, seen_q, out = _questions(study), {}, []
    for n, record in enumerate(parse_json_records(src), start=1):
        q, entries = _entries(problems, n, record, "nuggets", question, seen_q)
        if q is None or entries is None:
            continue
        item, seen = UnitsInput(q), {}
        for i, entry in enumerate(entries):
            got = _unit(problems, n, f"nuggets[{i}]", entry, i, "text", seen, Nugget)
            if got:
                item.rows.append({"key": got[0], "position": i, "text": got[1]})
        out.append(item)
    problems.raise_if_any()
    return out


def parse_references(src, study) -> list[UnitsInput]:
    problems = Problems(src.name)
    question, seen_q, out = _questions(study), {}, []
    for n, record in enumerate(parse_json_records(src), start=1):
        q, entries = _entries(problems, n, record, "references", question, seen_q)
        if q is None or entries is None:
            continue
        item, seen = UnitsInput(q), {}
        if isinstance(record, dict) and "exemplar" in record:
            item.exemplar = optional_str(problems, n, record, "exemplar")
        for i, entry in enumerate(entries):
            where = f"references[{i}]"
            got = _unit(problems, n, where, entry, i, None, seen, ExemplarReference)
            if not got:
                continue
            title = optional_str(problems, n, entry, "title")
            url = optional_str(problems, n, entry, "url")
            if url and not is_web_url(url):
                problems.add(n, f"{where}.url", f"{url[:80]!r} is not an http(s) address")
            url = clean_url(url)  # stored as shown: no tracking parameter (annotation.links)
            if not title.strip() and entry.get("id") is None:
                problems.add(n, f"{where}.title", "a reference needs a title or an id")
            item.rows.append({"key": got[0], "position": i, "title": title.strip(), "url": url})
        out.append(item)
    problems.raise_if_any()
    return out


def _sync(model, inputs: list[UnitsInput], rep: ImportReport, fields: tuple[str, ...]) -> None:
    """Per question, the file's rows by key: created, updated or unchanged; others removed."""
    table = model.__name__
    for item in inputs:
        existing = {u.key: u for u in model.objects.filter(question=item.question)}
        for row in item.rows:
            found = existing.pop(row["key"], None)
            values = {f: row[f] for f in fields}
            if found is None:
                model.objects.create(question=item.question, key=row["key"], **values)
                rep.count("created", table)
            elif any(getattr(found, f) != v for f, v in values.items()):
                for f, v in values.items():
                    setattr(found, f, v)
                found.save(update_fields=list(fields))
                rep.count("updated", table)
            else:
                rep.count("unchanged", table)
        if existing:
            model.objects.filter(pk__in=[u.pk for u in existing.values()]).delete()
            rep.count("updated", table, len(existing))


#: The units writer, shared with the nuggetizer import (judges/formats/nuggetizer.py).
sync_units = _sync


def load_nuggets(source, study, rep: ImportReport, **_) -> None:
    inputs = parse_nuggets(read_source(source), study)
    rep.records = len(inputs)
    _sync(Nugget, inputs, rep, ("position", "text"))


def load_references(source, study, rep: ImportReport, **_) -> None:
    inputs = parse_references(read_source(source), study)
    rep.records = len(inputs)
    _sync(ExemplarReference, inputs, rep, ("position", "title", "url"))
    for item in inputs:
        if item.exemplar is not None:
            obj, created = Exemplar.objects.get_or_create(
                question=item.question, defaults={"text": item.exemplar}
            )
            bucket = "created" if created else "unchanged"
            if not created and obj.text != item.exemplar:
                obj.text, bucket = item.exemplar, "updated"
                obj.save(update_fields=["text"])
            rep.count(bucket, "Exemplar")


def dump_nuggets(study, **_) -> dict[str, str]:
    import json

    lines = []
    for q in Question.objects.filter(study=study).order_by("external_id"):
        nuggets = [{"id": g.key, "text": g.text} for g in q.nuggets.order_by("position", "pk")]
        if nuggets:
            lines.append(json.dumps({"question_id": q.external_id, "nuggets": nuggets}))
    return {"nuggets.jsonl": "".join(line + "\n" for line in lines)}


def dump_references(study, **_) -> dict[str, str]:
    """Each question's exemplar and its references, as ``exemplar-references`` reads them."""
    import json

    lines = []
    exemplars = dict(
        Exemplar.objects.filter(question__study=study).values_list("question_id", "text")
    )
    refs: dict[int, list] = {}
    for r in ExemplarReference.objects.filter(question__study=study).order_by("position", "pk"):
        refs.setdefault(r.question_id, []).append({"id": r.key, "title": r.title, "url": r.url})
    for q in Question.objects.filter(study=study).order_by("external_id"):
        if q.pk not in exemplars and q.pk not in refs:
            continue
        record = {"question_id": q.external_id}
        if q.pk in exemplars:
            record["exemplar"] = exemplars[q.pk]
        record["references"] = refs.get(q.pk, [])
        lines.append(json.dumps(record, ensure_ascii=False))
    return {"exemplar_references.jsonl": "".join(line + "\n" for line in lines)}


register_kind(
    Kind(
        "deepscholar",
        "DeepScholar-Bench study units: nuggets, exemplars and their references (the "
        "released nuggetizer output and LaTeX exemplars create their questions; the JSON "
        "lines formats name questions already in the study)",
        # units enable the DeepScholar tasks they make possible, whether they come before
        # or after the reports (reports first, then nuggets, left all six untouched)
    )
)
_EXAMPLES = Path(__file__).resolve().parent / "examples"
_NEEDS = (("reports", "deepscholar", {}),)
register(Format("deepscholar", "nuggets", "nuggets per question, JSON lines "
                "(annotation/importers/deepscholar_units.py)", load=load_nuggets,
                dump=dump_nuggets, label="DeepScholar-Bench nuggets",
                extension=".jsonl",
                shape='One question a line: {"question_id": "<paper id>",\n'
                      '"nuggets": [{"id"?: "n1", "text": "<fact>"}]}',
                example=Example(_EXAMPLES, "deepscholar_nuggets.jsonl", needs=_NEEDS)))  # fmt: skip
register(Format("deepscholar", "exemplar-references", "exemplar and its references per "
                "question, JSON lines (annotation/importers/deepscholar_units.py)",
                load=load_references, dump=dump_references,
                label="DeepScholar-Bench exemplars and references", extension=".jsonl",
                shape='One question a line: {"question_id": "<paper id>", "exemplar"?: "<text>",\n'
                      '"references": [{"id": "r1", "title": "<title>", "url"?: "<url>"}]}',
                example=Example(_EXAMPLES, "deepscholar_exemplar_references.jsonl",
                                needs=_NEEDS)))  # fmt: skip
