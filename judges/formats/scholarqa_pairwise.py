"""ScholarQA-CS2 (Hwang et al. 2026) pairwise annotation records, read and written.

A released pairwise file is a JSON list of ``{"question", "models": [a, b],
"human_<metric>": [x, y], "model_<metric>": [x, y], "preference_ranking_norm": [x, y]}``
(plus ``question_intent`` / ``question_word_length`` outside the assigned setting): one
annotator's medal rankings and metric-wise scores, and one judge's scores, per pair of
reports. Because the files carry judge verdicts this format lives in the judges layer
(issue 14): :func:`read_pairwise` checks a file into a :class:`PairwiseFile`,
:func:`import_pairwise` writes it, :func:`export_pairwise` writes a study's records back in
the released form.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from annotation.annotate.scores import CONSENSUS_METRIC, RANK_LIKE
from annotation.importers.base import ImportReport
from annotation.importers.common import (
    RELEASED_SPLITS,
    Problems,
    Source,
    gc_paused,
    insert_new,
    insert_rows,
    is_number,
    parse_json_records,
    question_key,
    read_source,
    require,
    split_from_name,
    sync_rows,
    type_name,
)
from annotation.importers.registry import (
    Example,
    Format,
    Kind,
    Option,
    Signature,
    register,
    register_kind,
)
from annotation.importers.structure import (
    ensure_question_ids,
    ensure_report_ids,
    ensure_systems,
)
from annotation.models import (
    Annotator,
    Assignment,
    ExpertAgreedRecord,
    HumanMetricScore,
    Medal,
    MedalRanking,
    PairwisePreference,
    Question,
    Report,
    Setting,
    System,
)
from judges.models import Judge, JudgeScore, default_judge
from judges.scoring.metrics import JUDGE_METRICS, value_problem

# --- Pairwise records -----------------------------------------------------------------------

#: File metric suffix -> Concord metric name, in the files' field order.
FILE_METRICS = {
    "overall": "overall",
    "overall_citation": "overall_citation",
    "answer_precision": "answer_relevance",
    "answer_recall": "answer_recall",
    "citation_precision": "citation_precision",
    "citation_recall": "citation_recall",
}
CONSENSUS_REASON = "ScholarQA-CS2 agreement-only record: both annotations agree on this pair."
KNOWN_FIELDS = {
    "question",
    "models",
    "preference_ranking_norm",
    "question_intent",
    "question_word_length",
}
SETTING_FROM_NAME = {"assigned": "assigned", "chosen": "near_expert", "authored": "deep_expert"}
TOLERANCE = 1e-9


def human_metric(file_metric: str, setting: str) -> str:
    if setting == Setting.ASSIGNED and file_metric in RANK_LIKE:
        return RANK_LIKE[file_metric]
    return FILE_METRICS[file_metric]


def infer_setting(name: str) -> str:
    base = name.lower()
    for word, setting in SETTING_FROM_NAME.items():
        if word in base:
            return setting
    return ""


@dataclass
class PairwiseFile:
    """A checked pairwise file, before anything is written (no database access).

    ``questions``: question key -> {text, intent, systems (in order of appearance), record};
    ``medal``: (key, system) -> (value, record, field);
    ``human`` / ``judge``: (key, system) -> {metric: (value, record, field)}, one dict per
    report (:func:`flat` lists them per metric);
    ``pairs``: (key, system a, system b, record) in file order.

    Why one dict per report rather than one entry per (report, metric): the scale file has
    720,000 judge scores but 120,000 reports; a record looks its two reports up once instead
    of once per metric, and 600,000 fewer tuple keys are built and hashed (issue 29).
    """

    records: list
    questions: dict[str, dict] = field(default_factory=dict)
    medal: dict = field(default_factory=dict)
    human: dict = field(default_factory=dict)
    judge: dict = field(default_factory=dict)
    pairs: list[tuple[str, str, str, int]] = field(default_factory=list)


class _RecordReader:
    """Checks one record after another into a :class:`PairwiseFile`.

    Why a class: the per-record checks share the problems, the setting and the file read
    so far; the loop runs 120,000 times per file in the scale benchmark, so the common case
    (two finite floats) is checked first and each question text is keyed once."""

    def __init__(self, problems: Problems, out: PairwiseFile, *, setting: str, consensus: bool):
        self.problems, self.out, self.consensus = problems, out, consensus
        # field name -> (store, stored metric name)
        self.targets = {
            f"{prefix}_{metric}": (out.human, human_metric(metric, setting))
            if prefix == "human"
            else (out.judge, FILE_METRICS[metric])
            for prefix in ("human", "model")
            for metric in FILE_METRICS
        }
        #: model_<metric> field -> the judge metric's scale (low, high): a judge score
        #: outside it is refused (METHODS §4; :mod:`judges.scoring.metrics`)
        self.scales = {
            name: (JUDGE_METRICS[metric].low, JUDGE_METRICS[metric].high)
            for name, (store, metric) in self.targets.items()
            if store is out.judge
        }
        self.keys: dict[str, str] = {}
        self.seen_pairs: dict[tuple[str, frozenset], int] = {}

    def read(self, n: int, r) -> None:
        checked = self._fast(r) if type(r) is dict else None
        if checked is None:
            checked = self._checked(n, r)
            if checked is None:
                return
        text, models, prefs, intent, values = checked
        problems = self.problems
        key = self.keys.get(text)
        if key is None:
            key = self.keys[text] = question_key(text)
        self._question(n, key, text, intent, models)
        pair = (key, frozenset(models))
        if pair in self.seen_pairs:
            problems.add(n, "models", f"the same pair as record {self.seen_pairs[pair]}")
            return
        self.seen_pairs[pair] = n
        self.out.pairs.append((key, models[0], models[1], n))
        if prefs is not None:
            for m, v in zip(models, prefs, strict=True):
                _agree(problems, n, "preference_ranking_norm", self.out.medal, (key, m), v, m)
        self._store_values(n, key, models, values)

    def _fast(self, r: dict):
        """(text, models, preferences, intent, values) of a record of the released shape
        (question text, two system names, finite floats, known fields only), checked without
        building a message; None for anything else, which :meth:`_checked` then reads and
        names. Why: 240,000 records in the scale benchmark (issue 29), nearly all plain."""
        text, models, prefs = r.get("question"), r.get("models"), r.get("preference_ranking_norm")
        if type(text) is not str or type(models) is not list or type(prefs) is not list:
            return None
        if len(models) != 2 or len(prefs) != 2 or (text not in self.keys and not text.strip()):
            return None
        a, b = models
        if type(a) is not str or type(b) is not str or a == b or not a.strip() or not b.strip():
            return None
        pa, pb = prefs
        if type(pa) is not float or type(pb) is not float:
            return None
        if self.consensus:
            if not (0.0 <= pa <= 1.0 and 0.0 <= pb <= 1.0):
                return None
        elif pa not in Medal.FROM_SCORE or pb not in Medal.FROM_SCORE:
            return None
        intent = r.get("question_intent")
        wl = r.get("question_word_length")
        if (intent is not None and type(intent) is not str) or (
            wl is not None and type(wl) is not int
        ):
            return None
        targets, scales, values = self.targets, self.scales, {}
        for field_name, value in r.items():
            if field_name in KNOWN_FIELDS:
                continue
            if field_name not in targets or type(value) is not list or len(value) != 2:
                return None
            if not _finite_floats(*value):
                return None
            scale = scales.get(field_name)
            if scale is not None and not (
                scale[0] <= value[0] <= scale[1] and scale[0] <= value[1] <= scale[1]
            ):
                return None
            values[field_name] = value
        return text, models, prefs, intent, values

    def _checked(self, n: int, r):
        """The record's parts as :meth:`_fast` gives them, each problem named; None when the
        record has no usable question text or pair of systems."""
        problems = self.problems
        if not isinstance(r, dict):
            problems.add(n, None, f"expected an object, found {type_name(r)}")
            return None
        text = require(problems, n, r, "question", str)
        models = self._models(n, require(problems, n, r, "models", list))
        prefs = self._preferences(n, require(problems, n, r, "preference_ranking_norm", list))
        intent = self._intent(n, r)
        values = self._metric_values(n, r)
        if text is None or models is None:
            return None
        return text, models, prefs, intent, values

    def _models(self, n: int, models):
        if models is None:
            return None
        if len(models) != 2 or not all(isinstance(m, str) and m.strip() for m in models):
            self.problems.add(n, "models", "expected two system names")
            return None
        if models[0] == models[1]:
            self.problems.add(n, "models", "a system compared with itself")
            return None
        return models

    def _preferences(self, n: int, prefs):
        if prefs is None:
            return None
        prefs = _pair_values(self.problems, n, "preference_ranking_norm", prefs, allow_none=False)
        for v in prefs or ():
            if self.consensus and not 0.0 <= v <= 1.0:
                self.problems.add(n, "preference_ranking_norm", f"medal score {v} is outside 0..1")
                return None
            if not self.consensus and v not in Medal.FROM_SCORE:
                self.problems.add(
                    n,
                    "preference_ranking_norm",
                    f"medal score {v} is not gold 1.0, silver 0.5 or bronze 0.0",
                )
                return None
        return prefs

    def _intent(self, n: int, r: dict):
        intent = r.get("question_intent")
        if intent is not None and not isinstance(intent, str):
            self.problems.add(n, "question_intent", f"expected a string, found {type_name(intent)}")
            intent = None
        wl = r.get("question_word_length")
        if wl is not None and (not isinstance(wl, int) or isinstance(wl, bool)):
            self.problems.add(
                n, "question_word_length", f"expected an integer, found {type_name(wl)}"
            )
        return intent

    def _metric_values(self, n: int, r: dict) -> dict[str, list]:
        values: dict[str, list] = {}
        for field_name, value in r.items():
            if field_name in KNOWN_FIELDS:
                continue
            if field_name not in self.targets:
                self.problems.add(n, field_name, "unknown field")
                continue
            if type(value) is list and len(value) == 2 and _finite_floats(*value):
                vals = value  # the common case, checked fast
            elif not isinstance(value, list):
                self.problems.add(
                    n, field_name, f"expected a list of two numbers, found {type_name(value)}"
                )
                continue
            else:
                vals = _pair_values(self.problems, n, field_name, value, allow_none=True)
                if vals is None:
                    continue
            if field_name in self.scales:
                metric = self.targets[field_name][1]
                wrong = [value_problem(metric, v) for v in vals if v is not None]
                if any(wrong):
                    self.problems.add(n, field_name, next(w for w in wrong if w))
                    continue
            values[field_name] = vals
        return values

    def _question(self, n: int, key: str, text: str, intent, models) -> None:
        q = self.out.questions.setdefault(
            key, {"text": text, "intent": "", "systems": [], "record": n}
        )
        if intent:
            if q["intent"] and q["intent"] != intent:
                self.problems.add(
                    n,
                    "question_intent",
                    f"{intent!r} contradicts {q['intent']!r} (record {q['record']})",
                )
            q["intent"] = q["intent"] or intent
        for m in models:
            if m not in q["systems"]:
                q["systems"].append(m)
        if not self.consensus and len(q["systems"]) > 3:
            self.problems.add(n, "models", "a medal ranking covers at most 3 reports per question")

    def _store_values(self, n: int, key: str, models, values: dict[str, list]) -> None:
        targets, (a, b) = self.targets, models
        rows = {}  # id(store) -> the two reports' dicts in it, looked up once per record
        for field_name, (va, vb) in values.items():  # two values each (checked)
            store, metric = targets[field_name]
            pair = rows.get(id(store))
            if pair is None:
                pair = rows[id(store)] = (_row(store, key, a), _row(store, key, b))
            for m, row, v in ((a, pair[0], va), (b, pair[1], vb)):
                if v is None:
                    continue
                prev = row.get(metric)  # _agree, inlined for the common first sight
                if prev is None:
                    row[metric] = (v, n, field_name)
                elif prev[0] != v and abs(prev[0] - v) > TOLERANCE:
                    _agree(self.problems, n, field_name, row, metric, v, m)


def _row(store: dict, key: str, system: str) -> dict:
    """The report's dict of ``store`` (made when new)."""
    row = store.get((key, system))
    if row is None:
        row = store[(key, system)] = {}
    return row


