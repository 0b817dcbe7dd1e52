"""Importing judge outputs produced elsewhere (issue: "Getting scores in").

``import_judge_scores(source, study=, judge=, format=, system=None, rubric_kind=None,
dry_run=False) -> ImportReport``

format               file
===================  ==========================================================================
researchqa-coverage  ResearchQA ``compute_coverage.py`` output, one system's answers:
                     ``{question id: [{"rubric": item text, "score": label}]}`` with labels
                     "Not at all" … "Completely" (or 0–4); needs ``system``. Or the
                     released judge files' list ``[{corpusid_sectionid, rubric_judges_gpt:
                     [{rubric, score}], ...}]`` (the leaderboard notebook's input).
researchqa-pairwise  ResearchQA ``judge_systems_by_gpt.py`` output: a list of ``{session_id,
                     implementation_A, implementation_B, judge, judge_feedback,
                     judge_swapped, judge_swapped_feedback}``; ``judge`` / ``judge_swapped``
                     are "A" / "B" in the A/B frame (the swapped answer already relabelled),
                     null when the judge gave no decision (that order is then not stored).
researcherbench      ResearcherBench rubric results: a list of ``{id, model, result:
                     {coverage_results: [{point, weight, covered, justification}],
                     m_weighted?, total_weight?, recall?}}``; ``model`` is the system
                     (``system`` overrides it); a given ``recall`` must equal Σw·b/Σw.
csv                  generic per-report scores: header ``question,system,metric,value``
                     and optionally ``rationale``; ``metric`` is one of the judge metrics
                     (:data:`judges.scoring.metrics.JUDGE_METRICS`) and ``value`` within
                     its scale (every one [0, 1]); the ids and metric are trimmed, the
                     rationale kept exactly as given (leading tab, trailing spaces).
===================  ==========================================================================

ScholarQA-CS2 judge scores come with the pairwise records: use ``import_pairwise``
(:func:`annotation.importers.scholarqa.import_pairwise`), which stores them.

The contract of :mod:`annotation.importers.base`: every record is validated (against the
study's questions, systems, reports and rubrics, read-only) before anything is written;
any problem raises :class:`ImportFailed` naming file, record and field, and nothing
changes. Then everything is written in one transaction, by natural key (a re-import
updates, never duplicates); ``dry_run`` rolls the transaction back after counting. The
study must exist (scores need its reports); the judge is created when missing. Derived
scores (coverage %, ensemble decisions) of the reports a file touched are recomputed by
:func:`judges.kinds.finalize`.
"""

from __future__ import annotations

import io
from functools import partial
from pathlib import Path

from annotation import (
    id_lookup,  # noqa: F401 - registers ``__any_of`` (long id lists)
    spreadsheets,
)
from annotation.importers.base import ImportFailed, ImportReport, Problem
from annotation.importers.common import (
    Problems,
    Source,
    gc_paused,
    insert_rows,
    is_number,
    parse_json_records,
    read_source,
    require,
    sync_rows,
    type_name,
    update_rows,
)
from annotation.importers.registry import (
    Example,
    Format,
    Kind,
    Option,
    register,
    register_kind,
)
from annotation.importers.researcherbench import released_id, released_weight
from annotation.importers.researchqa import LIST_KEY, released_entries
from annotation.models import Report, RubricItem, Study
from annotation.models.jsontext import same_text
from judges.kinds import finalize
from judges.models import Judge, JudgeCoverage, JudgePairwise, JudgeScore
from judges.scoring import metrics, researcherbench, researchqa

from . import named

FORMATS = ("researchqa-coverage", "researchqa-pairwise", "researcherbench", "csv")
CSV_COLUMNS = ("question", "system", "metric", "value")
RECALL_TOLERANCE = 5e-4
#: Where a released ResearchQA judge file's record keeps its labels (the leaderboard
#: notebook reads ``<system>_judge_gpt4.1mini.json`` records' ``rubric_judges_gpt``).
LISTED_LABELS = "rubric_judges_gpt"
COVERAGE_SHAPE = (
    '{id: [{"rubric": item, "score": label}]} or '
    '[{"corpusid_sectionid": id, "rubric_judges_gpt": [{"rubric": item, "score": label}]}]'
)  # the released files round recall to 4 decimals


def _norm(text: str) -> str:
    """Whitespace collapsed, trimmed, case-folded. ``str.split()`` splits on exactly the
    characters ``\\s`` matches in a ``str`` pattern (and ``strip()`` trims them), so this is
    ``re.sub(r"\\s+", " ", text).strip().casefold()`` at a fifth of the cost: the study index
    normalises every rubric item of the study, 160,000 per file at ResearchQA scale."""
    return " ".join(text.split()).casefold()


