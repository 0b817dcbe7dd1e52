"""The demo: Concord's own content, loaded through the real import path (``make run``).

Content lives in ``fixtures/demo/`` as data files:

* ``questions.json``: six questions with typed, weighted rubrics (generic ``jsonl`` question
  format; ids are :func:`annotation.importers.question_key` of the text, so that the
  ScholarQA report files, which know questions by text only, meet the same rows);
* ``reports/<system>.json``: one ScholarQA-CS2 report file per system;
* ``demo.json``: the study, per-system quality levels, the two simulated judges, two
  runs (seeds) of a simulated direct pairwise judge asked in both orders (the judge card's
  position bias and self-agreement, issue 27), the accounts, and every annotator's queue, with the hand-written submitted medal rankings.

Questions and reports go through :func:`annotation.importers.run`; everything else is
written here, by natural key, so that loading twice changes nothing. Judge scores and
human metric-wise scores are drawn from seeded generators around each system's quality
level: the same on every run and every machine.

The accounts have their user name as password, so :func:`load` refuses to run unless
``settings.DEBUG`` is on.
"""

from __future__ import annotations

import json
import random
import zlib
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from annotation import importers, roles
from annotation.models import (
    Annotator,
    Assignment,
    DeepScholarLabel,
    HumanMetricScore,
    Medal,
    MedalRanking,
    Question,
    Report,
    Setting,
    Study,
    StudyResearcher,
)
from judges.models import Judge, JudgePairwise, JudgeRun, JudgeScore
from metaeval.frame import METRICS
from studio.studyadmin.deletion import purge_study

FIXTURES = Path(settings.FIXTURES_DIR) / "demo"
#: The four metrics whose mean is ``overall`` (METHODS §3, §4).
COMPONENTS = tuple(m for m in METRICS if m != "overall")
SETTING = Setting.ASSIGNED


class DemoRefused(Exception):
    """The demo would create accounts with known passwords outside DEBUG."""


class DemoContentError(Exception):
    """The fixture files are inconsistent (a bug in the demo content, not in the data)."""


@dataclass
class DemoSummary:
    study: Study
    created: dict[str, int] = field(default_factory=dict)
    imports: list[str] = field(default_factory=list)

    def count(self, table: str, n: int = 1) -> None:
        if n:
            self.created[table] = self.created.get(table, 0) + n


def load(*, reset: bool = False, fixtures: Path = FIXTURES) -> DemoSummary:
    """Load the demo (idempotent). With ``reset`` the demo study is deleted first."""
    if not settings.DEBUG:
        raise DemoRefused(
            "the demo creates accounts whose password is their user name "
            "(admin/admin, researcher/researcher, annotator1/annotator1, ...); "
            "it only runs with DEBUG on. Nothing was created."
        )
    plan = _read_json(fixtures / "demo.json")
    _check_content(plan, fixtures)
    with transaction.atomic():
        if reset:
            for old in Study.objects.filter(name=plan["study"]["name"]):
                purge_study(old)  # judgments are protected from cascades: named deletion
        study, created = Study.objects.get_or_create(
            name=plan["study"]["name"],
            defaults={
                "description": plan["study"]["description"],
                # every task its content supports: the DeepScholar label tasks need
                # nuggets and exemplars, which the demo does not have
                "tasks": [t for t in Study.Task.values if t not in DeepScholarLabel.Kind.values],
                "config": {},
            },
        )
        summary = DemoSummary(study=study)
        summary.count("Study", int(created))
        _import_content(study, plan, fixtures, summary)
        reports = _reports(study, plan)
        _judge_scores(plan, reports, summary)
        _pairwise_judges(study, plan, reports, summary)
        annotators = _accounts(plan, summary, study)
        _assignments(study, plan, reports, annotators, summary)
    return summary


# --- Content ---------------------------------------------------------------------------------


def _read_json(path: Path):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise DemoContentError(f"{path}: {exc}") from exc


def _check_content(plan: dict, fixtures: Path) -> None:
    """Fail early and clearly when the fixture files do not fit together."""
    questions = _read_json(fixtures / "questions.json")
    ids = {q["id"] for q in questions}
    for q in questions:
        if q["id"] != importers.question_key(q["query"]):
            raise DemoContentError(
                f"questions.json: id {q['id']!r} is not question_key() of its text; the "
                "ScholarQA report files would not meet this question"
            )
    problems = []
    for system in plan["systems"]:
        path = fixtures / "reports" / f"{system}.json"
        texts = {importers.question_key(r["question"]) for r in _read_json(path)}
        if texts != ids:
            problems.append(f"{path.name} does not answer exactly the questions of questions.json")
    for q in plan["questions"]:
        if q["id"] not in ids:
            problems.append(f"demo.json: unknown question {q['id']!r} ({q.get('topic')})")
        if len(q["systems"]) != 3 or not set(q["systems"]) <= set(plan["systems"]):
            problems.append(f"demo.json: {q.get('topic')}: a medal ranking needs 3 known systems")
        for a in q["assignments"]:
            medals = a.get("medals")
            if medals is None:
                continue
            if set(medals) != set(q["systems"]) or not set(medals.values()) <= set(Medal.SCORE):
                problems.append(f"demo.json: {q.get('topic')}: medals must cover its 3 systems")
            elif len(set(medals.values())) == 1:
                problems.append(f"demo.json: {q.get('topic')}: a three-way tie")
    if problems:
        raise DemoContentError("\n".join(problems))