def flat(store: dict):
    """((key, system, metric), (value, record, field)) of each value of a per-report store
    (:class:`PairwiseFile` ``human`` / ``judge``)."""
    for (key, system), row in store.items():
        for metric, value in row.items():
            yield (key, system, metric), value


def read_pairwise(src: Source, *, setting: str, consensus: bool) -> PairwiseFile:
    """Validate every record; return the file as a :class:`PairwiseFile` (no database)."""
    # Every number of a record is read as a float (scores, medals); a question_word_length
    # beyond 64 bits, read as a float by orjson, is refused as not an integer.
    records = parse_json_records(src, numbers_as_floats=True)
    problems = Problems(src.name)
    out = PairwiseFile(records)
    reader = _RecordReader(problems, out, setting=setting, consensus=consensus)
    for n, r in enumerate(records, start=1):
        reader.read(n, r)
    problems.raise_if_any()
    return out


def _finite_floats(a, b) -> bool:
    """Both values are finite floats (``x - x`` is NaN for ±inf and NaN)."""
    return type(a) is float and type(b) is float and a - a == 0.0 and b - b == 0.0


def _pair_values(problems, n, field_name, value, *, allow_none):
    if len(value) != 2:
        problems.add(n, field_name, f"expected two values (one per system), found {len(value)}")
        return None
    out = []
    for v in value:
        if v is None and allow_none:
            out.append(None)
        elif is_number(v):
            out.append(v)
        else:
            problems.add(n, field_name, f"expected a number, found {type_name(v)}")
            return None
    return out