class _StudyIndex:
    """The study's questions, reports and rubric items, read once (four queries). With
    ``system`` (a file of one system's answers) only that system's reports are read: the
    index of a file costs the file's size, not the study's (issue 16).

    At ResearchQA scale every coverage file reads the study's 160,000 rubric items. That
    one read, of every rubric kind (the kind is filtered here, not in SQL), also gives
    :attr:`item_ids`: every item of every rubric of each question, which :func:`finalize`
    needs to tell complete coverage from partial and used to read again (0.2 s per file).
    The questions' external ids come from one map of the study's questions rather than a
    join per item, and each question's items go into one plain dict (stored text and
    normalised text to the same list) instead of two nested ``defaultdict`` levels."""

    def __init__(self, study: Study, rubric_kind: str | None, system: str | None = None):
        self.study = study
        external = dict(study.questions.order_by().values_list("id", "external_id"))
        self.questions = set(external.values())
        self.systems = set(study.systems.order_by().values_list("name", flat=True))
        reports = Report.objects.filter(question__study=study)
        if system:
            reports = reports.filter(system__name=system)
        self.reports = {
            (external[qid], name): rid
            for rid, qid, name in reports.values_list("id", "question_id", "system__name")
        }
        #: Per question (external id): the normalised text of its items -> their ids, and
        #: each stored text -> the same list (a file usually repeats the stored text
        #: verbatim: no normalising per label). A key and a stored text never disagree: a
        #: text equal to some item's normalised key normalises to that key.
        self.items: dict[str, dict[str, list[int]]] = {}
        #: Per question (primary key): the ids of every item of its rubrics, of any kind.
        self.item_ids: dict[int, set[int]] = {}
        rows = RubricItem.objects.filter(rubric__question__study=study).order_by()
        current = by_text = every = None
        for item_id, qid, kind, text in rows.values_list(
            "id", "rubric__question_id", "rubric__kind", "text"
        ):
            if qid != current:  # the rows of a question mostly come together
                current = qid
                every = self.item_ids.get(qid)
                if every is None:
                    every = self.item_ids[qid] = set()
                    by_text = self.items[external[qid]] = {}
                else:
                    by_text = self.items[external[qid]]
            every.add(item_id)
            if rubric_kind and kind != rubric_kind:
                continue
            ids = by_text.get(text)
            if ids is None:
                key = _norm(text)
                ids = by_text.get(key)
                if ids is None:
                    ids = by_text[key] = []
                by_text[text] = ids
            ids.append(item_id)

    def report(self, problems: Problems, n: int, field: str, qid: str, system: str,
               system_field: str | None = None):  # fmt: skip
        """The report of (``qid``, ``system``), or None with a problem: under ``field``
        when the question is unknown or has no such report, under ``system_field`` (else
        ``field``) when the system is unknown (a CSV row names them in two columns)."""
        if qid not in self.questions:
            problems.add(n, field, f"no question {qid!r} in study {self.study.name!r}")
            return None
        if system not in self.systems:
            problems.add(
                n, system_field or field, f"no system {system!r} in study {self.study.name!r}"
            )
            return None
        rid = self.reports.get((qid, system))
        if rid is None:
            problems.add(n, field, f"system {system!r} has no report for question {qid!r}")
        return rid

    def item(self, problems: Problems, n: int, field: str, qid: str, text: str):
        by_text = self.items.get(qid, {})
        ids = by_text.get(text) or by_text.get(_norm(text))
        if not ids:
            problems.add(n, field, f"{text[:80]!r} is not a rubric item of question {qid!r}")
            return None
        if len(ids) > 1:
            problems.add(
                n, field, f"{text[:80]!r} matches {len(ids)} rubric items; pass a rubric kind"
            )
            return None
        return ids[0]


def load(
    source,
    study: Study,
    rep: ImportReport,
    *,
    format: str,  # noqa: A002 - the option's name
    judge: str | None = None,
    system: str | None = None,
    rubric_kind: str | None = None,
) -> None:
    """Validate ``source`` completely against ``study``, then write it (module doc); the
    registry's ``load`` of every judge-score format (``run("judge_scores", ...)``)."""
    name = str(getattr(source, "name", source) if not isinstance(source, bytes) else "upload")

    def refuse(message: str):
        raise ImportFailed([Problem(name, None, None, message)])

    if not judge or not str(judge).strip():
        refuse("a judge name is required")
    src = read_source(source)
    rep.kind = f"judge scores ({format})"
    if format == "researchqa-coverage" and not system:
        refuse("a system name is required (--system): the coverage file is one system's")
    with gc_paused():  # about a million live containers, no garbage (see gc_paused)
        one_system = format in ("researchqa-coverage", "researcherbench") and system
        index = _StudyIndex(study, rubric_kind, system if one_system else None)
        rows = PARSERS[format](src, index, rep, system)
        judge_obj, created = Judge.objects.get_or_create(name=str(judge).strip())
        rep.count("created" if created else "unchanged", "Judge")
        labels = _write(judge_obj, rows, rep)
        touched = {rid for rid, _ in rows["coverage"]} | {rid for rid, _ in rows["scores"]}
        touched |= {rid for pair in rows["pairwise"] for rid in pair}
        # what this file's judgments decide, from the labels just written (not read back)
        finalize(judge_obj, study.pk, reports=touched, coverage=labels, items=index.item_ids)
        _keep_released(judge_obj, rows["released"], rep)


