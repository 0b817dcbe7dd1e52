"""Human judgments of every kind from the JSON lines the judgment export writes.

``manage.py export_study_judgments --format jsonl`` (``annotation.exporters.export_judgments``)
writes one object per judgment: ``kind``, the annotator's pseudonym, the setting, the
question's id and the kind's own columns. This format reads such a file back into a study
that holds the same questions, reports and rubrics (imported first), so labels collected
elsewhere (another Concord, a spreadsheet turned into these lines) come in through the one
import path (issue 18). What a judgment is about is found by natural key, never by database
id or public id (those differ between studies): a report by question id and system name, a
paragraph by its report and number, a rubric item by question, rubric kind and position.

Annotators are named by pseudonym, exactly: a name with leading or trailing white space is
refused, and so is a name that is no pseudonym but an account's username (records name
annotators by pseudonym; the refusal names the account's, the import being admin-only). A
new name creates an annotator (outside experts' labels come in so; a dry run lists it as
created); an existing annotator with nothing in this study (known only from other
studies) is accepted with a warning, as is a person with an account who is given
judgments that were not theirs (only when the import creates one: a re-import of their
own judgments changes no owner). Judgments are matched by what they judge (the same
annotator, setting and target updates, never duplicates). A record's ``task`` (one of the
task types that write its kind) is kept: a judgment the import creates is written in the
annotator's assignment of that task on the question (the stored one, else one created
submitted), so export -> import -> export gives the same ``task``; before, it was dropped
(an imported judgment had no assignment and exported ``"task": null``). A judgment
already stored keeps its assignment. The annotator's open assignment that would have
written an imported judgment becomes submitted, its page showing the imported labels
read-only (:func:`_submit_assignments`).

Values are checked as the task page checks them (:data:`FORMS`); a non-finite number
(NaN, Infinity) is refused, and a human metric score's value must lie on its metric's
scale (``scores.HUMAN_METRICS``: ``overall`` is a share in [0, 1]). A record's ``report``
(``left_report`` / ``right_report``), when given, must be the report of its question and
system (:func:`_check_reports`). Warnings come in record order. Which kinds exist, what each
judges and which of its columns are values is declared once in
``annotation.judgment_kinds``. A ``relevance_adjudication`` record carries the
disagreement it decides (the judge by name, the annotator's and the judge's labels, the
judge's rationale): it needs the judge's relevance verdicts imported into the study first,
and writes the annotator's submitted adjudication assignment of the question with the
disagreement (``annotation.importers.relevance_adjudications``). An
``authored_question`` record creates (or updates) the question an annotator wrote, with
them as its author; authored questions are written before every other kind, so the
judgments of them in the same file (wherever they stand) find them.

A record's ``created_at`` / ``updated_at`` (ISO 8601 with a time zone, as the export
writes them) are kept on the judgment it creates (a medal's and a rubric assessment's on
their ranking or comparison, an expertise rating's ``updated_at`` as its ``rated_at``):
before, every judgment re-imported into a fresh study was stamped with the import time.
A record without them gets the import time; an unparseable one, or one without a time
zone, is refused naming the record and field. A judgment already stored that the file
repeats unchanged keeps its times; one whose values the file changes is updated in place
and its update time moves to the import time, whatever the record says (a medal's or a
rubric assessment's change is one of its ranking or comparison); its creation time stays.
Before, a changed judgment kept its old ``updated_at``: the report cache, which reads the
largest update time of each kind (``metaeval.cache``), served the report of the old values.

The report lists every judgment the import writes (``ImportReport.changes``, the one
:class:`~.base.Change` list every import fills): each created, updated (its short values'
old -> new) or left unchanged, named by the record it comes from (question, system,
annotator, setting, metric ...: :func:`_name`), with its record number; a dry run lists the
same, so a re-imported file of expert scores says whose score of which report it would
change and from what to what, not only how many. Before, it gave the counts alone.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from pathlib import Path

from django.apps import apps
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone

from annotation import judgment_kinds
from annotation.annotate import (
    metric_wise,
    pairwise,
    query_quality,
    rubric_item_quality,
    scores,
)
from annotation.annotate import rubric_coverage as coverage_task
from annotation.annotate.form import Choices, Field, blank
from annotation.judgment_kinds import JudgmentKind
from annotation.models import (
    Annotator,
    Assignment,
    ExpertiseRating,
    Medal,
    MedalRanking,
    Paragraph,
    Question,
    Report,
    ReportClaim,
    Rubric,
    RubricAssessment,
    RubricComparison,
    RubricItem,
)
from annotation.models.assignment import Setting
from annotation.models.deepscholar import LABELS
from annotation.quality import following

from . import relevance_adjudications
from .base import ImportReport
from .common import (
    Problems,
    listed,
    parse_json_records,
    read_source,
    require,
    sync_rows,
    update_rows,
)
from .registry import Example, Format, Kind, Option, register, register_kind

#: kind -> its declaration; the importer reads every kind the export writes.
SPECS: dict[str, JudgmentKind] = {k.key: k for k in judgment_kinds.KINDS}
PSEUDONYM_MAX = Annotator._meta.get_field("pseudonym").max_length


def _form_fields(form, **names: str) -> dict[str, Field]:
    """column -> the form's Field whose path ends in ``names[column]``."""
    by_last = {f.segments[-1]: f for f in form.fields}
    return {column: by_last[last] for column, last in names.items()}


#: A rating's dimension: one of the metric-wise page's (the identity of a ReportRating).
DIMENSION = Field("dimension", "dimension", choices=Choices(metric_wise.DIMENSION_KEYS,
                  "one of " + ", ".join(metric_wise.DIMENSION_KEYS)))  # fmt: skip

#: kind -> column -> the task form's declaration of that value: an imported value is
#: checked as the task page checks a posted one (its choices, its length), so a judgment
#: that could not have been submitted cannot be imported either (issue 24).
FORMS: dict[str, dict[str, Field]] = {
    "pairwise_preference": {"choice": pairwise.CHOICE, "reason": pairwise.REASON},
    "paragraph_relevance": {"label": metric_wise.RELEVANCE_FIELD},
    "report_rating": {"value": metric_wise.RATING_FIELD, "dimension": DIMENSION},
    "query_quality": _form_fields(
        query_quality.FORM, clarity="clarity", naturalness="naturalness",
        relevance="relevance", variability="variability", comment="comment",
    ),
    "rubric_item_quality": _form_fields(
        rubric_item_quality.FORM, emphasis="emphasis", necessity="necessity",
        confidence="confidence", flags="flags",
    ),
    # the graded label (the binary one is ``covered``, a yes/no stored as a boolean)
    "rubric_coverage": {"label": coverage_task.COVERAGE},
}  # fmt: skip


