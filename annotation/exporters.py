"""Every table back out (JSON, JSON lines, CSV), and every judgment of a study in one file.

``export_table(table, study, fmt)`` writes the rows of one table that belong to a study,
one object per row with every concrete field (a foreign key as ``<name>_id``), ordered by
primary key. ``read_table(table, fmt, text)`` reads such an export back into typed values
(CSV holds JSON fields as JSON text and empty cells as null), which is how the round trip
is tested. The outside formats (ScholarQA-CS2 pairwise records, ResearchQA, ResearcherBench,
DeepScholar …) are written by their own format modules, declared in the import registry
(``annotation.importers.registry``; ``manage.py export_format``).
"""

from __future__ import annotations

import csv
import io
import json
from datetime import date, datetime

from django.apps import apps
from django.db import models
from django.utils.dateparse import parse_date, parse_datetime

from annotation import judgment_kinds, progress, spreadsheets

FORMATS = ("json", "jsonl", "csv")

#: table name -> (model label, lookup from the model to its study). A report's sources are
#: its ``citations`` column and a paragraph's anchors its ``anchors`` column (JSON, issue 29).
TABLES: dict[str, tuple[str, str]] = {
    "study": ("annotation.Study", "pk"),
    "question": ("annotation.Question", "study"),
    "rubric": ("annotation.Rubric", "question__study"),
    "rubric_item": ("annotation.RubricItem", "rubric__question__study"),
    "system": ("annotation.System", "study"),
    "report": ("annotation.Report", "question__study"),
    "section": ("annotation.Section", "report__question__study"),
    "paragraph": ("annotation.Paragraph", "report__question__study"),
    "annotator": ("annotation.Annotator", "assignments__study"),
    "expertise_rating": ("annotation.ExpertiseRating", "question__study"),
    "assignment": ("annotation.Assignment", "study"),
    "medal_ranking": ("annotation.MedalRanking", "study"),
    "medal": ("annotation.Medal", "ranking__study"),
    "pairwise_preference": ("annotation.PairwisePreference", "study"),
    "human_metric_score": ("annotation.HumanMetricScore", "study"),
    "judge": ("judges.Judge", "scores__report__question__study"),
    "judge_score": ("judges.JudgeScore", "report__question__study"),
}


def model_of(table: str) -> type[models.Model]:
    key = table.lower().replace("-", "_")
    if key not in TABLES:
        # Also accept Django's own model names ("rubricitem", "judgescore").
        by_model = {apps.get_model(label)._meta.model_name: t for t, (label, _) in TABLES.items()}
        key = by_model.get(key.replace("_", ""), key)
    if key not in TABLES:
        raise KeyError(f"unknown table {table!r}; use one of {', '.join(TABLES)}")
    return apps.get_model(TABLES[key][0])


def _columns(model) -> list[models.Field]:
    return [f for f in model._meta.concrete_fields]


def rows(table: str, study) -> list[dict]:
    model = model_of(table)
    lookup = TABLES[next(t for t, (label, _) in TABLES.items() if apps.get_model(label) is model)][
        1
    ]
    names = [f.attname for f in _columns(model)]
    qs = model.objects.filter(**{lookup: study.pk}).order_by("pk").distinct()
    return list(qs.values(*names))


def _plain(value):
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, date):
        return value.isoformat()
    return value


def export_table(table: str, study, fmt: str) -> str:
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}")
    data = [{k: _plain(v) for k, v in r.items()} for r in rows(table, study)]
    if fmt == "json":
        return json.dumps(data, ensure_ascii=False, indent=1) + "\n"
    if fmt == "jsonl":
        return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in data)
    model = model_of(table)
    fields = _columns(model)
    out = io.StringIO()
    writer = spreadsheets.csv_writer(out, lineterminator="\n")
    writer.writerow([f.attname for f in fields])
    for r in progress.track(data, len(data), f"exporting {table}", "row"):
        writer.writerow([_csv_cell(f, r[f.attname]) for f in fields])
    return out.getvalue()