# --- Parsers: return {"coverage": {(report, item): (label, covered, rationale)},
#                      "pairwise": {(left, right): (choice, rationale)},
#                      "scores": {(report, metric): (value, rationale)}}


def _rows() -> dict:
    """``released``: report id -> what a coverage file released of it (its shape and record
    number, :func:`_keep_released`)."""
    return {"coverage": {}, "pairwise": {}, "scores": {}, "released": {}}


def _parse_coverage(src: Source, index: _StudyIndex, rep: ImportReport, system: str | None):
    """The checks and messages of every format (``require``, ``index.item``), with the
    common case of a label tested inline first: 2.9 M labels at ResearchQA scale, where a
    function call, a field path string and a values tuple per label were a third of the
    import's Python time (issue 16). An entry that fails the inline test goes through the
    general checks, which name its record and field."""
    data = parse_json_records(src, allow_mapping=True)
    problems = Problems(src.name)
    listed = isinstance(data, list)
    records = released_entries(src, data, problems, COVERAGE_SHAPE)
    out = _rows()
    coverage = out["coverage"]
    #: A label phrase -> its stored values (label, covered, rationale), one tuple shared by
    #: every label of that phrase (2.9 M labels are a handful of phrases).
    values_of: dict[str, tuple] = {}
    for n, qid, entries in records:
        rep.records += 1
        record = entries
        if listed:  # the released judge file: the labels are the record's rubric_judges_gpt
            if not isinstance(entries, dict):
                problems.add(n, None, f"expected an object, found {type_name(entries)}")
                continue
            entries = require(problems, n, entries, LISTED_LABELS, list)
            if entries is None:
                continue
        elif not isinstance(entries, list):
            problems.add(
                n, qid, f"expected a list of {{rubric, score}}, found {type_name(entries)}"
            )
            continue
        where = LISTED_LABELS if listed else qid  # the field a problem names
        rid = index.report(problems, n, LIST_KEY if listed else qid, qid, system)
        if rid is not None:
            out["released"][rid] = {"format": "researchqa-coverage", "record": n,
                                    "shape": "list" if listed else "mapping"}  # fmt: skip
            if listed:  # its other keys, written back around the stored labels
                out["released"][rid]["data"] = _without_labels(record)
        items = index.items.get(qid)
        seen: dict[int, int] = {}
        for i, entry in enumerate(entries):
            is_dict = entry.__class__ is dict
            text = entry.get("rubric") if is_dict else None
            if text.__class__ is not str or not text or text.isspace():  # not a usable text
                text = require(problems, n, entry, "rubric", str, label=f"{where}[{i}].rubric")
            if not isinstance(entry, dict) or "score" not in entry:
                if isinstance(entry, dict):
                    problems.add(n, f"{where}[{i}].score", "missing required field")
                continue
            score = entry["score"]
            values = values_of.get(score) if score.__class__ is str else None
            if values is None:
                try:
                    values = (researchqa.label_value(score), None, "")
                except ValueError as exc:
                    problems.add(n, f"{where}[{i}].score", str(exc))
                    continue
                if isinstance(score, str):
                    values_of[score] = values
            if text is None or rid is None:
                continue
            ids = (items.get(text) or items.get(_norm(text))) if items else None
            if not ids or len(ids) > 1:  # the problem, worded by the index
                index.item(problems, n, f"{where}[{i}].rubric", qid, text)
                continue
            item = ids[0]
            if item in seen:
                problems.add(
                    n, f"{where}[{i}].rubric", f"the same rubric item as {where}[{seen[item]}]"
                )
                continue
            seen[item] = i
            coverage[(rid, item)] = values
    problems.raise_if_any()
    return out


def _without_labels(record: dict) -> dict:
    """A listed coverage record as released, its labels (``rubric_judges_gpt``) left null
    in their place: the export writes the stored labels there and every other key (the
    answer judged, a score, whatever the file carried) as it came, in the file's order."""
    return {key: None if key == LISTED_LABELS else value for key, value in record.items()}


def _side(problems, n, field, value):
    if value is None:
        return None
    if value not in ("A", "B"):
        problems.add(n, field, f'expected "A", "B" or null, found {value!r}')
        return False
    return value


def _parse_pairwise(src: Source, index: _StudyIndex, rep: ImportReport, system: str | None):
    records = parse_json_records(src)
    problems = Problems(src.name)
    out = _rows()
    seen: dict[tuple, int] = {}
    for n, r in enumerate(records, start=1):
        rep.records += 1
        qid = require(problems, n, r, "session_id", "id")
        a = require(problems, n, r, "implementation_A", str)
        b = require(problems, n, r, "implementation_B", str)
        if not isinstance(r, dict):
            continue
        first = _side(problems, n, "judge", r.get("judge"))
        swapped = _side(problems, n, "judge_swapped", r.get("judge_swapped"))
        for key in ("judge_feedback", "judge_swapped_feedback"):
            if r.get(key) is not None and not isinstance(r[key], str):
                problems.add(n, key, f"expected a string, found {type_name(r[key])}")
        if qid is None or a is None or b is None:
            continue
        if a == b:
            problems.add(n, "implementation_B", "a system compared with itself")
            continue
        ra = index.report(problems, n, "implementation_A", qid, a)
        rb = index.report(problems, n, "implementation_B", qid, b)
        if ra is None or rb is None or first is False or swapped is False:
            continue
        pair = (qid, frozenset((a, b)))
        if pair in seen:
            problems.add(n, "implementation_B", f"the same comparison as record {seen[pair]}")
            continue
        seen[pair] = n
        if first is not None:  # A shown first: "A" means left
            out["pairwise"][(ra, rb)] = (
                "left" if first == "A" else "right",
                r.get("judge_feedback") or "",
            )
        if swapped is not None:  # B shown first; the answer is already in the A/B frame
            out["pairwise"][(rb, ra)] = (
                "right" if swapped == "A" else "left",
                r.get("judge_swapped_feedback") or "",
            )
    problems.raise_if_any()
    return out