def _import_content(study: Study, plan: dict, fixtures: Path, summary: DemoSummary) -> None:
    """Questions, then one report file per system, through the real importer."""
    jobs = [("questions", fixtures / "questions.json", {"format": "jsonl"})]
    jobs += [
        ("reports", fixtures / "reports" / f"{s}.json", {"format": "scholarqa", "system": s})
        for s in sorted(plan["systems"])
    ]
    for kind, path, options in jobs:
        rep = importers.run(kind, path, study=study, **options)
        summary.imports.append(f"{path.relative_to(fixtures)}: {rep.summary()}")
        for table, n in rep.created.items():
            summary.count(table, n)


def _reports(study: Study, plan: dict) -> dict[tuple[str, str], Report]:
    """Every (question external id, system name) -> Report; all must exist after import."""
    reports = {
        (r.question.external_id, r.system.name): r
        for r in Report.objects.filter(question__study=study).select_related("question", "system")
    }
    expected = {
        (qid, s)
        for qid in Question.objects.filter(study=study).values_list("external_id", flat=True)
        for s in plan["systems"]
    }
    missing = expected - set(reports)
    if missing:
        raise DemoContentError(f"{len(missing)} demo reports missing after import")
    return reports


# --- Judges ----------------------------------------------------------------------------------


def _rng(*parts) -> random.Random:
    """A generator seeded by the parts' text: stable across runs, processes and machines."""
    return random.Random(zlib.crc32("|".join(map(str, parts)).encode("utf-8")))


def _clip(x: float, lo: float = 0.0, hi: float = 1.0) -> float:
    return min(hi, max(lo, x))


def judge_value(judge: dict, level: dict, question: str, system: str, metric: str) -> float:
    """A judge's score: the system's level, a per-report shift both judges share, own noise."""
    shared = _rng("report", question, system, metric).gauss(0.0, 0.05)
    own = _rng("judge", judge["name"], question, system, metric).gauss(0.0, judge["noise"])
    return round(_clip(level[metric] + judge["bias"] + shared + own, 0.02, 1.0), 3)


def _judge_scores(plan: dict, reports: dict, summary: DemoSummary) -> None:
    for spec in plan["judges"]:
        judge, created = Judge.objects.get_or_create(
            name=spec["name"],
            defaults={
                "provider": spec["provider"],
                "model": spec["model"],
                "prompt_version": spec["prompt_version"],
                "parameters": {"simulated": True, "source": "Concord demo"},
            },
        )
        summary.count("Judge", int(created))
        wanted = {}
        for (qid, system), report in reports.items():
            values = {
                m: judge_value(spec, plan["systems"][system], qid, system, m) for m in COMPONENTS
            }
            values["overall"] = round(sum(values.values()) / len(COMPONENTS), 4)
            for metric, value in values.items():
                wanted[(report.pk, metric)] = value
        _sync_judge_scores(judge, wanted, summary)


def _sync_judge_scores(judge: Judge, wanted: dict, summary: DemoSummary) -> None:
    """Create missing scores, correct changed ones, leave equal ones alone."""
    existing = {
        (s.report_id, s.metric): s
        for s in JudgeScore.objects.filter(judge=judge, report_id__in={r for r, _ in wanted})
    }
    new, changed = [], []
    for (report_id, metric), value in wanted.items():
        score = existing.get((report_id, metric))
        if score is None:
            new.append(JudgeScore(judge=judge, report_id=report_id, metric=metric, value=value))
        elif score.value != value:
            score.value = value
            changed.append(score)
    JudgeScore.objects.bulk_create(new)
    JudgeScore.objects.bulk_update(changed, ["value"])
    summary.count("JudgeScore", len(new))