def _csv_cell(field, value) -> str:
    if value is None:
        return ""
    if isinstance(field, models.JSONField):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def read_table(table: str, fmt: str, text: str) -> list[dict]:
    """An export read back, with each value typed as its model field (the round trip)."""
    model = model_of(table)
    fields = {f.attname: f for f in _columns(model)}
    if fmt == "json":
        raw = json.loads(text)
    elif fmt == "jsonl":
        raw = [json.loads(line) for line in text.splitlines() if line.strip()]
    elif fmt == "csv":
        raw = []
        for r in csv.DictReader(io.StringIO(text)):
            raw.append({k: _from_csv(fields[k], v) for k, v in r.items()})
    else:
        raise ValueError(f"unknown format {fmt!r}")
    return [{k: _typed(fields[k], v) for k, v in r.items()} for r in raw]


def _from_csv(field, cell: str):
    cell = spreadsheets.csv_unescape(cell)
    if isinstance(field, models.JSONField):
        return json.loads(cell) if cell != "" else None
    if cell == "" and (field.null or not isinstance(field, (models.CharField, models.TextField))):
        return None
    return cell


def _typed(field, value):
    if value is None or isinstance(field, models.JSONField):
        return value
    if isinstance(field, models.BooleanField):
        return value if isinstance(value, bool) else value == "true"
    if isinstance(field, models.FloatField):
        return float(value)
    if isinstance(
        field, (models.IntegerField, models.AutoField, models.ForeignKey)
    ) and not isinstance(field, models.CharField):
        return int(value)
    if isinstance(field, models.DateTimeField):
        return parse_datetime(value)
    if isinstance(field, models.DateField):
        return parse_date(value)
    return value


# --- all judgments of a study, one flat record per judgment ---------------------------------

JUDGMENT_FORMATS = ("json", "jsonl", "csv", "xlsx", "parquet")

#: kind -> (model label, prefix from the model to its judgment, its own columns): derived
#: from the one declaration of every judgment kind (``annotation.judgment_kinds``).
JUDGMENT_KINDS: dict[str, tuple[str, str, dict[str, str]]] = {
    k.key: (k.model, k.prefix, k.columns) for k in judgment_kinds.KINDS
}


def judgment_columns() -> list[str]:
    cols = ["kind", "id", *judgment_kinds.COMMON]
    for kind in judgment_kinds.KINDS:
        cols.extend(c for c in (*kind.common_columns, *kind.columns) if c not in cols)
    return [*cols, judgment_kinds.QUALIFICATION, judgment_kinds.QUALITY_CHECK]


def _judgment_querysets(study, *, setting: str | None = None, annotator: str | None = None):
    """(kind, its lookups by column, its records of the study) for each judgment kind,
    keeping only the records of ``setting`` and of ``annotator`` (a pseudonym) when given:
    a kind without a setting (expertise triage) holds none of a given setting."""
    for kind in judgment_kinds.KINDS:
        model = apps.get_model(kind.model)
        lookups = {"id": "pk", **kind.common_columns, **kind.columns}
        qs = model.objects.filter(**judgment_kinds.records_filter(kind, study.pk))
        if setting:
            if "setting" not in lookups:
                continue
            qs = qs.filter(**{lookups["setting"]: setting})
        if annotator:
            qs = qs.filter(**{lookups["annotator"]: annotator})
        yield kind, lookups, qs


def judgment_annotators(study) -> list[str]:
    """The pseudonyms of the annotators with a judgment of any kind in the study, sorted:
    the values the judgment export's ``annotator`` option takes."""
    per_kind = [
        qs.order_by().values_list(lookups["annotator"], flat=True)
        for _kind, lookups, qs in _judgment_querysets(study)
    ]
    names = per_kind[0].union(*per_kind[1:])  # one query, whatever the number of kinds
    return sorted(n for n in names if n)


