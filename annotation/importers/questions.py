"""Questions and their rubrics: the shared writer, and the generic JSON-lines format.

Generic format (``--format jsonl``; a JSON list is accepted too), one object per question:

=============  =========  ===============================================================
field          required   meaning
=============  =========  ===============================================================
id             yes        natural key within the study (string or integer)
text           yes        the question (``question`` or ``query`` accepted as aliases)
field          no         research field
subdomain      no
domain         no         general domain
split          no         dev / test / …
origin         no         real_user, survey_mined, expert_authored, synthetic, other
intent         no         intent category
date           no         knowledge cut-off: YYYY-MM-DD, YYYY-MM or YYYY
rubric         no         list of items ``{text, type, weight, cited_paper}`` (type defaults
                          to information, weight to 1)
rubric_kind    no         which rubric of the question these items are (default "default")
=============  =========  ===============================================================
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from pathlib import Path

from annotation.models import Question, Rubric, RubricItem
from annotation.models.jsontext import same_text
from annotation.normalise import clean_text
from annotation.rubric_weights import weight_refusal
from annotation.units import JudgedUnitRemoved, write_rubric_items

from .base import ImportFailed, ImportReport, Problem
from .common import (
    Problems,
    Source,
    fits,
    insert_new,
    is_number,
    optional_str,
    parse_json_records,
    require,
    type_name,
)
from .signatures import refuse_other_format
from .structure import ensure_questions


@dataclass
class ItemInput:
    text: str
    item_type: str = RubricItem.Type.INFORMATION
    weight: float = 1.0
    cited_paper: str = ""

    def canonical(self):
        return (self.text, self.item_type, float(self.weight), self.cited_paper)


@dataclass
class QuestionInput:
    record: int
    external_id: str
    fields: dict
    rubrics: dict[str, list[ItemInput]] = field(default_factory=dict)
    #: kind -> (file, record) of a rubric read from a file of its own (ResearcherBench's
    #: ``--rubric``): a refusal of that rubric names where it is, not the question's record.
    rubric_from: dict[str, tuple[str, int]] = field(default_factory=dict)
    #: kind -> the rubric's record as its file released it (``Rubric.released``: ``{"format",
    #: "record", "data"}``), for a format whose export writes it back; a rubric of a kind
    #: not named here is stored with none (its items no longer come from that record).
    rubric_released: dict[str, dict] = field(default_factory=dict)


def parse_date(problems: Problems, n: int, value, key: str = "date"):
    if value in (None, ""):
        return None
    if not isinstance(value, str):
        problems.add(n, key, f"expected a date string, found {type_name(value)}")
        return None
    v = value.strip()
    for pattern, fmt in (
        (r"\d{4}-\d{2}-\d{2}", "%Y-%m-%d"),
        (r"\d{4}-\d{2}", "%Y-%m"),
        (r"\d{4}", "%Y"),
    ):
        if re.fullmatch(pattern, v):
            try:
                return dt.datetime.strptime(v, fmt).date()
            except ValueError:
                break
    problems.add(n, key, f"{value!r} is not a date (YYYY-MM-DD, YYYY-MM or YYYY)")
    return None


#: ``Type.values`` builds a new list on each call (≈ 0.2 ms): read once, not per item.
_ITEM_TYPES = frozenset(RubricItem.Type.values)


def item_type(problems: Problems, n: int, where: str, value) -> str | None:
    if value in (None, ""):
        return RubricItem.Type.INFORMATION
    if not isinstance(value, str):
        problems.add(n, where, f"expected a string, found {type_name(value)}")
        return None
    v = value.strip().lower()
    if v not in _ITEM_TYPES:
        problems.add(n, where, f"{value!r} is not one of {', '.join(RubricItem.Type.values)}")
        return None
    return v


def check_unique_ids(problems: Problems, inputs: list[QuestionInput]) -> None:
    seen: dict[str, int] = {}
    for q in inputs:
        if q.external_id in seen:
            problems.add(
                q.record, "id", f"id {q.external_id!r} already used by record {seen[q.external_id]}"
            )
        seen.setdefault(q.external_id, q.record)


def parse_generic(src: Source) -> list[QuestionInput]:
    """The generic format's questions. A file of another kind (a ResearcherBench responses
    file, a report file) is refused as a whole, saying what it is: its records have an id
    and a question, so it was imported as questions without a word."""
    records = parse_json_records(src)
    refuse_other_format(src.name, records, "questions", "jsonl", any_of_kind=True)
    problems = Problems(src.name)
    out = []
    for n, r in enumerate(records, start=1):
        qid = fits(problems, n, "id", require(problems, n, r, "id", "id"), Question, "external_id")
        if not isinstance(r, dict):
            continue
        text_key = next((k for k in ("text", "question", "query") if k in r), "text")
        text = require(problems, n, r, text_key, str)
        fields = {"text": text}
        for name in ("field", "subdomain", "domain", "split", "intent"):
            fields[name] = fits(
                problems, n, name, optional_str(problems, n, r, name), Question, name
            )
        origin = optional_str(problems, n, r, "origin") or Question.Origin.OTHER
        if origin not in Question.Origin.values:
            problems.add(
                n, "origin", f"{origin!r} is not one of {', '.join(Question.Origin.values)}"
            )
        fields["origin"] = origin
        fields["cutoff_date"] = parse_date(problems, n, r.get("date"))
        kind = optional_str(problems, n, r, "rubric_kind") or "default"
        kind = fits(problems, n, "rubric_kind", kind, Rubric, "kind") or "default"
        rubrics = {}
        if r.get("rubric") is not None:
            items = r["rubric"]
            if not isinstance(items, list):
                problems.add(n, "rubric", f"expected a list, found {type_name(items)}")
            else:
                parsed = []
                for i, item in enumerate(items):
                    where = f"rubric[{i}]"
                    t = require(problems, n, item, "text", str, label=f"{where}.text")
                    if not isinstance(item, dict):
                        continue
                    typ = item_type(problems, n, f"{where}.type", item.get("type"))
                    weight = item.get("weight", 1.0)
                    if not is_number(weight):
                        problems.add(
                            n, f"{where}.weight", f"expected a number, found {type_name(weight)}"
                        )
                        weight = None
                    elif refusal := weight_refusal(kind, weight):  # the kind's own range
                        problems.add(n, f"{where}.weight", refusal)
                        weight = None
                    cited = optional_str(problems, n, item, "cited_paper")
                    if t and typ and weight is not None:
                        parsed.append(ItemInput(t, typ, float(weight), cited))
                rubrics[kind] = parsed
        if qid is not None and text is not None:
            out.append(QuestionInput(n, qid, fields, rubrics))
    check_unique_ids(problems, out)
    problems.raise_if_any()
    return out


def write_questions(
    study, inputs: list[QuestionInput], rep: ImportReport, file: str = "upload"
) -> dict[str, Question]:
    """Questions by natural key (text and fields updated); a changed rubric's items are
    updated in place by position (``file`` names the source in a refusal)."""
    wanted = {q.external_id: q.fields for q in inputs}
    for q in inputs:  # bidi / zero-width controls out of rubric items (issue 12)
        for its in q.rubrics.values():
            for i in its:
                i.text = clean_text(i.text)
                i.cited_paper = clean_text(i.cited_paper)
    # A questions file is authoritative for the text too (reports only match on it).
    where = {q.external_id: (file, q.record) for q in inputs}
    questions = ensure_questions(study, wanted, rep, update_text=True, records=where)
    rubric_keys = [(q.external_id, kind) for q in inputs for kind in q.rubrics]
    if not rubric_keys:
        return questions
    qids = [questions[k].pk for k, _ in rubric_keys]

    def stored_rubrics() -> dict[tuple[int, str], int]:  # ids only: 21,000 rubrics a file
        rows = Rubric.objects.filter(question_id__in=qids).values_list("id", "question_id", "kind")
        return {(q, kind): pk for pk, q, kind in rows}

    rubrics = stored_rubrics()
    kept_wanted = {
        (questions[q.external_id].pk, kind): q.rubric_released.get(kind)
        for q in inputs
        for kind in q.rubrics
    }
    new = [
        (questions[k].pk, kind) for k, kind in rubric_keys if (questions[k].pk, kind) not in rubrics
    ]
    if new:
        insert_new(
            Rubric,
            [{"question": q, "kind": kind, "released": kept_wanted[(q, kind)]} for q, kind in new],
        )
        rep.count("created", "Rubric", len(new))
        rubrics = stored_rubrics()
    kept_changed = _released_changed(rubrics, kept_wanted)
    stored: dict[int, list] = {pk: [] for pk in rubrics.values()}
    for rid, text, typ, weight, cited in (
        RubricItem.objects.filter(rubric_id__in=list(stored))
        .order_by("rubric_id", "position")
        .values_list("rubric_id", "text", "item_type", "weight", "cited_paper")
    ):
        stored[rid].append((text, typ, float(weight), cited))
    wanted_items: dict[int, list[dict]] = {}
    records: dict[int, tuple[str, int, str, str]] = {}  # file, record, kind, id
    created_now = {rubrics[key] for key in new}
    for q in inputs:
        for kind, its in q.rubrics.items():
            rubric = rubrics[(questions[q.external_id].pk, kind)]
            same_items = stored[rubric] == [i.canonical() for i in its]
            if same_items and rubric not in kept_changed:
                rep.count("unchanged", "Rubric")
                continue
            at = q.rubric_from.get(kind, (file, q.record))
            if rubric not in created_now:
                rep.count("updated", "Rubric")
                name = f"question {q.external_id!r}, rubric {kind!r}"
                if rubric in kept_changed:
                    rep.change("Rubric", name, ["released"], *at)
                for pos, fields in _item_changes(stored[rubric], its):
                    rep.change("RubricItem", f"{name}, item at position {pos}", fields, *at)
            if same_items:
                continue
            records[rubric] = (*at, kind, q.external_id)
            wanted_items[rubric] = [
                {
                    "position": pos,
                    "text": i.text,
                    "item_type": i.item_type,
                    "weight": i.weight,
                    "cited_paper": i.cited_paper,
                }
                for pos, i in enumerate(its, start=1)
            ]
    # Items are matched by position and updated in place: rubric-item quality and rubric
    # coverage judgments point at them (annotation.units); dropping or rewording a judged
    # one is refused.
    try:
        created, updated, deleted = write_rubric_items(wanted_items)
    except JudgedUnitRemoved as refused:
        raise ImportFailed(
            [
                Problem(records[rid][0], records[rid][1], "rubric",
                        f"question {records[rid][3]!r}: rubric {records[rid][2]!r} "
                        + refused.message(rid))
                for rid in refused.owners()
            ]
        ) from None  # fmt: skip
    for bucket, n in (("created", created), ("updated", updated)):
        if n:
            rep.count(bucket, "RubricItem", n)
    if kept_changed:  # after the items: a refused rubric keeps the record it had
        Rubric.objects.bulk_update(
            [Rubric(pk=pk, released=kept) for pk, kept in kept_changed.items()],
            ["released"],
            batch_size=2000,
        )
    return questions


#: The stored item tuple's fields (:meth:`ItemInput.canonical`), as the changes name them.
_ITEM_FIELDS = ("text", "item_type", "weight", "cited_paper")


def _item_changes(stored: list[tuple], wanted: list[ItemInput]) -> list[tuple[int, list[str]]]:
    """(position, fields changed) of each item a rubric's re-import changes: fields that
    differ, ``added`` for an item the rubric did not have, ``removed`` for one it loses."""
    out = []
    for pos in range(1, max(len(stored), len(wanted)) + 1):
        if pos > len(wanted):
            out.append((pos, ["removed"]))
        elif pos > len(stored):
            out.append((pos, ["added"]))
        else:
            new = wanted[pos - 1].canonical()
            fields = [
                f for f, a, b in zip(_ITEM_FIELDS, stored[pos - 1], new, strict=True) if a != b
            ]
            if fields:
                out.append((pos, fields))
    return out


def _released_changed(rubrics: dict[tuple[int, str], int], wanted: dict) -> dict[int, dict]:
    """Rubric id -> the released record wanted (``None``: none) where it is not the one
    stored. Compared as JSON text, as stored: ``1`` and ``"1"``, ``2`` and ``2.0``, and the
    order of keys are differences (a dict's ``==`` sees none of the last two)."""
    by_pk = {rubrics[key]: kept for key, kept in wanted.items()}
    stored = Rubric.objects.filter(pk__in=list(by_pk)).values_list("pk", "released")
    return {pk: by_pk[pk] for pk, kept in stored.iterator() if not same_text(kept, by_pk[pk])}


# --- The import of a question format (every question format registers through this) --------


def question_loader(parse, *, with_report: bool = False):
    """``load(source, study, rep, **options)`` for a question format whose
    ``parse(src, **options)`` returns the :class:`QuestionInput` of every record
    (``with_report``: ``parse(src, rep, **options)``, which may add warnings)."""
    from .common import read_source
    from .structure import _display_name

    def load(source, study, rep: ImportReport, **options) -> None:
        src = read_source(source)
        inputs = parse(src, rep, **options) if with_report else parse(src, **options)
        rep.records = len(inputs)
        write_questions(study, inputs, rep, file=_display_name(source))

    return load


def register_generic() -> None:
    """Declare the generic format (called by ``annotation.importers`` after the benchmark
    formats, so the forms list it last)."""
    from .registry import Example, Format, register

    register(
        Format(
            "questions",
            "jsonl",
            "generic JSON lines, one question a line with its rubric "
            "(annotation/importers/questions.py)",
            load=question_loader(lambda src: parse_generic(src)),
            dump=lambda study, **_: {"questions.jsonl": dump_generic(study)},
            label="Questions and rubrics (generic JSON lines)",
            extension=".jsonl",
            shape=(
                'JSON lines (or a JSON list), one question a line: {"id", "text", "field"?,\n'
                '"subdomain"?, "domain"?, "split"?, "origin"?, "intent"?, "date"?,\n'
                '"rubric"?: [{"text", "type"?, "weight"?, "cited_paper"?}], "rubric_kind"?}'
            ),
            example=Example(Path(__file__).resolve().parent / "examples", "questions.jsonl"),
        )
    )


def dump_generic(study) -> str:
    """The study's questions and their rubric in the generic format."""
    import json

    lines = []
    for q in study.questions.order_by("pk").prefetch_related("rubrics__items"):
        base = {"id": q.external_id, "text": q.text}
        for name in ("field", "subdomain", "domain", "split", "origin", "intent"):
            if getattr(q, name):
                base[name] = getattr(q, name)
        if q.cutoff_date:
            base["date"] = q.cutoff_date.isoformat()
        rubrics = sorted(q.rubrics.all(), key=lambda r: r.kind)
        # One line per question (ids are unique in the file): its first rubric by kind.
        for rubric in rubrics[:1] or [None]:
            rec = dict(base)
            if rubric is not None:
                rec["rubric_kind"] = rubric.kind
                rec["rubric"] = [
                    {"text": i.text, "type": i.item_type, "weight": i.weight,
                     "cited_paper": i.cited_paper}
                    for i in sorted(rubric.items.all(), key=lambda i: i.position)
                ]  # fmt: skip
            lines.append(json.dumps(rec, ensure_ascii=False))
    return "".join(line + "\n" for line in lines)


def rubric_to_write(question, kind: str):
    """The rubric a format writes for ``question`` (its rubrics prefetched): the one of the
    format's ``kind``, else the question's first (a study whose rubrics came in another
    format, e.g. the demo's "default" rubrics, still exports them: an export without its
    rubrics loses what the annotators judged against)."""
    rubrics = sorted(question.rubrics.all(), key=lambda r: r.pk)
    return next((r for r in rubrics if r.kind == kind), rubrics[0] if rubrics else None)