def _agree(problems, n, field_name, store, key, value, system):
    prev = store.get(key)
    if prev is None:
        store[key] = (value, n, field_name)
    elif abs(prev[0] - value) > TOLERANCE:
        problems.add(
            n,
            field_name,
            f"{system}: {value} contradicts {prev[0]} given for the same report in record {prev[1]}",
        )


def import_pairwise(
    src: Source,
    study,
    rep: ImportReport,
    *,
    annotator: str | None = None,
    setting: str | None = None,
    judge: str,
    split: str | None = None,
    consensus: bool | None = None,
    expert_agreed: bool = False,
) -> None:
    if expert_agreed:
        return import_expert_agreed(
            src, study, rep, annotator=annotator, setting=setting, judge=judge, split=split
        )
    problems = Problems(src.name)
    setting = setting or infer_setting(src.name)
    if setting not in Setting.values:
        problems.add(
            None,
            "setting",
            f"setting {setting!r} is not one of {', '.join(Setting.values)}"
            if setting
            else "no setting given and none can be inferred from the file name",
        )
    if not annotator or not annotator.strip():
        problems.add(None, "annotator", "an annotator name is required")
    if not judge or not judge.strip():
        problems.add(None, "judge", "a judge name is required")
    problems.raise_if_any()
    if consensus is None:
        consensus = "agreement_only" in src.name.lower()
    split = split or split_from_name(src.name)
    file = read_pairwise(src, setting=setting, consensus=consensus)
    rep.records = len(file.records)

    # Read-only check against the database: a judge's stored scores must agree.
    stored_judge = _stored_judge_scores(study, judge)
    _check_stored_judge_scores(problems, study, judge, file.judge, stored_judge)
    _check_stored_splits(problems, study, file, split)
    problems.raise_if_any()

    judge_obj, created = Judge.objects.get_or_create(name=judge)
    rep.count("created" if created else "unchanged", "Judge")
    ann, created = Annotator.objects.get_or_create(pseudonym=annotator)
    rep.count("created" if created else "unchanged", "Annotator")
    qids, sids, reports = _ensure_content(study, file, split, rep)
    questions = file.questions
    has_human = {
        k for (k, _), row in file.human.items() if any(not m.startswith("rank_") for m in row)
    }
    if consensus:
        task = {k: "pairwise" for k in questions}
    else:
        task = {k: "metric_wise" if k in has_human else "medal_ranking" for k in questions}
    assignments = _write_assignments(study, ann, setting, questions, qids, reports, task, rep)
    human_rows = file.human
    where = _Where(study, ann, setting, qids, reports, assignments)
    if consensus:
        _write_preferences(where, file.pairs, file.medal, rep)
        human_rows = {ks: dict(row) for ks, row in file.human.items()}
        for ks, value in file.medal.items():
            human_rows.setdefault(ks, {})[CONSENSUS_METRIC] = value
    else:
        _write_rankings(where, questions, file.medal, rep)
    _write_human_scores(where, human_rows, rep)
    stored = {(qs, metric) for (qs, metric) in stored_judge}
    _write_judge_scores(judge_obj, file.judge, qids, sids, reports, stored, rep)


@dataclass
class _Where:
    """Whose judgments an import writes, and the ids of what they are about."""

    study: object
    ann: Annotator
    setting: str
    qids: dict[str, int]
    reports: dict[tuple[str, str], int]
    assignments: dict[str, int]