def judgment_records(
    study, *, setting: str | None = None, annotator: str | None = None
) -> list[dict]:
    """Every judgment of the study (of ``setting`` and ``annotator`` only, when given): one
    query per kind, whatever the study size, each with its annotator's qualification
    status (``judgment_kinds.QUALIFICATION``) and whether it answers a gold or
    qualification item (``judgment_kinds.QUALITY_CHECK``)."""
    from annotation.quality.qualification import statuses

    status = statuses(study)
    checks = _quality_checks(study)
    out = []
    for kind, lookups, qs in _judgment_querysets(study, setting=setting, annotator=annotator):
        qs = qs.order_by("pk")
        for row in qs.values_list(*lookups.values()):
            record = {k: _plain(v) for k, v in zip(lookups, row, strict=True)}
            record[judgment_kinds.QUALIFICATION] = status[record["annotator"]]
            tasks = [record["task"]] if record.get("task") else kind.tasks
            found = {
                purpose
                for task in tasks
                for purpose, source in checks.get((task, record.get("question")), ())
                if source is None or source != record["annotator"]
            }
            record[judgment_kinds.QUALITY_CHECK] = next(
                (c for c in judgment_kinds.QUALITY_CHECKS if c in found), None
            )
            out.append({"kind": kind.key, **record})
    return out


def _quality_checks(study) -> dict[tuple[str, str], list[tuple[str, str | None]]]:
    """(task, question external id) -> (purpose, source annotator's pseudonym) of each gold
    and qualification item there (one query)."""
    from annotation.models import GoldItem

    out: dict[tuple[str, str], list[tuple[str, str | None]]] = {}
    rows = GoldItem.objects.filter(study=study).values_list(
        "task", "question__external_id", "purpose", "source_annotator__pseudonym"
    )
    for task, question, purpose, source in rows:
        out.setdefault((task, question), []).append((purpose, source))
    return out


def _cell(value):
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False)
    return value


def export_judgments(study, fmt: str, *, records: list[dict] | None = None) -> str | bytes:
    """All judgments of a study as JSON, JSON lines, CSV (text) or XLSX (bytes).

    JSON and JSON lines hold one object per judgment with the common columns and its kind's
    own; CSV and XLSX have one column per name used by any kind (empty where not used), and
    lists (claim citations, error flags) as JSON text.
    """
    if fmt not in JUDGMENT_FORMATS:
        raise ValueError(f"unknown format {fmt!r}; use one of {', '.join(JUDGMENT_FORMATS)}")
    if records is None:
        records = judgment_records(study)
    if fmt == "json":
        return json.dumps(records, ensure_ascii=False, indent=1) + "\n"
    if fmt == "jsonl":
        rows_ = progress.track(records, len(records), "exporting judgments", "row")
        return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows_)
    cols = judgment_columns()
    if fmt == "parquet":
        return _parquet(records, cols)
    if fmt == "csv":
        out = io.StringIO()
        writer = spreadsheets.csv_writer(out, lineterminator="\n")
        writer.writerow(cols)
        for r in progress.track(records, len(records), "exporting judgments", "row"):
            writer.writerow(["" if r.get(c) is None else _cell(r.get(c)) for c in cols])
        return out.getvalue()
    from openpyxl import Workbook

    wb = Workbook(write_only=True)
    ws = wb.create_sheet("judgments")
    spreadsheets.xlsx_append(ws, cols)
    for r in progress.track(records, len(records), "exporting judgments", "row"):
        spreadsheets.xlsx_append(ws, [_cell(r.get(c)) for c in cols])
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


#: The type of each judgment column that is no lookup (``judgment_columns``): the record's
#: kind, its id, and the derived qualification and quality-check columns.
DERIVED_TYPES = {"kind": "string", "id": "integer", judgment_kinds.QUALIFICATION: "string",
                 judgment_kinds.QUALITY_CHECK: "string"}  # fmt: skip


