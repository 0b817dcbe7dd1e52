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
by the unit's id, see :mod:`annotation.models.deepscholar`). Experts' labels say what a
unit's text is worth, so a re-import that would change the text (or title, URL) of a
labelled unit, or remove it, is refused whole, naming the record and the field (as a
report re-import refuses to remove judged paragraphs); a new position is no change of what
was judged. Every change is listed as a warning, so a dry run says what would change.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from annotation.links import clean_url, is_web_url
from annotation.models import DeepScholarLabel, Exemplar, ExemplarReference, Nugget, Question

from .base import ImportFailed, ImportReport, Problem
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
    """One question's units as a file gives them. A row is ``key``, ``position`` and the
    unit's fields, and optionally where the file gives it (``file``, ``record``, and
    ``columns``: unit field -> the file's field), else the question's ``file``, ``record``
    and ``field`` (the field listing the units), which a refusal or a change names."""

    question: Question
    rows: list[dict] = field(default_factory=list)
    exemplar: str | None = None
    file: str = ""
    record: int | None = None
    field: str | None = None


#: The experts' label kinds whose unit is a row of each model (by its key).
LABEL_KINDS = {
    Nugget: ("nugget_importance", "nugget_support"),
    ExemplarReference: ("reference_importance",),
}
#: What a row of each model is called in a refusal or a listed change.
UNIT_NAME = {Nugget: "nugget", ExemplarReference: "reference"}


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
        item, seen = UnitsInput(q, file=src.name, record=n, field="nuggets"), {}
        for i, entry in enumerate(entries):
            got = _unit(problems, n, f"nuggets[{i}]", entry, i, "text", seen, Nugget)
            if got:
                where = f"nuggets[{i}]"
                item.rows.append({"key": got[0], "position": i, "text": got[1],
                                  "columns": {"key": f"{where}.id", "text": f"{where}.text",
                                              "position": where}})  # fmt: skip
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
        item, seen = UnitsInput(q, file=src.name, record=n, field="references"), {}
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
            columns = {f: f"{where}.{f}" for f in ("id", "title", "url")}
            item.rows.append({"key": got[0], "position": i, "title": title.strip(), "url": url,
                              "columns": {**columns, "key": columns["id"], "position": where}})  # fmt: skip
        out.append(item)
    problems.raise_if_any()
    return out


@dataclass
class _Planned:
    """What a re-import does to one question's units: each file row with the stored unit
    of its key (None: new), the values to store and the fields that change; and the
    stored units the file no longer has."""

    item: UnitsInput
    rows: list[tuple[dict, object, dict, list[str]]]
    removed: list


def _where(item: UnitsInput, row: dict | None, name: str | None) -> tuple[str, int | None, str]:
    """(file, record, field) of a unit field ``name`` (None: the unit itself)."""
    if row is None:
        return item.file, item.record, item.field or ""
    columns = row.get("columns") or {}
    return (
        row.get("file", item.file),
        row.get("record", item.record),
        columns.get(name, name) if name else columns.get("key", "id"),
    )


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 90 else text[:87] + "…'"


def _plan(model, inputs: list[UnitsInput], fields, keep_stored) -> tuple[list[_Planned], int]:
    plans, kept = [], 0
    for item in inputs:
        existing = {u.key: u for u in model.objects.filter(question=item.question)}
        wanted = item.rows
        if keep_stored:  # a stored unit the file does not name stays, after the file's
            named = {row["key"] for row in wanted}
            left = sorted((u for k, u in existing.items() if k not in named),
                          key=lambda u: (u.position, u.pk))  # fmt: skip
            wanted = wanted + [
                {"key": u.key, **{f: getattr(u, f) for f in fields},
                 "position": len(item.rows) + i, "columns": {}}
                for i, u in enumerate(left)
            ]  # fmt: skip
            kept += sum(1 for u in left for f in keep_stored if getattr(u, f))
        rows = []
        for row in wanted:
            found = existing.pop(row["key"], None)
            values = {f: row[f] for f in fields}
            for f in keep_stored if found is not None else ():
                if not values[f] and getattr(found, f):
                    values[f] = getattr(found, f)
                    kept += 1
            changed = [f for f in fields if found is not None and getattr(found, f) != values[f]]
            rows.append((row, found, values, changed))
        plans.append(_Planned(item, rows, list(existing.values())))
    return plans, kept