#: kind -> column -> what is wrong with a value that names something declared elsewhere
#: (None: nothing): a human metric score's metric is one of the human metrics, else it
#: would be stored as a metric no analysis reads (``answer_recal``).
NAMES = {"human_metric_score": {"metric": scores.metric_problem}}


def _keyed(rows, *key) -> dict[tuple, int]:
    """natural key (the ``key`` lookups' values) -> id, for every row of ``rows``."""
    return {tuple(found): pk for pk, *found in rows.values_list("id", *key)}


class _Index:
    """The study's questions, reports, paragraphs and rubric items by natural key, each
    table read when a record first needs it: a file of rubric coverage labels never reads
    the study's paragraphs (378,000 at ResearchQA scale, most of that import's time)."""

    def __init__(self, study):
        self.study = study
        self.questions = _keyed(Question.objects.filter(study=study), "external_id")

    @cached_property
    def reports(self) -> dict:
        return _keyed(Report.objects.filter(question__study=self.study),
                      "question__external_id", "system__name")  # fmt: skip

    @cached_property
    def paragraphs(self) -> dict:
        return _keyed(Paragraph.objects.filter(report__question__study=self.study),
                      "report__question__external_id", "report__system__name", "number")  # fmt: skip

    @cached_property
    def items(self) -> dict:
        return _keyed(RubricItem.objects.filter(rubric__question__study=self.study),
                      "rubric__question__external_id", "rubric__kind", "position")  # fmt: skip

    @cached_property
    def claims(self) -> dict:
        return _keyed(ReportClaim.objects.filter(report__question__study=self.study),
                      "report__question__external_id", "report__system__name", "position")  # fmt: skip

    @cached_property
    def rubrics(self) -> dict:
        return _keyed(Rubric.objects.filter(question__study=self.study),
                      "question__external_id", "kind")  # fmt: skip

    @cached_property
    def report_ids(self) -> dict[str, tuple]:
        """public id -> (question id, system name) of the study's reports."""
        rows = Report.objects.filter(question__study=self.study)
        return {pid: (q, s) for pid, q, s in rows.values_list(
            "public_id", "question__external_id", "system__name")}  # fmt: skip

    def elsewhere(self, public_ids) -> dict[str, tuple]:
        """public id -> (question id, system name) of the reports of other studies among
        ``public_ids`` (read in chunks: a file copied from another study names them all)."""
        ids, out = sorted(public_ids), {}
        for start in range(0, len(ids), 500):
            rows = Report.objects.filter(public_id__in=ids[start : start + 500]).exclude(
                question__study=self.study
            )
            out |= {pid: (q, s) for pid, q, s in rows.values_list(
                "public_id", "question__external_id", "system__name")}  # fmt: skip
        return out

    def find(self, problems: Problems, n: int, table: dict, key: tuple, field: str, what: str):
        found = table.get(key)
        if found is None:
            problems.add(n, field, f"no {what} {' / '.join(map(str, key))} in the study")
        return found


def _target(index: _Index, problems: Problems, n: int, r: dict, target: str) -> dict | None:
    """The ids the judgment points at, or None (a problem was added)."""
    qid = str(r.get("question"))
    out: dict = {}
    if target == "report_or_none":
        if r.get("system") in (None, ""):  # a unit of the question, not of a report
            return {"report": None}
        target = "report"
    if target == "claim":
        key = (qid, r.get("system"), r.get("claim"))
        out["claim"] = index.find(problems, n, index.claims, key, "claim",
                                  "claim of question / system / position")  # fmt: skip
    if target == "rubric":
        out["rubric"] = index.find(problems, n, index.rubrics, (qid, r.get("rubric")), "rubric",
                                   "rubric of question / kind")  # fmt: skip
    if target in ("report", "report_item"):
        out["report"] = index.find(problems, n, index.reports, (qid, r.get("system")), "system",
                                   "report of question / system")  # fmt: skip
    if target == "paragraph":
        key = (qid, r.get("system"), r.get("paragraph"))
        out["paragraph"] = index.find(problems, n, index.paragraphs, key, "paragraph",
                                      "paragraph of question / system / number")  # fmt: skip
    if target in ("item", "report_item"):
        key = (qid, r.get("rubric"), r.get("item"))
        out["item"] = index.find(problems, n, index.items, key, "item",
                                 "rubric item of question / rubric / position")  # fmt: skip
    if target == "left_right":
        for side in ("left", "right"):
            out[side] = index.find(problems, n, index.reports, (qid, r.get(f"{side}_system")),
                                   f"{side}_system", "report of question / system")  # fmt: skip
    return None if None in out.values() else out


#: A record's report columns (the report's public id, as the export writes it) -> the column
#: of the system whose report (of the record's question) it must be.
REPORT_COLUMNS = {"report": "system", "left_report": "left_system", "right_report": "right_system"}


def _named_reports(records: list, index: _Index) -> dict[str, tuple]:
    """public id -> (question id, system name) of every report a record names by public id
    (this study's and other studies'; an id naming no report is left out)."""
    named = {
        str(r[c])
        for r in records
        if isinstance(r, dict)
        for c in REPORT_COLUMNS
        if r.get(c) not in (None, "")
    }
    return {**index.elsewhere(named - set(index.report_ids)), **index.report_ids}