def _field_type(field: models.Field, column: str, kind) -> str:
    """The type of one kind's column, from the model field its lookup ends at: ``integer``,
    ``number``, ``boolean``, ``datetime``, ``string``, ``list`` (a JSON list of strings the
    kind declares, ``JudgmentKind.lists``) or ``json`` (any other JSON value, as text)."""
    if field.is_relation:
        field = field.target_field
    if isinstance(field, models.BooleanField):
        return "boolean"
    if isinstance(field, models.IntegerField | models.AutoField | models.BigAutoField):
        return "integer"
    if isinstance(field, models.FloatField | models.DecimalField):
        return "number"
    if isinstance(field, models.DateTimeField):
        return "datetime"
    if isinstance(field, models.JSONField):
        return "list" if column in kind.lists else "json"
    return "string"


def _lookup_field(model, lookup: str) -> models.Field:
    *path, last = lookup.split("__")
    for name in path:
        model = model._meta.get_field(name).related_model
    return model._meta.pk if last == "pk" else model._meta.get_field(last)


def judgment_column_types() -> dict[str, str]:
    """Every column of the judgment export (:func:`judgment_columns`) with its one type,
    derived from the declaration of the kinds (``annotation.judgment_kinds``) and their
    models, never from a study's data: so every study's ``judgments.parquet`` has the same
    schema (a researcher's ``concat_tables`` of two studies failed when a column empty in
    one was typed ``null`` there). A column two kinds type differently is a ``number``
    when both are numbers (a rating's 4 and a score's 0.4), else ``string`` (as the CSV)."""
    found: dict[str, set[str]] = {}
    for kind in judgment_kinds.KINDS:
        model = apps.get_model(kind.model)
        for column, lookup in {"id": "pk", **kind.common_columns, **kind.columns}.items():
            found.setdefault(column, set()).add(
                _field_type(_lookup_field(model, lookup), column, kind)
            )
    out = {}
    for column in judgment_columns():
        types = {DERIVED_TYPES[column]} if column in DERIVED_TYPES else found[column]
        if len(types) == 1:
            out[column] = types.pop()
        else:
            out[column] = "number" if types <= {"integer", "number"} else "string"
    return out


def judgment_arrow_schema():
    """The Arrow schema of ``judgments.parquet`` (:func:`judgment_column_types`): times as
    UTC timestamps, lists of strings as ``list<string>``, other JSON values as text."""
    import pyarrow as pa

    arrow = {"integer": pa.int64(), "number": pa.float64(), "boolean": pa.bool_(),
             "string": pa.string(), "json": pa.string(), "list": pa.list_(pa.string()),
             "datetime": pa.timestamp("us", tz="UTC")}  # fmt: skip
    return pa.schema([(c, arrow[t]) for c, t in judgment_column_types().items()])


def _arrow_value(value, kind: str):
    """One record's value as its column's declared type holds it."""
    if value is None:
        return None
    if kind == "datetime":
        return datetime.fromisoformat(value) if isinstance(value, str) else value
    if kind == "number":
        return float(value)
    if kind == "list":
        return [str(v) for v in value]
    if kind in ("string", "json"):
        return value if isinstance(value, str) else str(_cell(value))
    return value


def _parquet(records: list[dict], cols: list[str]) -> bytes:
    """The CSV's columns as a parquet file (pandas, polars, DuckDB, ``datasets`` read it),
    typed by :func:`judgment_arrow_schema` whatever the study holds. pyarrow is a runtime
    dependency: every Download panel offers this format (issue 28)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = judgment_arrow_schema()  # its names are ``cols``, the CSV's
    types = judgment_column_types()
    columns = [
        pa.array([_arrow_value(r.get(c), types[c]) for r in records], type=schema.field(c).type)
        for c in cols
    ]
    buf = io.BytesIO()
    pq.write_table(pa.Table.from_arrays(columns, schema=schema), buf)
    return buf.getvalue()


__all__ = [
    "FORMATS",
    "JUDGMENT_FORMATS",
    "JUDGMENT_KINDS",
    "TABLES",
    "export_judgments",
    "export_table",
    "judgment_arrow_schema",
    "judgment_column_types",
    "judgment_records",
    "read_table",
    "rows",
]
