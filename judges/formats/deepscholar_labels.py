"""DeepScholar-Bench judge labels (seed 002 §8.11): the LLM judge's label of each unit an
expert labels in the DeepScholar tasks, so that Table 3 (human–judge agreement per label
kind) can be computed. Kind ``judge_scores``, format ``deepscholar-labels``.

JSON lines (or a JSON list), one label a record::

    {"kind": "nugget_support", "question_id": "2401.00001", "system": "deepscholar-base",
     "unit": "n3", "label": "partially_supported", "rationale": "…"}

``kind`` is one of :data:`annotation.models.deepscholar.LABELS` and ``label`` one of its
labels (relevance may be the number 0, 1 or 2). ``system`` names the report for the kinds
whose unit lies in a report (organization, nugget support, retrieval relevance,
entailment) and must be absent for the others. ``unit`` is the unit's key as the expert
side stores it: a nugget id, a citation key of the report, an exemplar reference id,
``"<paragraph number>:<citation key>"`` for entailment, nothing for organization.

The contract of :mod:`annotation.importers.base`: every record is checked against the
study (questions, reports, nuggets, references, citations, paragraphs) before anything is
written; a problem names the record and the field; a re-import updates by natural key.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

from annotation.importers.base import ImportFailed, ImportReport, Problem
from annotation.importers.common import (
    Problems,
    list_changes,
    optional_str,
    parse_json_records,
    read_source,
    require,
    type_name,
)
from annotation.importers.registry import Example, Format, Option, register
from annotation.models import (
    ExemplarReference,
    Nugget,
    Paragraph,
    Question,
    Report,
    citation_keys,
)
from annotation.models.deepscholar import LABELS, REPORT_KINDS
from judges.models import Judge, JudgeDeepScholarLabel

from . import judge_scores, named  # noqa: F401  (registers the judge_scores kind first)


class _Index:
    """What the records may name, read once (five queries)."""

    def __init__(self, study):
        self.questions = dict(Question.objects.filter(study=study).values_list("external_id", "id"))
        self.reports = {
            (q, s): (rid, qid)
            for rid, qid, q, s in Report.objects.filter(question__study=study).values_list(
                "id", "question_id", "question__external_id", "system__name"
            )
        }
        self.nuggets = set(
            Nugget.objects.filter(question__study=study).values_list("question_id", "key")
        )
        self.references = set(
            ExemplarReference.objects.filter(question__study=study).values_list(
                "question_id", "key"
            )
        )
        self.citations = citation_keys(Report.objects.filter(question__study=study))
        self.paragraphs = set(
            Paragraph.objects.filter(report__question__study=study).values_list(
                "report_id", "number"
            )
        )

    def unit_problem(self, kind: str, question: int, report: int | None, unit: str) -> str:
        """Why ``unit`` is not a unit of this kind here ('' when it is)."""
        if kind == "organization":
            return "" if unit == "" else "organization labels a whole report: no unit"
        if kind in ("nugget_importance", "nugget_support"):
            return (
                "" if (question, unit) in self.nuggets else f"no nugget {unit!r} of this question"
            )
        if kind == "reference_importance":
            known = (question, unit) in self.references
            return "" if known else f"no exemplar reference {unit!r} of this question"
        if kind == "retrieval_relevance":
            known = (report, unit) in self.citations
            return "" if known else f"the report cites no source {unit!r}"
        number, _, key = unit.partition(":")
        if not number.isdecimal() or not key:
            return f"{unit!r} is not '<paragraph number>:<citation key>'"
        if (report, int(number)) not in self.paragraphs:
            return f"the report has no paragraph {number}"
        return "" if (report, key) in self.citations else f"the report cites no source {key!r}"


def _record(problems: Problems, index: _Index, n: int, record) -> tuple | None:
    kind = require(problems, n, record, "kind", str)
    qid = require(problems, n, record, "question_id", "id")
    if kind is None or qid is None:
        return None
    if kind not in LABELS:
        problems.add(n, "kind", f"{kind!r} is not one of {', '.join(LABELS)}")
        return None
    raw = record.get("label")
    label = str(raw) if isinstance(raw, (str, int)) and not isinstance(raw, bool) else None
    if label is None:
        problems.add(n, "label", f"expected a label, found {type_name(raw)}")
        return None
    if label not in LABELS[kind]:
        problems.add(n, "label", f"{label!r} is not a {kind} label ({', '.join(LABELS[kind])})")
        return None
    question = index.questions.get(qid)
    if question is None:
        problems.add(n, "question_id", f"no question {qid!r} in this study")
        return None
    report = None
    system = optional_str(problems, n, record, "system")
    if kind in REPORT_KINDS:
        found = index.reports.get((qid, system))
        if not system or found is None:
            problems.add(n, "system", f"no report of system {system!r} for question {qid!r}")
            return None
        report = found[0]
    elif system:
        problems.add(n, "system", f"{kind} labels a unit of the question: no system")
        return None
    unit = record.get("unit")
    unit = "" if unit is None else str(unit) if isinstance(unit, (str, int)) else None
    if unit is None:
        problems.add(n, "unit", f"expected a string, found {type_name(record.get('unit'))}")
        return None
    why = index.unit_problem(kind, question, report, unit.strip())
    if why:
        problems.add(n, "unit", why)
        return None
    rationale = optional_str(problems, n, record, "rationale")
    return (kind, question, report, unit.strip()), (label, rationale)


def load(source, study, rep: ImportReport, *, judge: str | None = None, **_) -> None:
    """Validate every record, then write the judge's labels (module doc)."""
    src = read_source(source)
    if not judge or not str(judge).strip():
        raise ImportFailed([Problem(src.name, None, None, "a judge name is required")])
    rep.kind = "judge scores (deepscholar-labels)"
    problems, index = Problems(src.name), _Index(study)
    rows: dict[tuple, tuple] = {}
    first: dict[tuple, int] = {}
    records = parse_json_records(src)
    for n, record in enumerate(records, start=1):
        got = _record(problems, index, n, record)
        if got is None:
            continue
        key, value = got
        if key in first:
            problems.add(n, "unit", f"the same unit as record {first[key]}")
            continue
        first[key] = n
        rows[key] = value
    problems.raise_if_any()
    rep.records = len(records)
    write_labels(str(judge).strip(), study, rows, rep)


