"""Human judgments of every kind from the JSON lines the judgment export writes.

``manage.py export_study_judgments --format jsonl`` (``annotation.exporters.export_judgments``)
writes one object per judgment: ``kind``, the annotator's pseudonym, the setting, the
question's id and the kind's own columns. This format reads such a file back into a study
that holds the same questions, reports and rubrics (imported first), so labels collected
elsewhere (another Concord, a spreadsheet turned into these lines) come in through the one
import path (issue 18). What a judgment is about is found by natural key, never by database
id or public id (those differ between studies): a report by question id and system name, a
paragraph by its report and number, a rubric item by question, rubric kind and position.

Annotators are created by pseudonym when missing. Judgments are matched by what they judge
(the same annotator, setting and target updates, never duplicates); the assignment they
were made in is not carried (an imported judgment has none). ``relevance_adjudication``
rows, which resolve a judge's disagreement stored with the judge's run, are skipped with a
warning.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from django.apps import apps
from django.core.exceptions import ValidationError

from annotation.models import (
    Annotator,
    Medal,
    MedalRanking,
    Paragraph,
    Question,
    Report,
    RubricItem,
)

from .base import ImportReport
from .common import Problems, parse_json_records, read_source, require, sync_rows
from .registry import Example, Format, Kind, register, register_kind


@dataclass(frozen=True)
class Spec:
    """How one judgment kind is stored: its model, what it judges, its own values."""

    model: str
    #: What the judgment is about: "report", "paragraph", "item", "report_item",
    #: "left_right" or "" (the question itself).
    target: str
    values: tuple[str, ...]
    #: Extra identity beyond annotator, setting and target (a claim's position).
    identity: tuple[str, ...] = ()


SPECS: dict[str, Spec] = {
    "pairwise_preference": Spec(
        "annotation.PairwisePreference", "left_right", ("choice", "reason")
    ),
    "human_metric_score": Spec("annotation.HumanMetricScore", "report", ("value",), ("metric",)),
    "paragraph_relevance": Spec("annotation.ParagraphRelevance", "paragraph", ("label",)),
    "claim_assessment": Spec(
        "annotation.ClaimAssessment",
        "report",
        (
            "paragraph",
            "text",
            "citation_count",
            "citations",
            "supporting_credit",
            "coverage",
            "notes",
        ),  # fmt: skip
        ("position",),
    ),
    "report_rating": Spec("annotation.ReportRating", "report", ("value",), ("dimension",)),
    "query_quality": Spec(
        "annotation.QueryQuality",
        "",
        ("clarity", "naturalness", "relevance", "variability", "comment"),
    ),  # fmt: skip
    "rubric_item_quality": Spec(
        "annotation.RubricItemQuality", "item", ("emphasis", "necessity", "confidence", "flags")
    ),
    "rubric_coverage": Spec("annotation.RubricCoverage", "report_item", ("label", "covered")),
}
SKIPPED = {"relevance_adjudication"}


class _Index:
    """The study's questions, reports, paragraphs and rubric items by natural key, each
    table read when a record first needs it: a file of rubric coverage labels never reads
    the study's paragraphs (378,000 at ResearchQA scale, most of that import's time)."""

    def __init__(self, study):
        self.study = study
        self.questions = {
            (q,): pk
            for q, pk in Question.objects.filter(study=study).values_list("external_id", "id")
        }

    @cached_property
    def reports(self) -> dict:
        return {
            (q, s): pk
            for pk, q, s in Report.objects.filter(question__study=self.study).values_list(
                "id", "question__external_id", "system__name"
            )
        }

    @cached_property
    def paragraphs(self) -> dict:
        return {
            (q, s, n): pk
            for pk, q, s, n in Paragraph.objects.filter(
                report__question__study=self.study
            ).values_list("id", "report__question__external_id", "report__system__name", "number")
        }

    @cached_property
    def items(self) -> dict:
        return {
            (q, k, p): pk
            for pk, q, k, p in RubricItem.objects.filter(
                rubric__question__study=self.study
            ).values_list("id", "rubric__question__external_id", "rubric__kind", "position")
        }

    def find(self, problems: Problems, n: int, table: dict, key: tuple, field: str, what: str):
        found = table.get(key)
        if found is None:
            problems.add(n, field, f"no {what} {' / '.join(map(str, key))} in the study")
        return found


def _target(index: _Index, problems: Problems, n: int, r: dict, target: str) -> dict | None:
    """The ids the judgment points at, or None (a problem was added)."""
    qid = str(r.get("question"))
    out: dict = {}
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


def _values(problems: Problems, n: int, model, spec: Spec, r: dict, index: _Index, qid: str):
    out = {}
    for name in spec.values + spec.identity:
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
        try:
            value = field.to_python(r.get(name))
            if value is None and not field.null:
                value = field.get_default()
            if value is not None:
                field.run_validators(value)
            if field.choices and value not in {c for c, _ in field.choices}:
                raise ValidationError(f"{value!r} is not one of {[c for c, _ in field.choices]}")
        except ValidationError as exc:
            problems.add(n, name, "; ".join(exc.messages))
            continue
        out[name] = value
    return out


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


def read(src, study) -> tuple[list[_Row], list[int]]:
    """Every record checked against the study; rows to write, and skipped record numbers."""
    records = parse_json_records(src)
    problems = Problems(src.name)
    index = _Index(study)
    rows, skipped = [], []
    for n, r in enumerate(records, start=1):
        kind = require(problems, n, r, "kind", str)
        if kind in SKIPPED:
            skipped.append(n)
            continue
        if kind is not None and kind not in SPECS and kind != "medal":
            problems.add(n, "kind", f"unknown judgment kind {kind!r}")
            continue
        annotator = require(problems, n, r, "annotator", str)
        setting = require(problems, n, r, "setting", str)
        qid = require(problems, n, r, "question", "id")
        if None in (kind, annotator, setting, qid):
            continue
        question = index.find(problems, n, index.questions, (qid,), "question", "question")
        if kind == "medal":
            target = _target(index, problems, n, r, "report")
            medal = r.get("medal")
            if medal not in Medal.Value.values:
                problems.add(n, "medal", f"expected one of {', '.join(Medal.Value.values)}")
                continue
            values, ranking = {"medal": medal}, r.get("ranking")
        else:
            spec = SPECS[kind]
            target = _target(index, problems, n, r, spec.target)
            values = _values(problems, n, apps.get_model(spec.model), spec, r, index, qid)
            ranking = None
        if question is None or target is None:
            continue
        rows.append(_Row(kind, annotator, setting, question, target, values, ranking,
                         r.get("reasoning") or ""))  # fmt: skip
    problems.raise_if_any()
    return rows, skipped


def _annotators(rows: list[_Row], rep: ImportReport) -> dict[str, int]:
    names = sorted({r.annotator for r in rows})
    existing = dict(Annotator.objects.filter(pseudonym__in=names).values_list("pseudonym", "id"))
    new = [Annotator(pseudonym=n) for n in names if n not in existing]
    if new:
        Annotator.objects.bulk_create(new)
        rep.count("created", "Annotator", len(new))
        existing = dict(
            Annotator.objects.filter(pseudonym__in=names).values_list("pseudonym", "id")
        )
    return existing


def _write_kind(study, kind: str, rows: list[_Row], people: dict, rep: ImportReport) -> None:
    spec = SPECS[kind]
    model = apps.get_model(spec.model)
    targets = list(rows[0].target) if rows else []
    key_fields = ["annotator", "setting", "question", *targets, *spec.identity]
    own = [f for f in spec.values if f not in spec.identity]

    def key_of(row: _Row) -> tuple:
        base = {"annotator": people[row.annotator], "setting": row.setting,
                "question": row.question, **row.target, **row.values}  # fmt: skip
        return tuple(base[f] for f in key_fields)

    wanted = {key_of(r): tuple(r.values[f] for f in own) for r in rows}
    columns = [f"{f}_id" if f in ("annotator", "question", *targets) else f for f in key_fields]
    stored = {
        tuple(row[: len(key_fields)]): (row[-1], tuple(row[len(key_fields) : -1]))
        for row in model.objects.filter(study=study).values_list(
            *columns, *[model._meta.get_field(f).attname for f in own], "id"
        )
    }
    sync_rows(
        model, rep, stored=stored, wanted=wanted, fields=own,
        new_row=lambda key, v: {"study": study.pk, **dict(zip(key_fields, key, strict=True)),
                                **dict(zip(own, v, strict=True))},
    )  # fmt: skip


def _write_medals(study, rows: list[_Row], people: dict, rep: ImportReport) -> None:
    """Medal rows grouped by their ranking: one MedalRanking per annotator, question and
    setting (its reasoning), its medals by report."""
    rankings: dict[tuple, str] = {}
    for r in rows:
        rankings.setdefault((people[r.annotator], r.question, r.setting), r.reasoning)
    stored = {
        (a, q, s): (pk, (why,))
        for pk, a, q, s, why in MedalRanking.objects.filter(study=study).values_list(
            "id", "annotator_id", "question_id", "setting", "reasoning"
        )
    }
    sync_rows(
        MedalRanking, rep, stored=stored, wanted={k: (v,) for k, v in rankings.items()},
        fields=["reasoning"],
        new_row=lambda k, v: {"study": study.pk, "annotator": k[0], "question": k[1],
                              "setting": k[2], "reasoning": v[0]},
    )  # fmt: skip
    ids = {
        (a, q, s): pk
        for pk, a, q, s in MedalRanking.objects.filter(study=study).values_list(
            "id", "annotator_id", "question_id", "setting"
        )
    }
    wanted = {
        (ids[(people[r.annotator], r.question, r.setting)], r.target["report"]): (
            r.values["medal"],
        )
        for r in rows
    }
    stored_medals = {
        (rk, rp): (pk, (m,))
        for pk, rk, rp, m in Medal.objects.filter(ranking__study=study).values_list(
            "id", "ranking_id", "report_id", "medal"
        )
    }
    sync_rows(
        Medal, rep, stored=stored_medals, wanted=wanted, fields=["medal"],
        new_row=lambda k, v: {"ranking": k[0], "report": k[1], "medal": v[0]},
    )  # fmt: skip


def load(source, study, rep: ImportReport, **_options) -> None:
    src = read_source(source)
    rows, skipped = read(src, study)
    rep.records = len(rows) + len(skipped)
    for n in skipped:
        rep.warn(src.name, n, "kind", "a relevance adjudication belongs to a judge's run: skipped")
    people = _annotators(rows, rep)
    by_kind: dict[str, list[_Row]] = {}
    for r in rows:
        by_kind.setdefault(r.kind, []).append(r)
    for kind, group in by_kind.items():
        if kind == "medal":
            _write_medals(study, group, people, rep)
        else:
            _write_kind(study, kind, group, people, rep)


def dump(study, **_options) -> dict[str, str]:
    from annotation.exporters import export_judgments

    return {"judgments.jsonl": export_judgments(study, "jsonl")}


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
        label="Human judgments of every kind (JSON lines)",
        extension=".jsonl",
        shape=(
            'One judgment a line: {"kind", "annotator": "<pseudonym>", "setting",\n'
            '"question": "<id>", and what it judges by natural key ("system"; "paragraph"\n'
            'number; "rubric" kind and "item" position; "left_system"/"right_system"),\n'
            'then the kind\'s own values (e.g. "value", "label"), as the judgments export writes.'
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