def _check_reports(problems: Problems, n: int, r: dict, spec: JudgmentKind, named: dict,
                   own: dict) -> bool:  # fmt: skip
    """A record's ``report`` (``left_report``, ``right_report``), when given, must name the
    report of its question and system: a report of this study that is another's (another
    system's, another question's), a report of another study answering another question or
    by another system, or an id naming no report is refused (False), naming the field.
    Before, the column was ignored and the record matched on question and system alone.
    Another study's report of the same question id and system is the same report by natural
    key (an export of a study with the same content, imported here): accepted. A file from
    another Concord leaves the column out (or null): matched by question and system."""
    ok = True
    for column, system_column in REPORT_COLUMNS.items():
        given = r.get(column)
        if column not in spec.columns or given in (None, ""):
            continue
        wanted = (str(r.get("question")), r.get(system_column))
        found = named.get(str(given))
        if found == wanted:
            continue
        expected = f"the report of question {wanted[0]!r} / system {wanted[1]!r}"
        if found is None:
            why = f"no report has the id {given!r}"
        elif str(given) in own:
            why = f"{given!r} is this study's report of question {found[0]!r} / system {found[1]!r}"
        else:
            why = f"{given!r} is another study's report, of question {found[0]!r} / system {found[1]!r}"
        problems.add(n, column, f"{why}, not {expected}; leave {column} out (or null) "
                     f"to match the report by question and {system_column.replace('_', ' ')}")  # fmt: skip
        ok = False
    return ok


def _values(problems: Problems, n: int, model, spec: JudgmentKind, r: dict, index: _Index,
            qid: str):  # fmt: skip
    """The record's values and identity columns, by model field name, each checked by the
    model field (type, validators, choices)."""
    out = {}
    for column in spec.values + spec.identity:
        name = spec.model_field(column)
        if name == "paragraph":  # a claim's paragraph: by number within its report
            number = r.get("paragraph")
            out[name] = (
                None
                if number is None
                else index.find(
                    problems,
                    n,
                    index.paragraphs,
                    (qid, r.get("system"), number),
                    "paragraph",
                    "paragraph of question / system / number",
                )  # fmt: skip
            )
            continue
        field = model._meta.get_field(name)
        raw = r.get(column)
        try:
            if isinstance(raw, bool) and not isinstance(field, models.BooleanField):
                raise ValidationError(f"{str(raw).lower()} is not a {field.description.lower()}")
            if (
                isinstance(field, models.BooleanField)
                and raw is not None
                and not isinstance(raw, bool)
            ):
                raise ValidationError(f"{raw!r} is not true, false or null")
            if isinstance(raw, float) and not math.isfinite(raw):  # NaN, Infinity
                raise ValidationError(f"{raw!r} is not a finite number")
            value = field.to_python(raw)
            if value is None and not field.null:
                value = _default(field)
            if value is not None:
                field.run_validators(value)
            if field.choices and value not in {c for c, _ in field.choices}:
                raise ValidationError(f"{value!r} is not one of {[c for c, _ in field.choices]}")
            as_posted(FORMS.get(spec.key, {}).get(column), value)
            named = NAMES.get(spec.key, {}).get(column)
            if named is not None and (problem := named(value)):
                raise ValidationError(problem)
        except ValidationError as exc:
            problems.add(n, column, "; ".join(exc.messages))
            continue
        out[name] = value
    return out


def _default(field):
    """The value of a missing (or null) column whose field cannot be null: the field's own
    default when it declares one or may be blank (an optional comment: ``""``); else the
    column is required. Before, a missing text column took ``""`` whatever the field: a
    human metric score without ``metric`` was stored under the metric ``""``."""
    if field.has_default() or field.blank:
        value = field.get_default()
        if value is not None:
            return value
    raise ValidationError("required")


def as_posted(declared: Field | None, value) -> None:
    """Check ``value`` as the task page checks the posted field ``declared`` (its choices,
    a blank value where the form allows one, its length); ValidationError says why."""
    if declared is None:
        return
    values = value if declared.many else [value]
    if declared.many and not isinstance(value, list):
        raise ValidationError(f"{value!r} is not a list")
    choices = declared.choices_for(False)
    for v in values:
        if blank(v) and declared.blank_ok:
            continue
        if choices is not None and (isinstance(v, bool) or v not in choices):
            raise ValidationError(f"{v!r} is not {choices.text}")
        if declared.max_chars is not None and isinstance(v, str) and len(v) > declared.max_chars:
            raise ValidationError(f"longer than {declared.max_chars} characters")


@dataclass
class _Row:
    kind: str
    annotator: str
    setting: str
    question: int
    target: dict
    values: dict
    ranking: object = None
    reasoning: str = ""
    #: its record number in the file (a conflict names both records)
    n: int = 0
    #: the record's times (``created_at`` / ``updated_at`` columns, :func:`_times`)
    times: dict = field(default_factory=dict)
    #: the judgment by natural key, as a change names it (:func:`_name`)
    name: str = ""
    #: its group (a medal's ranking, a rubric assessment's comparison) by natural key
    group: str = ""
    #: the file it was read from (a change names its file and record)
    file: str | None = None
    #: the task it was made in (the record's ``task``; None: not said), kept as the task of
    #: the annotator's assignment the judgment is written in (:func:`_assignments`)
    task: str | None = None
    #: the id of that assignment, set before writing (None: no task)
    assignment: int | None = None

    def written_in(self) -> dict:
        """The ``assignment`` of the judgment the import creates for this record."""
        return {} if self.assignment is None else {"assignment": self.assignment}

    def stamps(self) -> dict[str, datetime]:
        """The record's times as the fields of the row that holds them (the kind's common
        lookups without its prefix: a medal's are its ranking's)."""
        spec = SPECS[self.kind]
        common = spec.common_columns
        return {common[c].removeprefix(spec.prefix): t for c, t in self.times.items()}

    def touched(self, now: datetime) -> dict[str, datetime]:
        """The times of a stored judgment this record changes: updated ``now``, whatever
        time the record gives (an exported file edited and imported again still holds the
        times of its export: kept, the change would be invisible to the report cache,
        which reads each kind's largest update time, and to anyone reading the times);
        its creation time stays as stored."""
        spec = SPECS[self.kind]
        return {spec.common_columns["updated_at"].removeprefix(spec.prefix): now}

    def key(self, kind_spec: JudgmentKind | None) -> tuple:
        """What one judgment is: two records with the same key are the same judgment."""
        identity = (
            ()
            if kind_spec is None
            else tuple(self.values.get(kind_spec.model_field(i)) for i in kind_spec.identity)
        )
        return (self.kind, self.annotator, self.setting, self.question,
                tuple(sorted(self.target.items())), identity)  # fmt: skip

    def content(self) -> tuple:
        return tuple(sorted((k, repr(v)) for k, v in self.values.items()))