def _ensure_content(study, file: PairwiseFile, split: str, rep: ImportReport):
    """The file's questions, systems and (empty when new) reports: their ids."""
    qids = ensure_question_ids(
        study,
        {
            k: {"text": q["text"], "intent": q["intent"], "split": split}
            for k, q in file.questions.items()
        },
        rep,
    )
    systems = ensure_systems(study, {s for q in file.questions.values() for s in q["systems"]}, rep)
    sids = {name: system.pk for name, system in systems.items()}
    reports, _ = ensure_report_ids(
        [(k, s) for k, q in file.questions.items() for s in q["systems"]], sids, qids, rep
    )
    return qids, sids, reports


def import_expert_agreed(
    src: Source, study, rep: ImportReport, *, annotator, setting, judge, split
) -> None:
    """A released agreement-only file as the study's expert-agreed records.

    Each record is one comparison both annotators agree on (mean medal scores) with the
    judge scores the file carries, stored as they are (nulls included) in
    :class:`~annotation.models.ExpertAgreedRecord`: the released script computes its
    ``--human_agreed`` figures from exactly these (seed 003 Table 3 "Expert-Agreed"), and
    they differ from the ann1/ann2 files' judge scores on a few reports. Nothing else is
    written: no annotator, medal ranking or judge score.
    """
    problems = Problems(src.name)
    setting = setting or infer_setting(src.name)
    if annotator:
        problems.add(
            None,
            "annotator",
            "--expert-agreed records are the annotators' agreed judgments, not one "
            f"annotator's: give no annotator (got {annotator!r})",
        )
    if setting != Setting.ASSIGNED:
        problems.add(
            None,
            "setting",
            f"setting {setting or '(none)'!r}: expert-agreed records need two annotators "
            "per comparison, the assigned setting",
        )
    if not judge or not judge.strip():
        problems.add(
            None, "judge", "a judge name is required (whose model_* scores the file holds)"
        )
    problems.raise_if_any()
    split = split or split_from_name(src.name)
    file = read_pairwise(src, setting=setting, consensus=True)
    rep.records = len(file.records)
    _check_stored_splits(problems, study, file, split)
    problems.raise_if_any()
    qids, _, reports = _ensure_content(study, file, split, rep)
    mine = ExpertAgreedRecord.objects.filter(study=study, setting=setting, judge_name=judge)
    stored = {
        (a, b): (pk, (pref, human, scores))
        for pk, a, b, pref, human, scores in mine.values_list(
            "id", "report_a_id", "report_b_id", "preference", "human", "judge_scores"
        )
    }
    wanted = {}
    question_of = {}
    for k, a, b, n in file.pairs:
        key = (reports[(k, a)], reports[(k, b)])
        wanted[key] = _agreed_values(file.records[n - 1], setting)
        question_of[key] = qids[k]
    position = iter(range(max(mine.values_list("position", flat=True), default=-1) + 1, 10**9))
    sync_rows(
        ExpertAgreedRecord, rep, stored=stored, wanted=wanted,
        fields=["preference", "human", "judge_scores"],
        new_row=lambda key, v: {
            "study": study.pk, "setting": setting, "question": question_of[key],
            "report_a": key[0], "report_b": key[1], "judge_name": judge,
            "position": next(position), "preference": v[0], "human": v[1], "judge_scores": v[2],
        },
    )  # fmt: skip


def _agreed_values(record: dict, setting: str) -> tuple[list, dict, dict]:
    """(preference, human scores, judge scores) of one agreement-only record, as stored."""
    human, scores = {}, {}
    for field_name, value in record.items():
        prefix, _, metric = field_name.partition("_")
        if prefix == "human" and metric in FILE_METRICS:
            human[human_metric(metric, setting)] = list(value)
        elif prefix == "model" and metric in FILE_METRICS:
            scores[FILE_METRICS[metric]] = list(value)
    return list(record["preference_ranking_norm"]), human, scores


# Why ids and ``values_list`` below, never model instances: the scale benchmark (issue 3)
# imports 120,000 records per file and re-reads what the first file wrote; building
# instances for them cost more than the whole import budget. New rows go through
# ``insert_new`` / ``insert_rows`` (COPY on PostgreSQL); the rare changed rows through
# ``bulk_update`` of instances that carry only their primary key and the changed fields.


def _stored_judge_scores(study, judge: str) -> dict[tuple[tuple[int, int], str], float]:
    """The judge's stored scores in the study: {((question id, system id), metric): value}."""
    rows = JudgeScore.objects.filter(judge__name=judge, report__question__study=study)
    return {
        ((q, s), metric): value
        for q, s, metric, value in rows.values_list(
            "report__question_id", "report__system_id", "metric", "value"
        )
    }


def _check_stored_judge_scores(problems, study, judge, judge_vals, stored) -> None:
    if not judge_vals or not stored:
        return
    qids = dict(Question.objects.filter(study=study).values_list("external_id", "id"))
    sids = dict(System.objects.filter(study=study).values_list("name", "id"))
    found = []  # (record, field, message): sorted by record, not the 720,000 values checked
    for (k, s), row in judge_vals.items():
        qs = (qids.get(k), sids.get(s))
        for metric, (v, n, field_name) in row.items():
            old = stored.get((qs, metric))
            if old is not None and abs(old - v) > TOLERANCE:
                message = f"{s}: {v} contradicts the score {old} already stored for judge {judge!r}"
                found.append((n, field_name, message))
    for n, field_name, message in sorted(found, key=lambda p: p[0]):
        problems.add(n, field_name, message)


#: How a researcher moves questions between splits on purpose (named in the refusal below).
MOVE_SPLIT = (
    'to move it, import it as a question first (kind "questions", format "jsonl", its '
    'id, text and new "split"), or edit it on the admin\'s Questions page'
)


