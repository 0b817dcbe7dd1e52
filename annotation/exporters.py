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


def _parquet(records: list[dict], cols: list[str]) -> bytes:
    """The CSV's columns as a parquet file (pandas, polars, DuckDB, ``datasets`` read it).
    pyarrow is a runtime dependency: every Download panel offers this format (issue 28)."""
    from datetime import datetime

    import pyarrow as pa
    import pyarrow.parquet as pq

    columns = {c: [_cell(r.get(c)) for r in records] for c in cols}
    for c, values in columns.items():  # one type per column: mixed kinds become text
        kinds = {type(v) for v in values if v is not None}
        if len(kinds) > 1:
            columns[c] = [None if v is None else str(v) for v in values]
    # times as timestamps, so pandas and DuckDB read datetimes, not text (a researcher's
    # notebook found created_at typed as a string)
    for c in judgment_kinds.TIMES:
        if c in columns:
            columns[c] = pa.array(
                [None if v is None else datetime.fromisoformat(v) for v in columns[c]],
                type=pa.timestamp("us", tz="UTC"),
            )
    buf = io.BytesIO()
    pq.write_table(pa.table(columns), buf)
    return buf.getvalue()


__all__ = [
    "FORMATS",
    "JUDGMENT_FORMATS",
    "JUDGMENT_KINDS",
    "TABLES",
    "export_judgments",
    "export_table",
    "judgment_records",
    "read_table",
    "rows",
]