def _conflicts(rows: list[_Row], problems: Problems) -> list[_Row]:
    """Two records of one judgment must agree (the same values; for medals, the ranking's
    reasoning too): refused naming both, never collapsed silently. Exact repeats are kept
    once."""
    seen: dict[tuple, _Row] = {}
    rankings: dict[tuple, _Row] = {}
    out = []
    for row in rows:
        key = row.key(SPECS.get(row.kind))
        first = seen.get(key)
        if first is not None:
            if first.content() != row.content():
                problems.add(row.n, row.kind, f"conflicts with record {first.n}: the same "
                             f"judgment with other values ({_differs(first, row)})")  # fmt: skip
            continue
        seen[key] = row
        if row.kind == "medal":
            ranking = (row.annotator, row.setting, row.question)
            other = rankings.setdefault(ranking, row)
            if other.reasoning != row.reasoning:
                problems.add(row.n, "reasoning", f"conflicts with record {other.n}: one "
                             "ranking with two reasonings")  # fmt: skip
        out.append(row)
    return out


def _differs(a: _Row, b: _Row) -> str:
    names = [k for k in sorted(set(a.values) | set(b.values)) if a.values.get(k) != b.values.get(k)]
    return ", ".join(f"{k}: {a.values.get(k)!r} vs {b.values.get(k)!r}" for k in names)


def _times(problems: Problems, n: int, r: dict, spec: JudgmentKind) -> dict[str, datetime]:
    """The record's time columns that its kind exports (``judgment_kinds.TIMES``), parsed:
    ISO 8601 with a time zone; a missing or null one is left out (the import time)."""
    out = {}
    for column in judgment_kinds.TIMES:
        value = r.get(column) if column in spec.common_columns else None
        if value is None or value == "":
            continue
        try:
            if not isinstance(value, str):
                raise ValueError
            when = datetime.fromisoformat(value)
        except ValueError:
            problems.add(n, column, f"{value!r} is not an ISO 8601 date and time")
            continue
        if when.tzinfo is None:
            problems.add(n, column, f"{value!r} has no time zone (e.g. +00:00)")
            continue
        out[column] = when
    if "created_at" in out and "updated_at" in out and out["updated_at"] < out["created_at"]:
        problems.add(n, "updated_at", f"{r['updated_at']!r} is before created_at")
    return out


def _scale_problem(values: dict) -> str | None:
    """What is wrong with a human metric score's checked values on its metric's scale."""
    if "metric" not in values or "value" not in values:
        return None  # already refused
    return scores.value_problem(values["metric"], values["value"])


def _task(problems: Problems, n: int, r: dict, spec: JudgmentKind) -> str | None:
    """The record's ``task`` (None when missing, null or not a column of its kind): one of
    the task types that write its kind (``JudgmentKind.tasks``)."""
    task = r.get("task") if "task" in spec.common_columns else None
    if task in (None, ""):
        return None
    if task not in spec.tasks:
        problems.add(n, "task", f"{task!r} is not a task that writes {spec.key} judgments "
                     f"({', '.join(spec.tasks)})")  # fmt: skip
        return None
    return task


#: A target -> the record's columns that name it (a report by its system, a paragraph by
#: its report and number, ...), in the order a change names them.
TARGET_NAMES = {
    "report": ("system",), "report_or_none": ("system",), "paragraph": ("system", "paragraph"),
    "claim": ("system", "claim"), "rubric": ("rubric",), "item": ("rubric", "item"),
    "report_item": ("system", "rubric", "item"), "left_right": ("left_system", "right_system"),
}  # fmt: skip


def _name(spec: JudgmentKind, r: dict, annotator: str, setting: str, *, what: bool = True) -> str:
    """The judgment a record is, by natural key, as the import's changes name it:
    ``question '4', system 'S', annotator 'a1', setting 'general', metric 'overall'``
    (what it judges, who, in which setting, and the identity columns of its kind); read
    from the record, so naming every judgment of a file asks the database nothing.
    ``what=False``: without what it judges within the question (a medal's ranking)."""
    parts = [f"question {str(r.get('question'))!r}"]
    for column in TARGET_NAMES.get(spec.target, ()) if what else ():
        if r.get(column) not in (None, ""):
            parts.append(f"{column.replace('_', ' ')} {r[column]!r}")
    parts.append(f"annotator {annotator!r}")
    if setting:
        parts.append(f"setting {setting!r}")
    if what:
        parts += [f"{c.replace('_', ' ')} {r[c]!r}" for c in spec.identity if r.get(c) is not None]
    return ", ".join(parts)


