"""Research fields of a study's questions: set in bulk, or uploaded onto existing questions.

Expertise assignment (ResearchQA's field-matched pools) gives a question only to annotators
whose expertise contains its field, so a question with no field is assigned to nobody.
Questions created by a report import (ScholarQA-CS2 files carry only the question's text)
have none. Two ways to set them, both updating the questions that exist, never creating one:

- :func:`bulk_set`: the questions ticked on the study's Questions page get one field and/or
  subdomain;
- :func:`upload`: a CSV (``id``, ``text``, ``field``, ``subdomain`` columns) or JSON lines
  file whose rows find their question by ``id`` (the question's id in the study, shown on
  the Questions page and in its CSV download) or else by its exact text (whitespace and
  case aside). A row that finds no question, or several, is an error naming the row; on
  any error nothing is changed.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

from django.db import transaction

from annotation.importers.common import (
    Problems,
    fail,
    normalize_question,
    parse_json_records,
    read_source,
    type_name,
)
from annotation.models import Question, Study
from annotation.spreadsheets import csv_dict_reader, csv_writer

from . import StudyAdminError

EDITABLE = ("field", "subdomain")
MAX_LENGTH = 200


@dataclass(frozen=True)
class Updated:
    changed: int
    unchanged: int


def bulk_set(study: Study, question_ids, values: dict[str, str]) -> Updated:
    """Give the questions ``question_ids`` of ``study`` the non-empty ``values``."""
    values = {k: v.strip() for k, v in values.items() if k in EDITABLE and (v or "").strip()}
    if not values:
        raise StudyAdminError("field", "write a field or a subdomain to set")
    ids = set(question_ids)
    if not ids:
        raise StudyAdminError("questions", "tick at least one question")
    with transaction.atomic():
        rows = list(Question.objects.select_for_update().filter(study=study, pk__in=ids))
        if len(rows) != len(ids):
            raise StudyAdminError("questions", "a question ticked is not in this study")
        return _apply(rows, {q.pk: values for q in rows})


def _apply(rows: list[Question], wanted: dict[int, dict[str, str]]) -> Updated:
    changed = []
    for q in rows:
        new = wanted[q.pk]
        if any(getattr(q, k) != v for k, v in new.items()):
            for k, v in new.items():
                setattr(q, k, v)
            changed.append(q)
    Question.objects.bulk_update(changed, list(EDITABLE))
    return Updated(changed=len(changed), unchanged=len(rows) - len(changed))


def _records(src) -> list:
    text = src.text or ""
    if src.name.lower().endswith(".csv"):
        reader = csv_dict_reader(text)  # undoes questions_csv's escaping
        if not reader.fieldnames:
            fail(src.name, "the file is empty")
        return [{(k or "").strip().lower(): v for k, v in row.items()} for row in reader]
    return parse_json_records(src)


def upload(study: Study, source) -> Updated:
    """Set fields of existing questions from an uploaded file (see the module doc)."""
    src = read_source(source)
    records = _records(src)
    problems = Problems(src.name)
    if not records:
        problems.file_level("no rows: expected id or text, and field and/or subdomain")
        problems.raise_if_any()
    questions = list(Question.objects.filter(study=study).only("pk", "external_id", "text"))
    by_id = {q.external_id: q for q in questions}
    by_text: dict[str, list[Question]] = {}
    for q in questions:
        by_text.setdefault(normalize_question(q.text), []).append(q)
    wanted: dict[int, dict[str, str]] = {}
    first_row: dict[int, int] = {}
    for n, r in enumerate(records, start=1):
        if not isinstance(r, dict):
            problems.add(n, None, f"expected an object, found {type_name(r)}")
            continue
        before = len(problems.items)
        values = {}
        for key in EDITABLE:
            v = r.get(key)
            if v is None or v == "":
                continue
            if not isinstance(v, str):
                problems.add(n, key, f"expected a string, found {type_name(v)}")
            elif len(v.strip()) > MAX_LENGTH:
                problems.add(n, key, f"longer than {MAX_LENGTH} characters")
            else:
                values[key] = v.strip()
        if not values and len(problems.items) == before:
            problems.add(n, "field", "give a field and/or a subdomain")
        qid, text = r.get("id"), r.get("text") or r.get("question")
        if qid not in (None, ""):
            question = by_id.get(str(qid).strip())
            if question is None:
                problems.add(n, "id", f"no question of this study has the id {qid!r}")
                continue
        elif isinstance(text, str) and text.strip():
            found = by_text.get(normalize_question(text), [])
            if not found:
                problems.add(n, "text", f"no question of this study has the text {text[:80]!r}")
                continue
            if len(found) > 1:
                ids = ", ".join(q.external_id for q in found)
                problems.add(n, "text", f"several questions have this text ({ids}): use the id")
                continue
            question = found[0]
        else:
            problems.add(n, "id", "give the question's id or its text")
            continue
        if question.pk in first_row:
            problems.add(
                n,
                "id",
                f"question {question.external_id} is already set by row {first_row[question.pk]}",
            )
            continue
        first_row[question.pk] = n
        wanted[question.pk] = values
    problems.raise_if_any()
    with transaction.atomic():
        rows = list(Question.objects.select_for_update().filter(pk__in=wanted))
        return _apply(rows, wanted)


CSV_COLUMNS = ("id", "text", "field", "subdomain")


def questions_csv(study: Study) -> str:
    """The study's questions, to fill in fields offline and upload back; a cell that a
    spreadsheet would read as a formula is escaped (:mod:`annotation.spreadsheets`) and
    :func:`upload` undoes it."""
    out = io.StringIO()
    w = csv_writer(out, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for row in (
        Question.objects.filter(study=study)
        .order_by("pk")
        .values_list("external_id", *CSV_COLUMNS[1:])
    ):
        w.writerow(row)
    return out.getvalue()