def _check_stored_splits(problems, study, file: PairwiseFile, split: str) -> None:
    """A question the study already holds keeps its split: a file of another split is
    refused, naming the question's first record, the stored split and the file's.

    Why: the released files are one per split and the export writes one file per split; an
    import that rewrote the split (a ``test`` question made ``train`` or ``dev`` by a mistyped
    option or a misnamed file) silently moved every other annotator's judgments of the
    question to another file and another evaluation set. A question without a split gets
    the file's (that fills it in, it moves nothing)."""
    if not split:
        return
    other = Question.objects.filter(study=study).exclude(split__in=("", split))
    for key, old in sorted(
        ((k, s) for k, s in other.values_list("external_id", "split") if k in file.questions),
        key=lambda ks: file.questions[ks[0]]["record"],
    ):
        problems.add(
            file.questions[key]["record"],
            "split",
            f"question {key} ({file.questions[key]['text'][:60]!r}) is in split {old!r}, "
            f"this import says {split!r}; an import never moves a question between splits "
            f"({MOVE_SPLIT})",
        )


def _write_assignments(study, ann, setting, questions, qids, reports, task, rep):
    """The annotator's submitted assignment of each question: {question key: assignment id}."""
    from django.utils import timezone

    mine = Assignment.objects.filter(study=study, annotator=ann, setting=setting)

    def stored() -> dict[tuple[int, str], tuple]:
        rows = mine.values_list("question_id", "task", "id", "report_order", "status")
        return {(q, t): (pk, order, status) for q, t, pk, order, status in rows}

    existing = stored()
    new, changed, out = [], [], {}
    now = timezone.now()
    submitted = Assignment.Status.SUBMITTED
    for k, q in questions.items():
        order = [reports[(k, s)] for s in q["systems"]]
        row = existing.get((qids[k], task[k]))
        if row is None:
            new.append({"study": study.pk, "annotator": ann.pk, "question": qids[k],
                        "task": task[k], "setting": setting, "report_order": order,
                        "status": submitted, "submitted_at": now})  # fmt: skip
            continue
        pk, stored_order, status = row
        if stored_order != order or status != submitted:
            changed.append(Assignment(pk=pk, report_order=order, status=submitted))
        else:
            rep.count("unchanged", "Assignment")
        out[k] = pk
    if new:
        insert_new(Assignment, new)
        rep.count("created", "Assignment", len(new))
        existing = stored()
        out.update({k: existing[(qids[k], task[k])][0] for k in questions if k not in out})
    if changed:
        # keep a first submission time (one query for those few)
        first = dict(
            Assignment.objects.filter(pk__in=[a.pk for a in changed], submitted_at__isnull=False)
            .values_list("id", "submitted_at")
        )  # fmt: skip
        for a in changed:
            a.submitted_at = first.get(a.pk, now)
        Assignment.objects.bulk_update(changed, ["report_order", "status", "submitted_at"])
        rep.count("updated", "Assignment", len(changed))
    return out


def _write_rankings(w: _Where, questions: dict, medal: dict, rep: ImportReport) -> None:
    mine = MedalRanking.objects.filter(study=w.study, annotator=w.ann, setting=w.setting)

    def stored() -> dict[int, tuple[int, int | None]]:
        rows = mine.values_list("question_id", "id", "assignment_id")
        return {q: (pk, assignment) for q, pk, assignment in rows}

    existing = stored()
    new = [
        {
            "study": w.study.pk,
            "annotator": w.ann.pk,
            "question": w.qids[k],
            "setting": w.setting,
            "assignment": w.assignments[k],
        }  # fmt: skip
        for k in questions
        if w.qids[k] not in existing
    ]
    if new:
        insert_new(MedalRanking, new)
        rep.count("created", "MedalRanking", len(new))
        existing = stored()
    relink = [
        MedalRanking(pk=existing[w.qids[k]][0], assignment_id=w.assignments[k])
        for k in questions
        if existing[w.qids[k]][1] != w.assignments[k]
    ]
    if relink:
        MedalRanking.objects.bulk_update(relink, ["assignment"])
    unchanged_rankings = len(questions) - len(new)
    stored_medals = {
        (r, report): (pk, (value,))
        for pk, r, report, value in Medal.objects.filter(
            ranking__study=w.study, ranking__annotator=w.ann, ranking__setting=w.setting
        ).values_list("id", "ranking_id", "report_id", "medal")
    }
    ranking_of = {k: existing[w.qids[k]][0] for k in questions}
    wanted = {
        (ranking_of[k], w.reports[(k, s)]): (Medal.FROM_SCORE[v],)
        for (k, s), (v, _, _) in medal.items()
    }
    in_file = set(ranking_of.values())
    stale = [m[0] for key, m in stored_medals.items() if key[0] in in_file and key not in wanted]
    if stale:
        Medal.objects.filter(pk__in=stale).delete()
        rep.count("updated", "MedalRanking", len(stale))  # a report left the ranking
    sync_rows(
        Medal, rep, stored=stored_medals, wanted=wanted, fields=["medal"],
        new_row=lambda key, v: {"ranking": key[0], "report": key[1], "medal": v[0]},
    )  # fmt: skip
    if unchanged_rankings:
        rep.count("unchanged", "MedalRanking", unchanged_rankings)


def _write_preferences(w: _Where, pairs: list, medal: dict, rep: ImportReport) -> None:
    stored = {
        (left, right): (pk, (choice,))
        for pk, left, right, choice in PairwisePreference.objects.filter(
            study=w.study, annotator=w.ann, setting=w.setting
        ).values_list("id", "left_id", "right_id", "choice")
    }
    wanted, question_of = {}, {}
    for k, a, b, _ in pairs:
        key = (w.reports[(k, a)], w.reports[(k, b)])
        sa, sb = medal[(k, a)][0], medal[(k, b)][0]
        wanted[key] = ("left" if sa > sb else "right" if sb > sa else "tie",)
        question_of[key] = k
    sync_rows(
        PairwisePreference, rep, stored=stored, wanted=wanted, fields=["choice"],
        new_row=lambda key, v: {
            "study": w.study.pk, "annotator": w.ann.pk, "question": w.qids[question_of[key]],
            "setting": w.setting, "assignment": w.assignments[question_of[key]],
            "left": key[0], "right": key[1], "choice": v[0], "reason": CONSENSUS_REASON,
        },
    )  # fmt: skip