def write_labels(judge: str, study, rows: dict[tuple, tuple], rep: ImportReport) -> None:
    """Write ``{(kind, question, report, unit): (label, rationale)}`` as ``judge``'s labels:
    created, updated or unchanged by natural key (also the nuggetizer import's writer)."""
    judge_obj, created = Judge.objects.get_or_create(name=judge)
    rep.count("created" if created else "unchanged", "Judge")
    existing = {
        (r.kind, r.question_id, r.report_id, r.unit): r
        for r in JudgeDeepScholarLabel.objects.filter(judge=judge_obj, question__study=study)
    }
    new, changed = [], {}
    for (kind, question, report, unit), (label, rationale) in rows.items():
        row = existing.get((kind, question, report, unit))
        if row is None:
            new.append(JudgeDeepScholarLabel(judge=judge_obj, kind=kind, question_id=question,
                                             report_id=report, unit=unit, label=label,
                                             rationale=rationale))  # fmt: skip
        elif (row.label, row.rationale) != (label, rationale):
            changed[(kind, question, report, unit)] = (row.pk, (row.label, row.rationale))
            row.label, row.rationale = label, rationale
            row.save(update_fields=["label", "rationale"])
            rep.count("updated", "JudgeDeepScholarLabel")
        else:
            rep.count("unchanged", "JudgeDeepScholarLabel")
    if changed:  # each named, as sync_rows names the other judge formats' changes
        names = named.deepscholar_labels(judge)(list(changed))
        list_changes(rep, "JudgeDeepScholarLabel", ["label", "rationale"], names, changed, rows)
    JudgeDeepScholarLabel.objects.bulk_create(new)
    if new:
        rep.count("created", "JudgeDeepScholarLabel", len(new))


def dump(study, *, judge: str, **_) -> dict[str, str]:
    """The judge's DeepScholar labels of ``study`` in the format ``load`` reads."""
    by_kind = defaultdict(list)
    rows = JudgeDeepScholarLabel.objects.filter(judge__name=judge, question__study=study)
    for r in rows.select_related("question", "report__system").order_by("kind", "pk"):
        record = {"kind": r.kind, "question_id": r.question.external_id}
        if r.report_id:
            record["system"] = r.report.system.name
        record.update({"unit": r.unit, "label": r.label})
        if r.rationale:
            record["rationale"] = r.rationale
        by_kind[r.kind].append(json.dumps(record))
    lines = [line for kind in LABELS for line in by_kind[kind]]
    return {"deepscholar_labels.jsonl": "".join(line + "\n" for line in lines)}


register(
    Format(
        "judge_scores",
        "deepscholar-labels",
        "DeepScholar-Bench judge labels per unit, JSON lines "
        "(judges/formats/deepscholar_labels.py)",
        load=load,
        dump=dump,
        dump_options=(Option("judge", "judge whose labels are written", required=True),),
        label="DeepScholar-Bench judge labels",
        extension=".jsonl",
        shape=(
            'JSON lines (or a JSON list), one label a line: {"kind", "question_id",\n'
            '"system" (for organization, nugget_support, retrieval_relevance, entailment),\n'
            '"unit" (nugget id, citation key, reference id, "<paragraph>:<key>"), "label",\n'
            '"rationale"?}; kinds and labels: '
            + "; ".join(f"{k}: {'/'.join(v)}" for k, v in LABELS.items())
        ),
        example=Example(
            Path(__file__).resolve().parent / "examples",
            "deepscholar_labels.jsonl",
            {"judge": "example-judge"},
            needs=(("reports", "deepscholar", {}), ("deepscholar", "nuggets", {})),
        ),  # fmt: skip
    )
)