def pairwise_choice(spec: dict, level_left: float, level_right: float, question: str,
                    left: str, right: str) -> str:  # fmt: skip
    """A simulated direct pairwise verdict on (left shown first, right): the two reports'
    quality (their systems' mean level and the per-report shifts the score judges share)
    seen through the run's own noise; within ``tie_margin`` a tie, within ``first_margin``
    the report shown first (position bias where the reports are close), else the better."""
    own = _rng("pairwise", spec["name"], question, left, right).gauss(0.0, spec["noise"])
    shift = [sum(_rng("report", question, s, m).gauss(0.0, 0.05) for m in COMPONENTS) / 4
             for s in (left, right)]  # fmt: skip
    d = level_left + shift[0] - level_right - shift[1] + own
    if abs(d) <= spec["tie_margin"]:
        return JudgePairwise.Choice.TIE
    if abs(d) <= spec["first_margin"]:
        return JudgePairwise.Choice.LEFT
    return JudgePairwise.Choice.LEFT if d > 0 else JudgePairwise.Choice.RIGHT


def _pairwise_judges(study: Study, plan: dict, reports: dict, summary: DemoSummary) -> None:
    """Each simulated pairwise judge's run: both orders of every comparison of the
    questions' three systems, and the run's record (tokens, price, time) as a live run
    writes it."""
    from itertools import permutations

    level = {s: sum(v[m] for m in COMPONENTS) / len(COMPONENTS) for s, v in plan["systems"].items()}
    for spec in plan.get("pairwise_judges", []):
        judge, created = Judge.objects.get_or_create(
            name=spec["name"],
            defaults={"provider": spec["provider"], "model": spec["model"],
                      "prompt_version": spec["prompt_version"],
                      "parameters": {**spec["parameters"], "simulated": True,
                                     "input_price_per_mtok": spec["input_price_per_mtok"],
                                     "output_price_per_mtok": spec["output_price_per_mtok"]}},
        )  # fmt: skip
        summary.count("Judge", int(created))
        pairs = [
            (q["id"], a, b) for q in plan["questions"] for a, b in permutations(q["systems"], 2)
        ]
        run = JudgeRun.objects.filter(judge=judge, study=study).first()
        if run is None:
            n, ptok, ctok = len(pairs), spec["prompt_tokens"], spec["completion_tokens"]
            finished = timezone.now()
            run = JudgeRun.objects.create(
                judge=judge, study=study, tasks=[JudgeRun.Task.PAIRWISE],
                status=JudgeRun.Status.DONE, total_units=n, done_units=n, requests=n,
                prompt_tokens=n * ptok, completion_tokens=n * ctok,
                cost=n * (ptok * spec["input_price_per_mtok"]
                          + ctok * spec["output_price_per_mtok"]) / 1e6,
                started_at=finished - timedelta(seconds=n * spec["seconds_per_unit"]),
                finished_at=finished,
            )  # fmt: skip
            summary.count("JudgeRun")
        have = set(JudgePairwise.objects.filter(judge=judge, protocol="direct")
                   .values_list("left_id", "right_id"))  # fmt: skip
        new = [
            JudgePairwise(judge=judge, protocol=JudgePairwise.Protocol.DIRECT, run=run,
                          left=reports[(q, a)], right=reports[(q, b)],
                          choice=pairwise_choice(spec, level[a], level[b], q, a, b))
            for q, a, b in pairs if (reports[(q, a)].pk, reports[(q, b)].pk) not in have
        ]  # fmt: skip
        JudgePairwise.objects.bulk_create(new)
        summary.count("JudgePairwise", len(new))


# --- People ----------------------------------------------------------------------------------


def _accounts(plan: dict, summary: DemoSummary, study: Study) -> dict[str, Annotator]:
    """The demo accounts (password = user name), their roles and annotator profiles; the
    researchers are added to the demo study (a researcher reads only their studies)."""
    User = get_user_model()
    annotators = {}
    for spec in plan["accounts"]:
        name = spec["username"]
        user, created = User.objects.get_or_create(username=name)
        summary.count("User", int(created))
        superuser = bool(spec.get("superuser"))
        dirty = created or not user.check_password(name)
        if dirty:
            user.set_password(name)
        if superuser and not (user.is_superuser and user.is_staff):
            user.is_superuser = user.is_staff = True
            dirty = True
        if dirty:
            user.save()
        for role in spec["roles"]:
            roles.grant(user, role)
        if roles.RESEARCHER in spec["roles"]:
            _, added = StudyResearcher.objects.get_or_create(study=study, user=user)
            summary.count("StudyResearcher", int(added))
        profile = spec.get("annotator")
        if profile:
            annotator, created = Annotator.objects.get_or_create(user=user, defaults=profile)
            summary.count("Annotator", int(created))
            annotators[name] = annotator
    return annotators


# --- Assignments and judgments ---------------------------------------------------------------


def report_order(annotator: str, question: str, task: str, report_ids: list[int]) -> list[int]:
    """The order an annotator sees the reports in: shuffled once with a fixed seed."""
    seed = zlib.crc32(f"demo|{annotator}|{question}|{task}".encode())
    return Assignment.shuffled(report_ids, seed=seed)