def _write_human_scores(w: _Where, human: dict, rep: ImportReport) -> None:
    if not human:
        return
    from django.utils import timezone

    stored = {
        (report, metric): (pk, (value,))
        for pk, report, metric, value in HumanMetricScore.objects.filter(
            study=w.study, annotator=w.ann, setting=w.setting
        ).values_list("id", "report_id", "metric", "value")
    }
    wanted, question_of = {}, {}
    for (k, s), row in human.items():
        report = w.reports[(k, s)]
        for metric, (v, _, _) in row.items():
            key = (report, metric)
            wanted[key] = (float(v),)
            question_of[key] = k
    # updated_at too: the report cache's fingerprint reads it (an edit in place)
    sync_rows(
        HumanMetricScore, rep, stored=stored, wanted=wanted, fields=["value"],
        same=lambda old, new: abs(old[0] - new[0]) <= TOLERANCE,
        touch={"updated_at": timezone.now()},
        new_row=lambda key, v: {
            "study": w.study.pk, "annotator": w.ann.pk, "question": w.qids[question_of[key]],
            "setting": w.setting, "assignment": w.assignments[question_of[key]],
            "report": key[0], "metric": key[1], "value": v[0],
        },
    )  # fmt: skip


def _write_judge_scores(judge, values, qids, sids, reports, stored, rep):
    """New judge scores; ``stored`` holds the ((question id, system id), metric) already
    there, whose values were checked equal before anything was written."""
    if not values:
        return
    create, judge_id = [], judge.pk
    for (k, s), row in values.items():
        qs, report = (qids[k], sids[s]), reports[(k, s)]
        for metric, (v, _, _) in row.items():
            if (qs, metric) in stored:
                rep.count("unchanged", "JudgeScore")  # equal within tolerance: checked before
            else:
                create.append((judge_id, report, metric, float(v), ""))
    if create:
        insert_rows(JudgeScore, ["judge", "report", "metric", "value", "rationale"], create)
        rep.count("created", "JudgeScore", len(create))


# --- Writing the released records back ------------------------------------------------------

_UNRANK = {v: k for k, v in RANK_LIKE.items()}
_FILE_FROM_CONCORD = {v: k for k, v in FILE_METRICS.items()}
_INTEGER_RANKS = {"rank_citation_precision", "rank_citation_recall"}


@dataclass
class _Plan:
    """What one annotator's records are made of: questions, report pairs, medal scores."""

    questions: dict[int, object] = field(default_factory=dict)
    pairs: dict[int, list[tuple[int, int]]] = field(default_factory=dict)
    medal_score: dict[int, float] = field(default_factory=dict)


def _plan_from_rankings(rankings) -> _Plan:
    """Per question the reports in the assignment's order and the pairs (1,2), (1,3), (2,3)."""
    plan = _Plan(questions={r.question_id: r.question for r in rankings})
    by_ranking: dict[int, list[int]] = {}
    for rid, report_id, medal in Medal.objects.filter(ranking__in=rankings).values_list(
        "ranking_id", "report_id", "medal"
    ):
        by_ranking.setdefault(rid, []).append(report_id)
        plan.medal_score[report_id] = Medal.SCORE[medal]
    for r in rankings:
        reports = by_ranking.get(r.pk, [])
        stored = list(r.assignment.report_order) if r.assignment else []
        seq = [x for x in stored if x in reports] + sorted(x for x in reports if x not in stored)
        plan.pairs[r.question_id] = [
            (seq[i], seq[j]) for i in range(len(seq)) for j in range(i + 1, len(seq))
        ]
    return plan


def _plan_from_preferences(prefs) -> _Plan:
    """An agreement-only import: its pairwise preferences, in the order imported."""
    plan = _Plan()
    for p in prefs.select_related("question").order_by("pk"):
        plan.questions[p.question_id] = p.question
        plan.pairs.setdefault(p.question_id, []).append((p.left_id, p.right_id))
    return plan


def _human_field(metric: str, setting: str) -> str | None:
    if metric in _UNRANK:
        return _UNRANK[metric] if setting == Setting.ASSIGNED else None
    if setting == Setting.ASSIGNED and _FILE_FROM_CONCORD.get(metric) in RANK_LIKE:
        return None
    return _FILE_FROM_CONCORD.get(metric)


@dataclass
class _Scores:
    """The human and judge values of the exported reports, and which file fields hold them."""

    setting: str
    human: dict[tuple[int, str], float] = field(default_factory=dict)
    model: dict[tuple[int, str], float] = field(default_factory=dict)

    def human_fields(self) -> set[str]:
        return {_human_field(m, self.setting) for _, m in self.human} - {None}

    def model_fields(self) -> set[str]:
        return {_FILE_FROM_CONCORD[m] for _, m in self.model if m in _FILE_FROM_CONCORD}

    def human_value(self, report_id: int, file_metric: str):
        metric = (
            RANK_LIKE[file_metric]
            if self.setting == Setting.ASSIGNED and file_metric in RANK_LIKE
            else FILE_METRICS[file_metric]
        )
        v = self.human.get((report_id, metric))
        if v is not None and metric in _INTEGER_RANKS and float(v).is_integer():
            return int(v)
        return v


def _scores(study, plan: _Plan, *, setting: str, annotator: str, judge: str | None) -> _Scores:
    report_ids = {x for ps in plan.pairs.values() for p in ps for x in p}
    out = _Scores(setting)
    for report_id, metric, value in HumanMetricScore.objects.filter(
        study=study, setting=setting, annotator__pseudonym=annotator, report_id__in=report_ids
    ).values_list("report_id", "metric", "value"):
        if metric == CONSENSUS_METRIC:
            plan.medal_score[report_id] = value
        else:
            out.human[(report_id, metric)] = value
    if judge:
        for report_id, metric, value in JudgeScore.objects.filter(
            judge__name=judge, report_id__in=report_ids
        ).values_list("report_id", "metric", "value"):
            out.model[(report_id, metric)] = value
    return out