def read(src, study) -> list[_Row]:
    """Every record checked against the study: the rows to write."""
    records = parse_json_records(src)
    problems = Problems(src.name)
    index = _Index(study)
    rows = []
    judges = relevance_adjudications.known_judges(study, {
        r.get("judge") for r in records
        if isinstance(r, dict) and r.get("kind") == "relevance_adjudication"
    })  # fmt: skip
    named = _named_reports(records, index)
    authored = {
        str(r.get("question"))
        for r in records
        if isinstance(r, dict) and r.get("kind") == "authored_question"
    }
    for n, r in enumerate(records, start=1):
        kind = require(problems, n, r, "kind", str)
        if kind is not None and kind not in SPECS:
            problems.add(n, "kind", f"unknown judgment kind {kind!r}; one of {', '.join(SPECS)}")
            continue
        spec = SPECS.get(kind)
        annotator = require(problems, n, r, "annotator", str)
        has_setting = spec is None or "setting" in spec.common_columns
        setting = require(problems, n, r, "setting", str) if has_setting else ""
        qid = require(problems, n, r, "question", "id")
        if has_setting and setting is not None and setting not in Setting.values:
            problems.add(n, "setting", f"{setting!r} is not one of {', '.join(Setting.values)}")
            setting = None
        if annotator is not None and not annotator.strip():
            problems.add(n, "annotator", "empty pseudonym")
            annotator = None
        if annotator is not None and annotator != annotator.strip():
            # "QuietHeron-2 " would create a second annotator beside "QuietHeron-2"
            problems.add(n, "annotator", f"{annotator!r} begins or ends with white space; "
                         "a pseudonym does not")  # fmt: skip
            annotator = None
        if annotator is not None and len(annotator) > PSEUDONYM_MAX:
            problems.add(n, "annotator", f"longer than {PSEUDONYM_MAX} characters")
            annotator = None
        if None in (kind, annotator, setting, qid):
            continue
        times = _times(problems, n, r, spec)
        task = _task(problems, n, r, spec)
        if kind == "relevance_adjudication":
            task = None  # its writer writes it in its own adjudication assignment
        name = _name(spec, r, annotator, setting)
        if kind == "authored_question":
            values = _values(problems, n, Question, spec, r, index, str(qid))
            rows.append(_Row(kind, annotator, "", str(qid), {}, values, n=n, times=times,
                             name=name, group=name, file=src.name))  # fmt: skip
            continue
        question = index.find(problems, n, index.questions, (qid,), "question", "question")
        if question is None and str(qid) in authored:
            question = str(qid)  # created by this file's authored_question record
        if kind == "medal":
            target = _target(index, problems, n, r, "report")
            medal = r.get("medal")
            if medal not in Medal.Value.values:
                problems.add(n, "medal", f"expected one of {', '.join(Medal.Value.values)}")
                continue
            values, ranking = {"medal": medal}, r.get("ranking")
        elif kind == "relevance_adjudication":
            target = _target(index, problems, n, r, spec.target)
            values, ranking = relevance_adjudications.values(problems, n, r, judges), None
            if values is None:
                continue
        else:
            target = _target(index, problems, n, r, spec.target)
            values = _values(problems, n, apps.get_model(spec.model), spec, r, index, qid)
            ranking = r.get("comparison")
            # a human metric score's value on its metric's scale (scores.HUMAN_METRICS)
            if kind == "human_metric_score" and (problem := _scale_problem(values)):
                problems.add(n, "value", problem)
                continue
            if kind == "deepscholar_label" and values.get("label") not in LABELS.get(
                values.get("kind"), (values.get("label"),)
            ):  # a label outside its kind's set (METHODS §2.10), as the task page refuses it
                allowed = ", ".join(LABELS[values["kind"]])
                problems.add(n, "label", f"{values['label']!r} is not a {values['kind']} "
                             f"label ({allowed})")  # fmt: skip
                continue
        if question is None or target is None:
            continue
        if not _check_reports(problems, n, r, spec, named, index.report_ids):
            continue
        group = _name(spec, r, annotator, setting, what=False)
        task = r.get("task") if r.get("task") in spec.tasks else ""
        if kind == "deepscholar_label" and values.get("kind") in spec.tasks:
            # a DeepScholar label's kind is the one task that writes it (its key): a record
            # answers that task's assignment, not the annotator's other five of the question
            task = values["kind"]
        rows.append(_Row(kind, annotator, setting, question, target, values, ranking,
                         r.get("reasoning") or "", n, times, name, group, src.name,
                         task))  # fmt: skip
    rows = _conflicts(rows, problems)
    _check_usernames(rows, problems)
    relevance_adjudications.check_stored(
        study, [r for r in rows if r.kind == "relevance_adjudication"], problems
    )
    problems.raise_if_any()
    return rows


def _check_usernames(rows: list[_Row], problems: Problems) -> None:
    """A name that is no annotator's pseudonym but an account's username ("annotator3")
    is refused at the first record naming it: records name annotators by pseudonym, and
    the import would otherwise create a new annotator beside the account's own. The message
    names the account's pseudonym (the import is admin-only: the mapping is theirs to see).
    Any other new name creates an annotator (outside experts' labels come in so)."""
    first: dict[str, int] = {}
    for r in rows:
        first.setdefault(r.annotator, r.n)
    new = set(first) - set(
        Annotator.objects.filter(pseudonym__in=list(first)).values_list("pseudonym", flat=True)
    )
    if not new:
        return
    users = (
        get_user_model()
        .objects.filter(**{f"{get_user_model().USERNAME_FIELD}__in": sorted(new)})
        .select_related("annotator")
    )
    for user in users:
        name = user.get_username()
        profile = getattr(user, "annotator", None)
        whose = (f"their pseudonym is {profile.pseudonym!r}" if profile is not None
                 else "the account has no annotator profile")  # fmt: skip
        problems.add(first[name], "annotator", f"{name!r} is the username of an account, not "
                     f"a pseudonym: records name annotators by pseudonym ({whose})")  # fmt: skip


def _annotators(rows: list[_Row], rep: ImportReport, file: str) -> tuple[dict[str, int], dict]:
    """Pseudonym -> annotator id, creating the missing ones (each listed as created), and
    the pseudonyms of people with an account -> their account (:func:`_warn_owners`). The
    report says which annotator each pseudonym matched; one known only from other studies
    (no judgment or assignment in this one) is a warning: check it is the same person."""
    names = sorted({r.annotator for r in rows})
    first = {}
    for r in rows:
        first.setdefault(r.annotator, r.n)
    found = Annotator.objects.filter(pseudonym__in=names).select_related("user")
    existing = {a.pseudonym: a.pk for a in found}
    accounts = {}
    for a in found:
        if a.user is not None:
            rep.annotators[a.pseudonym] = f"existing annotator with the account “{a.user}”"
            accounts[a.pseudonym] = a.user
        else:
            rep.annotators[a.pseudonym] = "existing annotator (no account)"
    for n in names:
        rep.annotators.setdefault(n, "new annotator (no account)")
    new = [Annotator(pseudonym=n) for n in names if n not in existing]
    for a in new:
        rep.change("Annotator", repr(a.pseudonym), ["pseudonym"], file, first[a.pseudonym],
                   action="created")  # fmt: skip
    if new:
        Annotator.objects.bulk_create(new)
        rep.count("created", "Annotator", len(new))
        existing = dict(
            Annotator.objects.filter(pseudonym__in=names).values_list("pseudonym", "id")
        )
    return existing, accounts


def _warn_strangers(study, rows: list[_Row], rep: ImportReport, file: str) -> None:
    """A warning for each existing annotator the file names who has no judgment and no
    assignment in this study (known only from other studies), at its first record."""
    first: dict[str, int] = {}
    for r in rows:
        first.setdefault(r.annotator, r.n)
    names = list(first)  # every name (a constant number of queries, whoever is known)
    known = set(Annotator.objects.filter(pseudonym__in=names).values_list("pseudonym", flat=True))
    here = set(Assignment.objects.filter(study=study, annotator__pseudonym__in=names)
               .values_list("annotator__pseudonym", flat=True).distinct())  # fmt: skip
    for spec in judgment_kinds.KINDS:  # one query a kind, however many names
        who = spec.common_columns["annotator"]
        here |= set(apps.get_model(spec.model).objects.filter(
            **judgment_kinds.records_filter(spec, study.pk), **{f"{who}__in": names},
        ).values_list(who, flat=True).distinct())  # fmt: skip
    for name in sorted(known - here, key=first.get):
        rep.warn(file, first[name], "annotator", f"“{name}” is an existing annotator known "
                 "only from other studies (no judgment or assignment in this one): check it "
                 "is the same person")  # fmt: skip