def _parse_researcherbench(src: Source, index: _StudyIndex, rep: ImportReport, system: str | None):
    records = parse_json_records(src)
    problems = Problems(src.name)
    out = _rows()
    seen: dict[tuple[str, str], int] = {}  # a report judged twice is refused, not the last kept
    for n, r in enumerate(records, start=1):
        rep.records += 1
        qid = require(problems, n, r, "id", "id")
        model = system or require(problems, n, r, "model", str)
        result = require(problems, n, r, "result", dict)
        if qid is not None and model is not None:
            if (qid, model) in seen:
                problems.add(n, "id", f"id {qid!r} of model {model!r} already given by record "
                             f"{seen[(qid, model)]}")  # fmt: skip
                continue
            seen[(qid, model)] = n
        if result is None:
            continue
        criteria = require(problems, n, result, "coverage_results", list,
                           label="result.coverage_results")  # fmt: skip
        if criteria is None:
            continue
        rid = index.report(problems, n, "id", qid, model) if qid and model else None
        weights, covered, ok = [], [], True
        for i, c in enumerate(criteria):
            where = f"result.coverage_results[{i}]"
            point = require(problems, n, c, "point", str, label=f"{where}.point")
            if not isinstance(c, dict):
                ok = False
                continue
            weight = c.get("weight", 1)
            if not is_number(weight) or weight <= 0:
                problems.add(n, f"{where}.weight", f"expected a positive number, found {weight!r}")
                ok = False
            flag = c.get("covered")
            if not isinstance(flag, bool):
                problems.add(n, f"{where}.covered", f"expected true or false, found {flag!r}")
                ok = False
            why = c.get("justification") or ""
            if not isinstance(why, str):
                problems.add(
                    n, f"{where}.justification", f"expected a string, found {type_name(why)}"
                )
                why = ""
            if point is None or not ok:
                ok = False
                continue
            weights.append(float(weight))
            covered.append(flag)
            if rid is not None:
                item = index.item(problems, n, f"{where}.point", qid, point)
                if item is not None:
                    out["coverage"][(rid, item)] = (None, flag, why)
        if not ok or not weights:
            continue
        score = researcherbench.weighted_coverage(weights, covered)
        recall = result.get("recall")
        if recall is not None and (not is_number(recall) or abs(recall - score) > RECALL_TOLERANCE):
            problems.add(
                n, "result.recall",
                f"{recall!r} does not equal Σw·covered/Σw = {score:.4f} of its criteria",
            )  # fmt: skip
        if rid is not None:  # the record kept as released (dump_researcherbench)
            out["scores"][(rid, "rubric_coverage")] = (
                score, "", {"format": "researcherbench", "record": n, "data": r}
            )  # fmt: skip
    problems.raise_if_any()
    return out


def _parse_csv(src: Source, index: _StudyIndex, rep: ImportReport, system: str | None):
    problems = Problems(src.name)
    reader = spreadsheets.csv_dict_reader(src.text or "")  # undoes dump_csv's escaping
    missing = [c for c in CSV_COLUMNS if c not in (reader.fieldnames or [])]
    if missing:
        problems.file_level(
            f"missing column(s) {', '.join(missing)}; expected {','.join(CSV_COLUMNS)}[,rationale]"
        )
        problems.raise_if_any()
    out = _rows()
    seen: dict[tuple, int] = {}
    for n, row in enumerate(reader, start=1):  # record n = data row n (after the header)
        rep.records += 1
        qid, sys_name = (row.get("question") or "").strip(), (row.get("system") or "").strip()
        metric = (row.get("metric") or "").strip()
        for col, value in (("question", qid), ("system", sys_name), ("metric", metric)):
            if not value:
                problems.add(n, col, "must not be empty")
        wrong_metric = metrics.metric_problem(metric) if metric else None
        if wrong_metric:
            problems.add(n, "metric", wrong_metric)
        try:
            value = float(row.get("value") or "")
            if value != value or value in (float("inf"), float("-inf")):
                raise ValueError
        except ValueError:
            problems.add(n, "value", f"expected a number, found {row.get('value')!r}")
            value = None
        if value is not None and metric and not wrong_metric:
            wrong_value = metrics.value_problem(metric, value)
            if wrong_value:
                problems.add(n, "value", wrong_value)
                value = None
        if not (qid and sys_name and metric) or value is None or wrong_metric:
            continue
        rid = index.report(problems, n, "question", qid, sys_name, "system")
        if rid is None:
            continue
        if (rid, metric) in seen:
            problems.add(n, "metric", f"the same report and metric as row {seen[(rid, metric)]}")
            continue
        seen[(rid, metric)] = n
        # the rationale as the judge gave it: its leading tab or indent is the judge's text
        out["scores"][(rid, metric)] = (value, row.get("rationale") or "", None)
    problems.raise_if_any()
    return out