def export_pairwise(
    study, *, setting: str, annotator: str, judge: str | None = None, split: str | None = None
) -> list[dict]:
    """The pairwise records of one annotator and setting, as in the released files.

    Order as released: questions by text; per question the reports in the assignment's
    report order and the pairs (1, 2), (1, 3), (2, 3); fields in the released order
    (question, models, question_intent and question_word_length when the intent is known
    and the setting is not ``assigned``, then human_/model_ per metric,
    preference_ranking_norm last). A field is written when any exported report has a value
    for it; a missing value is null. Medal scores come from the medal rankings, or for an
    agreement-only import from its pairwise preferences and mean medal scores. ``split``:
    only the questions of that split (``""``: those without one); None: every split.
    """
    from annotation import progress

    if setting not in Setting.values:
        raise ValueError(f"unknown setting {setting!r}")
    if judge is None:
        judge = default_judge(study.pk)
    who = {"study": study, "setting": setting, "annotator__pseudonym": annotator}
    rankings = MedalRanking.objects.filter(**who)
    prefs = PairwisePreference.objects.filter(**who)
    if split is not None:
        rankings = rankings.filter(question__split=split)
        prefs = prefs.filter(question__split=split)
    rankings = list(rankings.select_related("question", "assignment"))
    plan = _plan_from_rankings(rankings) if rankings else _plan_from_preferences(prefs)
    scores = _scores(study, plan, setting=setting, annotator=annotator, judge=judge)
    report_ids = {x for ps in plan.pairs.values() for p in ps for x in p}
    system = dict(Report.objects.filter(pk__in=report_ids).values_list("pk", "system__name"))
    human_fields, model_fields = scores.human_fields(), scores.model_fields()
    records = []
    ordered = sorted(plan.questions, key=lambda q: plan.questions[q].text)
    for qid in progress.track(ordered, len(ordered), "exporting pairwise", "question"):
        q = plan.questions[qid]
        for a, b in plan.pairs.get(qid, []):
            rec = {"question": q.text, "models": [system[a], system[b]]}
            if q.intent and setting != Setting.ASSIGNED:  # as released: never in assigned files
                rec["question_intent"] = q.intent
                rec["question_word_length"] = len(q.text.split())
            for file_metric, metric in FILE_METRICS.items():
                if file_metric in human_fields:
                    rec[f"human_{file_metric}"] = [
                        scores.human_value(a, file_metric),
                        scores.human_value(b, file_metric),
                    ]
                if file_metric in model_fields:
                    rec[f"model_{file_metric}"] = [
                        scores.model.get((a, metric)),
                        scores.model.get((b, metric)),
                    ]
            rec["preference_ranking_norm"] = [plan.medal_score.get(a), plan.medal_score.get(b)]
            records.append(rec)
    return records


def pairwise_splits(study, *, setting: str, annotator: str) -> list[str]:
    """The splits ("" for none) of the questions one annotator judged in ``setting``.

    Why: the released files are one per split (``pairwise_dev_assigned_ann1.json``) and the
    import reads the split from the file name; one file of every split lost it on re-import.
    """
    who = {"study": study, "setting": setting, "annotator__pseudonym": annotator}
    splits = set(MedalRanking.objects.filter(**who).values_list("question__split", flat=True))
    splits |= set(
        PairwisePreference.objects.filter(**who).values_list("question__split", flat=True)
    )
    return sorted(splits)


#: The word of each setting in the released file names (``pairwise_chosen.json``).
NAME_OF_SETTING = {setting: word for word, setting in SETTING_FROM_NAME.items()}


def pairwise_file_name(setting: str, annotator: str, split: str) -> str:
    """As released: ``pairwise_<split>_<setting word>_<annotator>.json`` (no split: no
    part), the setting by its word in the released names (assigned / chosen / authored).

    Why the word and not the setting's name: the import reads split and setting from a
    file's name (:func:`infer_setting`); ``pairwise_test_near_expert_….json`` named no
    setting it reads, and the names differed from the released files' (a tester)."""
    word = NAME_OF_SETTING.get(setting, setting)
    return f"pairwise_{split + '_' if split else ''}{word}_{annotator}.json"


def expert_agreed_judge(study, judge: str | None) -> str | None:
    """Whose expert-agreed records to write: ``judge``, else the study's default judge when
    it has records, else the first judge (by name) that has."""
    names = sorted(
        set(ExpertAgreedRecord.objects.filter(study=study).values_list("judge_name", flat=True))
    )
    if judge is not None or not names:
        return judge
    fallback = default_judge(study.pk)
    return fallback if fallback in names else names[0]


def export_expert_agreed(study, *, setting: str, judge: str | None = None) -> dict[str, list]:
    """The study's released expert-agreed records (``import_pairwise --expert-agreed``) in
    the released agreement-only files' shape, one list per question split: {split: records}.

    Why: these records (with the file's own judge scores, nulls included) are what compat
    mode reads for ``expert_agreed``; a study exported without them and imported elsewhere
    gave other figures (335 comparisons instead of the script's 332). Order as imported
    (``position``); fields in the released order (question, models, human_/model_ per
    metric, preference_ranking_norm); values as stored, so import -> export gives back the
    released ``pairwise_<split>_assigned_agreement_only.json``.
    """
    judge = expert_agreed_judge(study, judge)
    rows = ExpertAgreedRecord.objects.filter(study=study, setting=setting, judge_name=judge)
    out: dict[str, list] = {}
    for text, split, a, b, preference, human, scores in rows.values_list(
        "question__text", "question__split", "report_a__system__name",
        "report_b__system__name", "preference", "human", "judge_scores",
    ).order_by("position", "id"):  # fmt: skip
        rec = {"question": text, "models": [a, b]}
        for file_metric, metric in FILE_METRICS.items():
            if human_metric(file_metric, setting) in human:
                rec[f"human_{file_metric}"] = human[human_metric(file_metric, setting)]
            if metric in scores:
                rec[f"model_{file_metric}"] = scores[metric]
        rec["preference_ranking_norm"] = preference
        out.setdefault(split, []).append(rec)
    return out