def _warn_owners(rows: list[_Row], accounts: dict, rep: ImportReport, file: str) -> None:
    """A warning at the first record that gives a person with an account a judgment that
    was not theirs (one the import creates): their own record now holds it, check it is the
    same person. A judgment already theirs (updated or left unchanged) changes no owner."""
    created = {c.record for c in rep.changes if c.action == "created" and c.table != "Annotator"}
    owner: dict[str, int] = {}
    for r in rows:
        if r.annotator in accounts and r.n in created:
            owner.setdefault(r.annotator, r.n)
    for name, n in owner.items():
        rep.warn(file, n, "annotator", f"“{name}” matched the existing annotator {name}, who "
                 f"has the account “{accounts[name]}”: these judgments are now theirs")  # fmt: skip


def _assignments(study, rows: list[_Row], people: dict, rep: ImportReport) -> dict[tuple, int]:
    """(annotator id, question id, task, setting) -> the annotator's assignment of that task
    on the question, for every row that names its task: the stored one (whatever its
    status), else one created submitted (its reports in the question's order), as the
    task page would have left it. A judgment written by the import is written in it, so its
    ``task`` survives an export and a re-import (before, an imported judgment had no
    assignment and exported ``"task": null``)."""
    wanted = {(people[r.annotator], r.question, r.task, r.setting) for r in rows if r.task}
    if not wanted:
        return {}

    def stored() -> dict[tuple, int]:
        return {
            (a, q, t, s): pk
            for pk, a, q, t, s in Assignment.objects.filter(
                study=study, annotator_id__in={a for a, *_ in wanted},
                task__in={t for _, _, t, _ in wanted},
            ).values_list("id", "annotator_id", "question_id", "task", "setting")
        }  # fmt: skip

    found = stored()
    missing = sorted(wanted - set(found))
    if missing:
        reports: dict[int, list[int]] = {}
        for q, pk in (
            Report.objects.filter(question_id__in={q for _, q, _, _ in missing})
            .order_by("pk")
            .values_list("question_id", "id")
        ):
            reports.setdefault(q, []).append(pk)
        now = timezone.now()
        at = _answered_at(rows, lambda r: (people[r.annotator], r.question, r.task, r.setting))
        Assignment.objects.bulk_create([
            Assignment(study=study, annotator_id=a, question_id=q, task=t, setting=s,
                       report_order=reports.get(q, []), status=Assignment.Status.SUBMITTED,
                       submitted_at=at.get((a, q, t, s), now))
            for a, q, t, s in missing
        ])  # fmt: skip
        rep.count("created", "Assignment", len(missing))
        found = stored()
    return {k: found[k] for k in wanted}


def _changed(stored: dict, wanted: dict) -> list:
    """The keys of ``wanted`` that :func:`~.common.sync_rows` writes: new, or stored with
    other values."""
    return [k for k, v in wanted.items() if k not in stored or stored[k][1] != v]


def _write_kind(study, kind: str, rows: list[_Row], people: dict, rep: ImportReport) -> set:
    spec = SPECS[kind]
    model = apps.get_model(spec.model)
    targets = list(rows[0].target) if rows else []
    identity = [spec.model_field(f) for f in spec.identity]
    key_fields = ["annotator", "setting", "question", *targets, *identity]
    own = [spec.model_field(f) for f in spec.values if f not in spec.identity]

    def key_of(row: _Row) -> tuple:
        base = {"annotator": people[row.annotator], "setting": row.setting,
                "question": row.question, **row.target, **row.values}  # fmt: skip
        return tuple(base[f] for f in key_fields)

    wanted = {key_of(r): tuple(r.values[f] for f in own) for r in rows}
    by_key = {key_of(r): r for r in rows}
    now = timezone.now()
    columns = [f"{f}_id" if f in ("annotator", "question", *targets) else f for f in key_fields]
    stored = {
        tuple(row[: len(key_fields)]): (row[-1], tuple(row[len(key_fields) : -1]))
        for row in model.objects.filter(study=study).values_list(
            *columns, *[model._meta.get_field(f).attname for f in own], "id"
        )
    }
    sync_rows(
        model, rep, stored=stored, wanted=wanted, fields=own,
        touch=lambda key: by_key[key].touched(now),
        new_row=lambda key, v: {"study": study.pk, **dict(zip(key_fields, key, strict=True)),
                                **dict(zip(own, v, strict=True)), **by_key[key].stamps(),
                                **by_key[key].written_in()},
        opaque={f for f in own if model._meta.get_field(f).is_relation}, **listed(by_key),
    )  # fmt: skip
    question = key_fields.index("question")
    return {key[question] for key in _changed(stored, wanted)}


def _write_groups(model, study, rows: list[_Row], people: dict, rep: ImportReport):
    """The rows' groups (a medal ranking, a rubric comparison): one ``model`` row per
    annotator, question and setting, with its reasoning. Returns their ids by that key and
    :func:`_touch_groups`'s ``touch`` for the groups whose members change."""
    groups: dict[tuple, str] = {}
    first: dict[tuple, _Row] = {}  # the group's times: its first record's
    for r in rows:
        groups.setdefault((people[r.annotator], r.question, r.setting), r.reasoning)
        first.setdefault((people[r.annotator], r.question, r.setting), r)
    key = ("annotator_id", "question_id", "setting")
    stored = {
        (a, q, s): (pk, (why,))
        for pk, a, q, s, why in model.objects.filter(study=study).values_list(
            "id", *key, "reasoning"
        )
    }
    now = timezone.now()
    sync_rows(
        model, rep, stored=stored, wanted={k: (v,) for k, v in groups.items()},
        fields=["reasoning"], touch=lambda k: first[k].touched(now),
        new_row=lambda k, v: {"study": study.pk, "annotator": k[0], "question": k[1],
                              "setting": k[2], "reasoning": v[0], **first[k].stamps(),
                              **first[k].written_in()},
        **listed(first, group=True),
    )  # fmt: skip
    ids = {
        (a, q, s): pk for pk, a, q, s in model.objects.filter(study=study).values_list("id", *key)
    }
    written = {ids[k] for k, v in groups.items() if k not in stored or stored[k][1] != (v,)}
    times = {ids[k]: r.touched(now) for k, r in first.items()}

    def touch(changed: set[int]) -> None:
        _touch_groups(model, {pk: times[pk] for pk in changed - written})

    return ids, touch