# --- Writing ----------------------------------------------------------------------------------


def _write(judge: Judge, rows: dict, rep: ImportReport) -> dict[int, dict[int, int]] | None:
    """Write the parsed rows. Returns the judge's coverage labels of the reports the file
    has coverage for, ``{report id: {item id: label}}``, as they now stand (what was stored,
    read for the diff, with the file's rows over it), for :func:`finalize` to score them
    without reading back the rows just written; None when the file has no coverage.

    The first import of a judge's coverage of these reports (nothing stored: the diff's
    one read returns no row) copies the rows straight in (``insert_rows``, COPY on
    PostgreSQL), without the per-row dicts of :func:`sync_rows`: at ResearchQA scale that
    is 2.9 M rows (issue 16). A re-import goes through the diff writer as before."""
    coverage = rows["coverage"]
    labels = None
    if coverage:
        reports = {r for r, _ in coverage}
        stored = {
            (rid, item): (pk, (label, covered, why))
            for pk, rid, item, label, covered, why in JudgeCoverage.objects.filter(
                judge=judge, report_id__any_of=reports
            ).values_list("id", "report_id", "item_id", "label", "covered", "rationale")
        }
        if stored:
            sync_rows(
                JudgeCoverage, rep, stored=stored, wanted=coverage,
                fields=["label", "covered", "rationale"], describe=named.coverage(judge.name),
                new_row=lambda key, v: {"judge": judge.pk, "report": key[0], "item": key[1],
                                        "label": v[0], "covered": v[1], "rationale": v[2]},
            )  # fmt: skip
        else:
            pk = judge.pk
            insert_rows(
                JudgeCoverage, ["judge", "report", "item", "label", "covered", "rationale"],
                [(pk, rid, item, *v) for (rid, item), v in coverage.items()],
            )  # fmt: skip
            rep.count("created", "JudgeCoverage", len(coverage))
        labels = {rid: {} for rid in reports}
        for (rid, item), (_, (label, _, _)) in stored.items():
            if label is not None:
                labels[rid][item] = label
        for (rid, item), (label, _, _) in coverage.items():
            if label is None:
                labels[rid].pop(item, None)
            else:
                labels[rid][item] = label
    # Verdicts and scores are diffed against what is stored: an identical re-import (or
    # its dry run) says "unchanged", not "updated" (issue 25).
    pairwise = rows["pairwise"]
    if pairwise:
        reports = {r for pair in pairwise for r in pair}
        stored = {
            (left, right): (pk, (choice, why))
            for pk, left, right, choice, why in JudgePairwise.objects.filter(
                judge=judge, protocol=JudgePairwise.Protocol.DIRECT, left_id__any_of=reports
            ).values_list("id", "left_id", "right_id", "choice", "rationale")
        }
        sync_rows(
            JudgePairwise, rep, stored=stored, wanted=pairwise, fields=["choice", "rationale"],
            describe=named.pairwise(judge.name),
            new_row=lambda key, v: {"judge": judge.pk, "protocol": JudgePairwise.Protocol.DIRECT,
                                    "left": key[0], "right": key[1], "choice": v[0],
                                    "rationale": v[1]},
        )  # fmt: skip
    scores = rows["scores"]  # (value, rationale, the record as released or None)
    if scores:
        stored = {
            (rid, metric): (pk, (value, why, kept))
            for pk, rid, metric, value, why, kept in JudgeScore.objects.filter(
                judge=judge, report_id__any_of={rid for rid, _ in scores}
            ).values_list("id", "report_id", "metric", "value", "rationale", "released")
        }
        # the released record compared as the text stored (a type or key-order change is
        # one the export would write back: updated, not unchanged)
        sync_rows(
            JudgeScore, rep, stored=stored, wanted=scores,
            fields=["value", "rationale", "released"],
            same=lambda old, new: old[:2] == new[:2] and same_text(old[2], new[2]),
            describe=named.per_report(judge.name, lambda key: f", metric {key[1]!r}"),
            new_row=lambda key, v: {"judge": judge.pk, "report": key[0], "metric": key[1],
                                    "value": v[0], "rationale": v[1], "released": v[2]},
        )  # fmt: skip
    return labels