# --- Registration ---------------------------------------------------------------------------

PAIRWISE = register_kind(
    Kind(
        "pairwise",
        "one annotator's pairwise records with one judge's scores (ScholarQA-CS2)",
        default="scholarqa",
    )
)


def _load(source, study, rep: ImportReport, **options) -> None:
    # The collector paused: a 120,000-record file holds millions of live containers and
    # makes no garbage; each full collection walked them all, about a third of the
    # import's Python time (issue 29). Freeing the file's records is part of the pause.
    with gc_paused():
        import_pairwise(read_source(source), study, rep, **options)


def _dump(study, *, setting: str, annotator=None, judge=None, split=None,
          expert_agreed=False) -> dict[str, str]:  # fmt: skip
    """One file per question split, named as released, so that the import of each file
    reads its split from the name: one annotator's records, or with ``expert_agreed`` the
    study's released expert-agreed records (``pairwise_<split>_<setting>_agreement_only``)."""
    import json

    from annotation.importers.downloads import ExportRefused

    def text(records: list) -> str:
        return json.dumps(records, ensure_ascii=False, indent=2) + "\n"

    if expert_agreed:
        if annotator:
            raise ExportRefused([("annotator", "expert-agreed records are no one annotator's: "
                                               f"give no annotator (got {annotator!r})")])  # fmt: skip
        by_split = export_expert_agreed(study, setting=setting, judge=judge)
        return {
            pairwise_file_name(setting, "agreement_only", s): text(records)
            for s, records in sorted(by_split.items())
            if split is None or s == split
        }
    splits = [split] if split else pairwise_splits(study, setting=setting, annotator=annotator)
    return {
        pairwise_file_name(setting, annotator, s): text(
            export_pairwise(study, setting=setting, annotator=annotator, judge=judge, split=s)
        )
        for s in splits or [""]
    }


_SETTING = Option(
    "setting",
    "assigned | near_expert | deep_expert (default: from the file name: assigned / chosen = "
    "near_expert / authored = deep_expert)",
    choices=tuple(Setting.values),
    empty_label="from the file name",
)
_SPLIT = Option(
    "split",
    f"{' | '.join(RELEASED_SPLITS)} (default: from pairwise_dev_* / pairwise_test_*); a "
    "question already in the study keeps its split (another is refused)",
    choices=RELEASED_SPLITS,
    empty_label="from the file name",
)

register(
    Format(
        "pairwise",
        "scholarqa",
        "ScholarQA-CS2 pairwise records: medal rankings, human metric scores, judge scores. "
        "Files named *agreement_only* are read as consensus pairwise preferences.",
        load=_load,
        options=(
            Option(
                "annotator",
                "annotator pseudonym (created when missing); required unless --expert-agreed",
                required_unless="expert_agreed",
                stored_as="annotation.Annotator.pseudonym",
            ),  # fmt: skip
            _SETTING,
            Option(
                "judge",
                "judge of the model_* scores (created when missing)",
                required=True,
                stored_as="judges.Judge.name",
            ),
            _SPLIT,
            Option(
                "consensus",
                "read as an agreement-only file (default: when the name says agreement_only)",
                type=bool,
            ),  # fmt: skip
            Option(
                "expert_agreed",
                "import an agreement-only file as the study's released "
                "expert-agreed records with their own judge scores (no --annotator; what "
                "--compat reads for --expert-agreed)",
                type=bool,
                web_help="import an agreement-only file as the study's released "
                "expert-agreed records, with their own judge scores (then leave "
                "“Annotator” empty): what the agreement report's released-script "
                "comparison reads for its expert-agreed subset",
            ),  # fmt: skip
        ),
        dump=_dump,
        dump_options=(
            Option(
                "setting",
                "assigned | near_expert | deep_expert",
                choices=tuple(Setting.values),
                required=True,
            ),  # fmt: skip
            Option(
                "annotator",
                "annotator pseudonym; required unless expert_agreed",
                required_unless="expert_agreed",
            ),
            Option(
                "judge",
                "judge of the model_* scores (default: the judge with the most "
                "scores in the study)",
            ),  # fmt: skip
            Option(
                "split",
                f"{' | '.join(RELEASED_SPLITS)} (default: one file per split, named as released)",
                choices=RELEASED_SPLITS,
                empty_label="one file per split",
            ),
            Option(
                "expert_agreed",
                "the study's released expert-agreed records (import --expert-agreed), as "
                "the agreement-only files: pairwise_<split>_<setting>_agreement_only.json",
                type=bool,
            ),
        ),
        label="ScholarQA-CS2 pairwise records (one annotator and setting)",
        extension=".json",
        shape=(
            'A JSON list of {"question": "<text>", "models": ["<system>", "<system>"],\n'
            '"question_intent"?, "preference_ranking_norm": [1.0, 0.0] (or null),\n'
            '"human_<metric>": [a, b], "model_<metric>": [a, b]} for the metrics overall,\n'
            "overall_citation, answer_precision, answer_recall, citation_precision,\n"
            "citation_recall (annotation/pairwise_*.json of the release; the setting and split\n"
            "come from the file name when not given)."
        ),
        example=Example(
            Path(__file__).resolve().parent / "examples",
            "scholarqa_pairwise.json",
            {"annotator": "example-expert", "judge": "example-judge", "setting": "near_expert"},
        ),  # fmt: skip
        signatures=(
            Signature.of(
                "a ScholarQA-CS2 pairwise annotation file",
                question=str,
                models=list,
                preference_ranking_norm=list,
            ),
        ),
    )
)