def _touch_groups(model, times: dict[int, dict]) -> None:
    """Stamp stored groups whose members a re-import changed (a medal of a ranking): the
    group is the judgment whose times they share. One UPDATE per set of columns."""
    by_columns: dict[tuple, list] = {}
    for pk, stamps in times.items():
        by_columns.setdefault(tuple(stamps), []).append((pk, *stamps.values()))
    for columns, rows in by_columns.items():
        update_rows(model, list(columns), rows)


def _changed_groups(stored: dict, wanted: dict) -> set[int]:
    """The group ids (first of each key) whose members ``wanted`` adds or changes."""
    return {k[0] for k, v in wanted.items() if k not in stored or stored[k][1] != v}


def _questions_of(ids: dict, groups) -> set[int]:
    """The questions of the group ids ``groups`` (``ids``: (annotator, question, setting)
    -> group id, :func:`_write_groups`)."""
    question = {pk: q for (_, q, _), pk in ids.items()}
    return {question[g] for g in groups}


def _write_medals(study, rows: list[_Row], people: dict, rep: ImportReport) -> set:
    """Medal rows grouped by their ranking: one MedalRanking per annotator, question and
    setting (its reasoning), its medals by report."""
    ids, touch = _write_groups(MedalRanking, study, rows, people, rep)
    by_key = {(ids[(people[r.annotator], r.question, r.setting)], r.target["report"]): r
              for r in rows}  # fmt: skip
    wanted = {k: (r.values["medal"],) for k, r in by_key.items()}
    stored_medals = {
        (rk, rp): (pk, (m,))
        for pk, rk, rp, m in Medal.objects.filter(ranking__study=study).values_list(
            "id", "ranking_id", "report_id", "medal"
        )
    }
    changed = _changed_groups(stored_medals, wanted)
    touch(changed)
    sync_rows(
        Medal, rep, stored=stored_medals, wanted=wanted, fields=["medal"],
        new_row=lambda k, v: {"ranking": k[0], "report": k[1], "medal": v[0]},
        **listed(by_key),
    )  # fmt: skip
    return _questions_of(ids, changed)


def _write_rubric_assessments(study, rows: list[_Row], people: dict, rep: ImportReport) -> set:
    """Rubric assessments grouped by their comparison: one RubricComparison per annotator,
    question and setting (its reasoning), its assessments by rubric."""
    ids, touch = _write_groups(RubricComparison, study, rows, people, rep)
    own = ["medal", "strengths", "missing", "weaknesses"]
    by_key = {(ids[(people[r.annotator], r.question, r.setting)], r.target["rubric"]): r
              for r in rows}  # fmt: skip
    wanted = {k: tuple(r.values[f] for f in own) for k, r in by_key.items()}
    stored_rows = {
        (c, rb): (pk, tuple(v))
        for pk, c, rb, *v in RubricAssessment.objects.filter(comparison__study=study).values_list(
            "id", "comparison_id", "rubric_id", *own
        )
    }
    changed = _changed_groups(stored_rows, wanted)
    touch(changed)
    sync_rows(
        RubricAssessment, rep, stored=stored_rows, wanted=wanted, fields=own,
        new_row=lambda k, v: {"comparison": k[0], "rubric": k[1], **dict(zip(own, v, strict=True))},
        **listed(by_key),
    )  # fmt: skip
    return _questions_of(ids, changed)


def _write_expertise(study, rows: list[_Row], people: dict, rep: ImportReport) -> set:
    """Expertise triage: one level per annotator and question (no setting)."""
    wanted = {(people[r.annotator], r.question): (r.values["level"],) for r in rows}
    by_key = {(people[r.annotator], r.question): r for r in rows}
    now = timezone.now()
    stored = {
        (a, q): (pk, (level,))
        for pk, a, q, level in ExpertiseRating.objects.filter(question__study=study).values_list(
            "id", "annotator_id", "question_id", "level"
        )
    }
    sync_rows(
        ExpertiseRating, rep, stored=stored, wanted=wanted, fields=["level"],
        touch=lambda k: by_key[k].touched(now),
        new_row=lambda k, v: {"annotator": k[0], "question": k[1], "level": v[0],
                              **by_key[k].stamps()},
        **listed(by_key),
    )  # fmt: skip
    return {q for _, q in _changed(stored, wanted)}


def _write_authored(study, rows: list[_Row], people: dict, rep: ImportReport) -> dict:
    """Questions annotators wrote (question authoring), by external id, with their author;
    returns external id -> question id for the judgments of the same file."""
    own = ["text", "field", "subdomain", "author_notes", "review", "authored_by"]
    wanted = {r.question: (*(r.values[f] for f in own[:-1]), people[r.annotator]) for r in rows}
    by_key = {r.question: r for r in rows}
    stored = {
        q: (pk, tuple(v))
        for pk, q, *v in Question.objects.filter(study=study).values_list(
            "id", "external_id", *own[:-1], "authored_by_id"
        )
    }
    sync_rows(
        Question, rep, stored=stored, wanted=wanted, fields=own,
        new_row=lambda q, v: {"study": study.pk, "external_id": q,
                              "origin": Question.Origin.EXPERT_AUTHORED,
                              **dict(zip(own, v, strict=True))},
        opaque={"authored_by"}, **listed(by_key),
    )  # fmt: skip
    return dict(
        Question.objects.filter(study=study, external_id__in=list(wanted)).values_list(
            "external_id", "id"
        )
    )


#: The writers of the kinds that are not one row per record; authored questions first.
WRITERS = {
    "authored_question": _write_authored,
    "medal": _write_medals,
    "rubric_assessment": _write_rubric_assessments,
    "expertise_rating": _write_expertise,
    "relevance_adjudication": relevance_adjudications.write,
}