def _keep_released(judge: Judge, kept: dict[int, dict], rep: ImportReport) -> None:
    """Each report's coverage-file record (shape, number) on its coverage score, which
    :func:`finalize` has just set, so :func:`dump_coverage` writes the file's shape back
    (a list file as a list, as :func:`annotation.importers.researchqa.dump_responses`
    does). Only changed ones are written: one read, one update.

    Compared as the text stored (:func:`same_text`): a listed record changed only in
    value types (``1`` vs ``1.0``) or key order is written over and its score counted
    updated, so the export writes the file imported last. A score that kept no record
    before (its first import, which the labels' counts already tell) is not counted."""
    if not kept:
        return
    changed, replaced = [], 0
    for pk, rid, old in JudgeScore.objects.filter(
        judge=judge, metric="rubric_coverage", report_id__any_of=set(kept)
    ).values_list("id", "report_id", "released"):
        if not same_text(old, kept[rid]):
            changed.append((pk, kept[rid]))
            replaced += old is not None
    update_rows(JudgeScore, ["released"], changed)
    if replaced:
        rep.count("updated", "JudgeScore", replaced)


PARSERS = {
    "researchqa-coverage": _parse_coverage,
    "researchqa-pairwise": _parse_pairwise,
    "researcherbench": _parse_researcherbench,
    "csv": _parse_csv,
}


# --- Writing judge results back in their outside formats (round trips, issue 18) ------------


def _dumps(data) -> str:
    import json

    return json.dumps(data, ensure_ascii=False, indent=1) + "\n"


def dump_coverage(study, *, judge: str, system: str, rubric_kind: str | None = None):
    """ResearchQA ``compute_coverage.py`` output of one system: ``{question id: [{"rubric",
    "score"}]}``, the label as its phrase ("Mostly"), items in rubric order; in the released
    judge files' list shape ``[{corpusid_sectionid, rubric_judges_gpt}]`` when every report
    with a kept record came from a list file (:func:`_keep_released`), in the file's order."""
    rows = JudgeCoverage.objects.filter(
        judge__name=judge, report__system__name=system, report__question__study=study,
        label__isnull=False,
    )  # fmt: skip
    if rubric_kind:
        rows = rows.filter(item__rubric__kind=rubric_kind)
    out: dict[str, list] = {}
    for qid, text, label in rows.order_by(
        "report__question__external_id", "item__rubric__kind", "item__position"
    ).values_list("report__question__external_id", "item__text", "label"):
        out.setdefault(qid, []).append({"rubric": text, "score": researchqa.LABELS[label]})
    kept = _kept(
        JudgeScore.objects.filter(
            judge__name=judge, report__system__name=system, report__question__study=study,
            metric="rubric_coverage",
        ).values_list("report__question__external_id", "released"),
        "researchqa-coverage",
    )  # fmt: skip
    if kept and all(k.get("shape") == "list" for k in kept.values()):
        order = sorted(out, key=lambda q: (q not in kept, kept.get(q, {}).get("record", 0)))
        listed = [_listed_record(qid, out[qid], kept.get(qid, {}).get("data")) for qid in order]
        return {f"coverage_{system}.json": _dumps(listed)}
    return {f"coverage_{system}.json": _dumps(out)}


def _kept(rows, fmt: str) -> dict:
    """``{key: released}`` of the ``(key, released)`` rows whose kept record came from a
    file of format ``fmt`` (``released`` is text: no lookup inside it, the rows are few)."""
    return {key: kept for key, kept in rows if isinstance(kept, dict) and kept.get("format") == fmt}


def _listed_record(qid: str, labels: list, data) -> dict:
    """A released judge file's record: the one kept (:func:`_without_labels`) with the
    stored labels in its place, else the id and labels alone."""
    if isinstance(data, dict) and LISTED_LABELS in data:
        return {key: labels if key == LISTED_LABELS else value for key, value in data.items()}
    return {LIST_KEY: qid, LISTED_LABELS: labels}


def dump_pairwise(study, *, judge: str, **_):
    """ResearchQA ``judge_systems_by_gpt.py`` output: one record per compared pair, the
    first stored order as A/B (``judge``), the reverse order as ``judge_swapped`` in the A/B
    frame. A tie has no A/B answer in this format and is written as null (not stored)."""
    rows = (
        JudgePairwise.objects.filter(
            judge__name=judge,
            protocol=JudgePairwise.Protocol.DIRECT,
            left__question__study=study,
        )  # fmt: skip
        .order_by("pk")
        .values_list(
            "left_id",
            "right_id",
            "choice",
            "rationale",
            "left__question__external_id",
            "left__system__name",
            "right__system__name",
        )  # fmt: skip
    )
    records: dict[frozenset, dict] = {}
    for left, right, choice, why, qid, left_name, right_name in rows:
        rec = records.get(frozenset((left, right)))
        if rec is None:
            rec = records[frozenset((left, right))] = {
                "session_id": qid, "implementation_A": left_name,
                "implementation_B": right_name, "judge": None, "judge_feedback": "",
                "judge_swapped": None, "judge_swapped_feedback": "", "_a": left,
            }  # fmt: skip
        if left == rec["_a"]:
            rec["judge"] = {"left": "A", "right": "B"}.get(choice)
            rec["judge_feedback"] = why
        else:  # B shown first: "right" is A
            rec["judge_swapped"] = {"right": "A", "left": "B"}.get(choice)
            rec["judge_swapped_feedback"] = why
    out = [{k: v for k, v in r.items() if k != "_a"} for r in records.values()]
    return {"judge_pairwise.json": _dumps(out)}