def _assignments(study, plan, reports, annotators, summary: DemoSummary) -> None:
    questions = {q.external_id: q for q in Question.objects.filter(study=study)}
    positions: dict[str, int] = {}
    now = timezone.now()
    for entry in plan["questions"]:
        question = questions[entry["id"]]
        chosen = [reports[(entry["id"], s)] for s in entry["systems"]]
        for spec in entry["assignments"]:
            username, task = spec["annotator"], spec["task"]
            annotator = annotators[username]
            positions[username] = positions.get(username, 0) + 1
            order = report_order(username, entry["id"], task, [r.pk for r in chosen])
            submitted = bool(spec.get("medals") or spec.get("submitted"))
            rng = _rng("time", username, entry["id"], task)
            seconds = rng.randint(900, 2400) if submitted else 0
            started = now - timedelta(days=rng.randint(2, 9), seconds=seconds)
            assignment, created = Assignment.objects.get_or_create(
                study=study,
                annotator=annotator,
                question=question,
                task=task,
                setting=SETTING,
                defaults={
                    "report_order": order,
                    "position": positions[username],
                    "status": Assignment.Status.SUBMITTED
                    if submitted
                    else Assignment.Status.NOT_STARTED,
                    "started_at": started if submitted else None,
                    "submitted_at": started + timedelta(seconds=seconds) if submitted else None,
                    "seconds_on_task": seconds,
                },
            )
            summary.count("Assignment", int(created))
            if not created and set(assignment.report_order) != {r.pk for r in chosen}:
                # The reports were re-created (e.g. deleted by hand): point at the new ones.
                assignment.report_order = order
                assignment.save(update_fields=["report_order"])
            if spec.get("medals"):
                _ranking(study, annotator, question, assignment, entry, spec, reports, summary)
            elif submitted and task == Study.Task.METRIC_WISE:
                _metric_scores(
                    study, username, annotator, question, assignment, entry, plan, summary
                )


def _ranking(study, annotator, question, assignment, entry, spec, reports, summary) -> None:
    ranking, created = MedalRanking.objects.get_or_create(
        study=study,
        annotator=annotator,
        question=question,
        setting=SETTING,
        defaults={"assignment": assignment, "reasoning": spec["reasoning"]},
    )
    summary.count("MedalRanking", int(created))
    for system, medal in spec["medals"].items():
        _, created = Medal.objects.get_or_create(
            ranking=ranking, report=reports[(entry["id"], system)], defaults={"medal": medal}
        )
        summary.count("Medal", int(created))


def human_scores(annotator: str, question: str, system: str, level: dict, paragraphs: int):
    """Metric-wise human scores on the judge's scale, quantised as the forms produce them.

    answer_relevance: mean paragraph credit (R 1, U 0.5, O 0) over the report's paragraphs;
    answer_recall: (Likert - 1) / 4; citation_precision: supporting credit over 5 claims
    with about 2 citations each (steps of 1/20); citation_recall: mean coverage of 5 claims
    (steps of 1/10); overall: the mean of the four (METHODS §3).
    """
    rng = _rng("human", annotator, question, system)
    noisy = {m: _clip(level[m] + rng.gauss(0.0, 0.08)) for m in COMPONENTS}
    steps = {
        "answer_relevance": 2 * max(paragraphs, 1),
        "answer_recall": 4,
        "citation_precision": 20,
        "citation_recall": 10,
    }
    values = {m: round(round(noisy[m] * steps[m]) / steps[m], 4) for m in COMPONENTS}
    values["overall"] = round(sum(values.values()) / len(COMPONENTS), 4)
    return values


def _metric_scores(study, username, annotator, question, assignment, entry, plan, summary):
    existing = set(
        HumanMetricScore.objects.filter(
            study=study, annotator=annotator, question=question, setting=SETTING
        ).values_list("report_id", "metric")
    )
    reports = {
        r.system.name: r
        for r in Report.objects.filter(question=question, system__name__in=entry["systems"])
        .select_related("system")
        .prefetch_related("paragraphs")
    }
    new = []
    for system in entry["systems"]:
        report = reports[system]
        values = human_scores(
            username,
            entry["id"],
            system,
            plan["systems"][system],
            len(report.paragraphs.all()),
        )
        new += [
            HumanMetricScore(
                study=study,
                annotator=annotator,
                question=question,
                setting=SETTING,
                assignment=assignment,
                report=report,
                metric=metric,
                value=value,
            )
            for metric, value in values.items()
            if (report.pk, metric) not in existing
        ]
    HumanMetricScore.objects.bulk_create(new)
    summary.count("HumanMetricScore", len(new))