def load(source, study, rep: ImportReport, **_options) -> None:
    src = read_source(source)
    rows = read(src, study)
    rep.records = len(rows)
    _warn_strangers(study, rows, rep, src.name)
    people, accounts = _annotators(rows, rep, src.name)
    by_kind: dict[str, list[_Row]] = {}
    for r in rows:
        by_kind.setdefault(r.kind, []).append(r)
    created = _write_authored(study, by_kind.pop("authored_question"), people, rep) if (
        "authored_question" in by_kind
    ) else {}  # fmt: skip
    for r in rows:
        if isinstance(r.question, str):  # an authored question of this file
            r.question = created[r.question]
    assignments = _assignments(study, rows, people, rep)
    for r in rows:
        if r.task:
            r.assignment = assignments[(people[r.annotator], r.question, r.task, r.setting)]
    changed: set[int] = set()  # the questions whose judgments the import wrote
    for kind, group in by_kind.items():
        if kind in WRITERS:
            changed |= WRITERS[kind](study, group, people, rep)
        else:
            changed |= _write_kind(study, kind, group, people, rep)
    _submit_assignments(study, rows, people, rep)
    # the adjudication requests on them follow the labels, as after a task page's submit
    following.follow_labels(study, changed, why=f"judgments imported from {src.name}")
    _warn_owners(rows, accounts, rep, src.name)
    rep.warnings.sort(key=lambda w: (w.record is not None, w.record or 0))  # in record order


#: Kinds whose writer keeps its own assignments (or that have none of a question).
OWN_ASSIGNMENTS = {"relevance_adjudication", "authored_question"}


def _submit_assignments(study, rows: list[_Row], people: dict, rep: ImportReport) -> None:
    """The annotator's open assignments that the imported judgments answer become
    submitted: those of the record's question and setting (any setting for a kind without
    one) whose task writes the record's kind (the record's ``task`` when it names one; a
    DeepScholar label's, the task its label kind names: ``read``). A
    judgment is written only by a submit, so its record is the submitted answer of the
    assignment that would have written it, as the relevance adjudication and release imports
    mark theirs. Before, such an assignment stayed open and its page an empty form whose
    submit overwrote the imported labels; its page now shows them, read-only as any
    submitted one (``annotation.annotate.drafts.adopt``)."""
    wanted: dict[tuple, set[str]] = {}
    for r in rows:
        if r.kind in OWN_ASSIGNMENTS:
            continue
        key = (people[r.annotator], r.question, r.setting)
        wanted.setdefault(key, set()).update([r.task] if r.task else SPECS[r.kind].tasks)
    if not wanted:
        return
    open_ = Assignment.objects.filter(
        study=study,
        annotator_id__in={a for a, _, _ in wanted},
        question_id__in={q for _, q, _ in wanted},
        status__in=[Assignment.Status.NOT_STARTED, Assignment.Status.IN_PROGRESS],
    ).values_list("id", "annotator_id", "question_id", "setting", "task")
    answered = [
        pk
        for pk, a, q, setting, task in open_
        if task in wanted.get((a, q, setting), wanted.get((a, q, ""), ()))
    ]
    if answered:
        now = timezone.now()
        at = _answered_at(rows, lambda r: (people[r.annotator], r.question, r.setting))
        by_time: dict[datetime, list[int]] = {}
        for pk, a, q, setting, _ in open_:
            if pk in answered:
                when = at.get((a, q, setting)) or at.get((a, q, "")) or now
                by_time.setdefault(when, []).append(pk)
        for when, pks in by_time.items():  # one UPDATE per distinct time (most: one)
            Assignment.objects.filter(pk__in=pks).update(
                status=Assignment.Status.SUBMITTED, submitted_at=when
            )
        rep.count("updated", "Assignment", len(answered))


def _answered_at(rows: list[_Row], key) -> dict[tuple, datetime]:
    """The latest time the records of each ``key`` give (``updated_at``, else
    ``created_at``): when the judgment was submitted, which the assignment the import marks
    submitted carries (and the page's adopted version with it: ``drafts.adopt``). Before,
    it carried the import's time. A key whose records give none is left out (the import's
    time)."""
    at: dict[tuple, datetime] = {}
    for r in rows:
        when = r.times.get("updated_at") or r.times.get("created_at")
        if when is not None:
            k = key(r)
            at[k] = max(at.get(k, when), when)
    return at


def dump(study, setting: str | None = None, annotator: str | None = None) -> dict[str, str]:
    from annotation.exporters import export_judgments, judgment_records

    records = judgment_records(study, setting=setting, annotator=annotator)
    return {"judgments.jsonl": export_judgments(study, "jsonl", records=records)}


#: The options of the judgment export, here and on the study page's "Export results" links
#: (``/studies/<id>/export/judgments.<format>``, read through this writer's declaration):
#: an "expertise-matched only" download holds only that setting's judgments.
DUMP_OPTIONS = (
    Option("setting", "only the judgments of this setting", choices=tuple(Setting.values)),
    Option("annotator", "only the judgments of this annotator (pseudonym)"),
)


register_kind(
    Kind(
        "judgments",
        "human judgments of every kind, as the judgment export writes them",
        creates_study=False,
        default="jsonl",
    )
)
register(
    Format(
        "judgments",
        "jsonl",
        "the JSON lines of export_study_judgments --format jsonl (one judgment a line)",
        load=load,
        dump=dump,
        dump_options=DUMP_OPTIONS,
        label="Human judgments of every kind (JSON lines)",
        extension=".jsonl",
        shape=(
            'One judgment a line: {"kind", "annotator": "<pseudonym>", "setting",\n'
            '"question": "<id>", and what it judges by natural key ("system"; "paragraph"\n'
            'number; "rubric" kind and "item" position; "left_system"/"right_system"),\n'
            'then the kind\'s own values (e.g. "value", "label"), as the judgments export writes;\n'
            'a relevance adjudication names its "judge", whose relevance verdicts come first.'
        ),
        example=Example(
            Path(__file__).resolve().parent / "examples",
            "judgments.jsonl",
            needs=(
                ("questions", "researchqa", {}),
                ("reports", "researchqa", {"system": "example-system"}),
            ),
        ),  # fmt: skip
    )
)