def dump_researcherbench(study, *, judge: str, system: str | None = None, **_):
    """ResearcherBench rubric results: ``[{id, model, result: {coverage_results: [{point,
    weight, covered, justification}], recall}}]``, one record per judged report.

    A report whose results came from a ResearcherBench file gets its record back as
    released (``JudgeScore.released``: its ``id`` as written, ``m_weighted``, its rounded
    recall, its keys' order, in file order). A verdict changed since (a re-judged report)
    is written over the record's own (:func:`_with_stored_verdicts`): the record is the
    released one but for that verdict and the sums it enters. Any other report's record is
    built from the stored verdicts, after them, with ResearcherBench's types (a numeric id
    as a number, integer weights as integers)."""
    rows = JudgeCoverage.objects.filter(
        judge__name=judge, report__question__study=study, covered__isnull=False
    )
    kept_rows = JudgeScore.objects.filter(
        judge__name=judge, report__question__study=study, metric="rubric_coverage",
        released__isnull=False,
    )  # fmt: skip
    if system:
        rows = rows.filter(report__system__name=system)
        kept_rows = kept_rows.filter(report__system__name=system)
    records: dict[int, dict] = {}
    for rid, qid, model, point, weight, covered, why in rows.order_by(
        "report__question__external_id", "report__system__name", "item__position"
    ).values_list("report_id", "report__question__external_id", "report__system__name",
                  "item__text", "item__weight", "covered", "rationale"):  # fmt: skip
        rec = records.setdefault(
            rid, {"id": released_id(qid), "model": model, "result": {"coverage_results": []}}
        )
        rec["result"]["coverage_results"].append(
            {"point": point, "weight": released_weight(weight), "covered": covered,
             "justification": why}
        )  # fmt: skip
    for rec in records.values():
        crit = rec["result"]["coverage_results"]
        rec["result"]["recall"] = researcherbench.weighted_coverage(
            [c["weight"] for c in crit], [c["covered"] for c in crit]
        )
    kept = []
    for rid, entry in _kept(
        kept_rows.values_list("report_id", "released"), "researcherbench"
    ).items():
        record = _with_stored_verdicts(entry.get("data"), records[rid]) if rid in records else None
        if record is not None:
            kept.append((entry.get("record", 0), rid, record))
    kept.sort(key=lambda k: k[:2])
    as_kept = {rid for _, rid, _ in kept}
    out = [data for _, _, data in kept] + [r for rid, r in records.items() if rid not in as_kept]
    return {f"researcherbench_results{'_' + system if system else ''}.json": _dumps(out)}


def _with_stored_verdicts(data, built: dict) -> dict | None:
    """The kept record ``data`` with what is stored (``built``) written over it: each
    criterion's ``covered``, ``justification`` and weight where the stored one differs
    from what the record says (as the importer read it), and ``m_weighted`` and ``recall``
    where their sums changed (recall rounded to 4 decimals, as released). Everything else
    keeps its released value, type and place; the record itself when nothing differs.
    None when the stored verdicts are not on the record's points (a rubric changed since):
    the record is then built from what is stored."""
    result = data.get("result") if isinstance(data, dict) else None
    criteria = result.get("coverage_results") if isinstance(result, dict) else None
    if not isinstance(criteria, list):
        return None
    stored = {_norm(c["point"]): c for c in built["result"]["coverage_results"]}
    written, weights, covered = [], [], []
    for c in criteria:
        point = c.get("point") if isinstance(c, dict) else None
        now = stored.pop(_norm(point), None) if isinstance(point, str) else None
        if now is None:
            return None
        c = dict(c)
        if float(c.get("weight", 1)) != float(now["weight"]):
            c["weight"] = now["weight"]
        if c.get("covered") is not now["covered"]:
            c["covered"] = now["covered"]
        if (c.get("justification") or "") != now["justification"]:
            c["justification"] = now["justification"]
        written.append(c)
        weights.append(c.get("weight", 1))
        covered.append(c["covered"])
    if stored:  # a stored verdict on a point the record does not have
        return None
    result = {**result, "coverage_results": written}
    if "m_weighted" in result:
        m_weighted = sum(w for w, b in zip(weights, covered, strict=True) if b)
        if m_weighted != result["m_weighted"]:
            result["m_weighted"] = m_weighted
    recall = result.get("recall")
    score = researcherbench.weighted_coverage([float(w) for w in weights], covered)
    if is_number(recall) and abs(recall - score) > RECALL_TOLERANCE:
        result["recall"] = round(score, 4)
    record = {**data, "result": result}
    return data if record == data else record