def _refuse_labelled(model, plans: list[_Planned]) -> None:
    """Refuse the whole import (nothing written) if it would change what experts labelled:
    a labelled unit's text fields, or remove a labelled unit."""
    touched = {
        (p.item.question.pk, found.key)
        for p in plans
        for _, found, _, changed in p.rows
        if any(f != "position" for f in changed)
    } | {(p.item.question.pk, u.key) for p in plans for u in p.removed}
    if not touched:
        return
    labelled: dict[tuple[int, str], set[str]] = {}
    for qid, unit, kind in DeepScholarLabel.objects.filter(
        kind__in=LABEL_KINDS[model],
        question_id__in={q for q, _ in touched},
        unit__in={k for _, k in touched},
    ).values_list("question_id", "unit", "kind"):
        labelled.setdefault((qid, unit), set()).add(DeepScholarLabel.Kind(kind).label.lower())
    name, problems = UNIT_NAME[model], []
    for p in plans:
        qid = p.item.question.external_id
        for row, found, values, changed in p.rows:
            kinds = labelled.get((p.item.question.pk, found.key)) if found else None
            for f in [f for f in changed if f != "position"] if kinds else ():
                file, record, where = _where(p.item, row, f)
                problems.append(Problem(file, record, where,
                    f"question {qid!r}: {name} {found.key!r} has experts' labels "
                    f"({', '.join(sorted(kinds))}): its {f} would change from "
                    f"{_short(getattr(found, f))} to {_short(values[f])}. Expert work is never "
                    f"changed by an import: keep its {f} as stored"))  # fmt: skip
        for unit in p.removed:
            if kinds := labelled.get((p.item.question.pk, unit.key)):
                file, record, where = _where(p.item, None, None)
                problems.append(Problem(file, record, where,
                    f"question {qid!r}: would remove {name} {unit.key!r} (it has experts' "
                    f"labels: {', '.join(sorted(kinds))}). Expert work is never deleted: "
                    f"keep it in the file"))  # fmt: skip
    if problems:
        raise ImportFailed(problems)


def _sync(
    model, inputs: list[UnitsInput], rep: ImportReport, fields: tuple[str, ...],
    *, keep_stored: tuple[str, ...] = (),
) -> int:  # fmt: skip
    """Per question, the file's rows by key: created, updated or unchanged; others removed.

    ``keep_stored``: fields a row without a value for leaves as stored (a references file
    that lacks a reference's row says nothing of its title: a re-import never blanks it);
    with it, a stored unit the file does not name is kept too, after the file's units.
    A change to what experts labelled is refused before anything is written
    (:func:`_refuse_labelled`); every change and removal is listed as a warning. Returns
    how many ``keep_stored`` values were kept (the caller says so, naming its file)."""
    table, name = model.__name__, UNIT_NAME[model]
    plans, kept = _plan(model, inputs, fields, keep_stored)
    _refuse_labelled(model, plans)
    for p in plans:
        qid = p.item.question.external_id
        for row, found, values, changed in p.rows:
            if found is None:
                model.objects.create(question=p.item.question, key=row["key"], **values)
                rep.count("created", table)
            elif changed:
                for f in changed:
                    rep.warn(*_where(p.item, row, f),
                             f"question {qid!r}, {name} {found.key!r}: {f} "
                             f"{_short(getattr(found, f))} -> {_short(values[f])}")  # fmt: skip
                    setattr(found, f, values[f])
                found.save(update_fields=list(changed))
                rep.count("updated", table)
            else:
                rep.count("unchanged", table)
        for unit in p.removed:
            rep.warn(*_where(p.item, None, None),
                     f"question {qid!r}: {name} {unit.key!r} removed (no longer in the file)")  # fmt: skip
        if p.removed:
            model.objects.filter(pk__in=[u.pk for u in p.removed]).delete()
            rep.count("updated", table, len(p.removed))
    return kept


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