def dump_csv(study, *, judge: str, **_):
    """The judge's per-report scores: ``question,system,metric,value,rationale``, each
    cell escaped against formulas (:mod:`annotation.spreadsheets`; the importer undoes it)."""
    out = io.StringIO()
    writer = spreadsheets.csv_writer(out, lineterminator="\n")
    writer.writerow([*CSV_COLUMNS, "rationale"])
    for row in (
        JudgeScore.objects.filter(judge__name=judge, report__question__study=study)
        .order_by("report__question__external_id", "report__system__name", "metric")
        .values_list(
            "report__question__external_id", "report__system__name", "metric", "value", "rationale"
        )  # fmt: skip
    ):
        writer.writerow([*row[:3], repr(row[3]), row[4]])
    return {"judge_scores.csv": out.getvalue()}


# --- Registration ---------------------------------------------------------------------------

_JUDGE = Option(
    "judge", "judge name (created when missing)", required=True, stored_as="judges.Judge.name"
)
_SYSTEM = Option(
    "system",
    "system of a researchqa-coverage file; overrides 'model' of ResearcherBench records",
    stored_as="annotation.System.name",
)
_RUBRIC_KIND = Option(
    "rubric_kind", "match items of this rubric kind only", stored_as="annotation.Rubric.kind"
)

register_kind(
    Kind(
        "judge_scores",
        "judge outputs produced elsewhere (ScholarQA-CS2 judge scores come with pairwise)",
        creates_study=False,
        enables_tasks=False,
        options=(_JUDGE,),
    )
)

_DUMP_JUDGE = Option("judge", "judge whose results are written", required=True)
_EXAMPLES = Path(__file__).resolve().parent / "examples"
#: The example study every judge-score example is read against (annotation's examples).
_RQA = (("questions", "researchqa", {}), ("reports", "researchqa", {"system": "example-system"}))
_SHAPES = {
    "researchqa-coverage": (
        "One system's labels (needs --system), in either released shape:\n"
        f"  {COVERAGE_SHAPE}\n"
        'labels "Not at all", "Barely", "Moderately", "Mostly", "Completely" (or 0-4);\n'
        "an item is matched by its text among the question's rubric items."
    ),
    "researchqa-pairwise": (
        'A JSON list of {"session_id": "<question id>", "implementation_A": "<system>",\n'
        '"implementation_B": "<system>", "judge": "A"|"B"|null, "judge_feedback",\n'
        '"judge_swapped": "A"|"B"|null, "judge_swapped_feedback"} (the swapped verdict in\n'
        "the A/B frame, as ResearchQA's released pairwise judging script writes it)."
    ),
    "researcherbench": (
        'A JSON list of {"id": <question id>, "model": "<system>", "result": {\n'
        '"coverage_results": [{"point": "<rubric item>", "weight", "covered": true|false,\n'
        '"justification"}], "recall"?}} (results/rubric_eval/); recall must equal Σw·c/Σw.'
    ),
    "csv": (
        "CSV with the header question,system,metric,value[,rationale]; one score a row;\n"
        f"metric one of {', '.join(metrics.JUDGE_METRICS)}; a value within its metric's\n"
        f"scale ({', '.join(sorted({m.scale() for m in metrics.JUDGE_METRICS.values()}))})."
    ),
}
_EXAMPLE = {
    "researchqa-coverage": Example(_EXAMPLES, "researchqa_coverage.json",
                                   {"system": "example-system", "judge": "example-judge"},
                                   needs=_RQA),
    "researchqa-pairwise": Example(_EXAMPLES, "researchqa_pairwise.json",
                                   {"judge": "example-judge"},
                                   needs=(*_RQA, ("reports", "researchqa",
                                                  {"system": "example-system-b"}))),
    "researcherbench": Example(_EXAMPLES, "researcherbench_results.json",
                               {"judge": "example-judge"},
                               needs=(("questions", "researcherbench", {}),
                                      ("reports", "researcherbench",
                                       {"system": "example-system"}))),
    "csv": Example(_EXAMPLES, "judge_scores.csv", {"judge": "example-judge"}, needs=_RQA),
}  # fmt: skip
for _name, _help, _dump, _dump_options, _label, _extension in (
    ("researchqa-coverage", "ResearchQA compute_coverage.py output (one system's answers)",
     dump_coverage, (_DUMP_JUDGE, Option("system", "system", required=True), _RUBRIC_KIND),
     "ResearchQA judge coverage", ".json"),
    ("researchqa-pairwise", "ResearchQA judge_systems_by_gpt.py output", dump_pairwise,
     (_DUMP_JUDGE,), "ResearchQA judge pairwise verdicts", ".json"),
    ("researcherbench", "ResearcherBench rubric results", dump_researcherbench,
     (_DUMP_JUDGE, Option("system", "only this system's reports")),
     "ResearcherBench judge rubric results", ".json"),
    ("csv", "generic per-report scores: question,system,metric,value[,rationale]", dump_csv,
     (_DUMP_JUDGE,), "Judge scores per report (generic CSV)", ".csv"),
):  # fmt: skip
    register(
        Format(
            "judge_scores",
            _name,
            _help,
            load=partial(load, format=_name),
            options=(_SYSTEM, _RUBRIC_KIND),
            dump=_dump,
            dump_options=_dump_options,
            label=_label,
            extension=_extension,
            shape=_SHAPES[_name],
            example=_EXAMPLE[_name],
        )  # fmt: skip
    )
