"""Live judge runs: plan the units of work, execute them, derive the scores.

A run (:class:`~judges.models.JudgeRun`) is planned into units
(:class:`~judges.models.JudgeUnit`): a coverage batch of ≤ 8 rubric items of one report,
one order of a direct pairwise comparison, one report's paragraph relevance, one claim.
Execution (:func:`execute_run`, the body of the Celery task) keeps at most
``concurrency`` LLM calls in flight on a thread pool; threads only talk HTTP and parse,
every database write happens on the task's own thread, one transaction per batch of
completed units (at most ``FLUSH_UNITS`` units or ``FLUSH_EVERY`` seconds of answers): the
responses go into the cache, the result rows are upserted in bulk, the units are marked
done and the run's counters move. Per-unit writes, not HTTP, were what limited a run
against a fast endpoint (a local vLLM answers thousands of requests a second; see
``bench/judge_throughput.py``). Hence:

* a worker that dies loses only the calls in flight and the answers of its last
  ``FLUSH_EVERY`` seconds; :func:`resume_run` queues the run again and the new execution
  skips every unit already done (nothing judged twice), and
* a unit is only marked done if it was still pending, so two executions of one run (a
  redelivered message) cannot both write it; a stale execution also stops as soon as it
  sees that its lease was taken over.

After the units, :func:`finalize` derives per-report scores (JudgeScore) and the ensemble
decisions from the stored unit results; it is a pure recomputation and safe to repeat.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass
from datetime import timedelta
from itertools import combinations

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from annotation import progress
from annotation.models import Citation, CitationAnchor, Paragraph, Report, RubricItem

from . import prompts
from .llm import ChatClient, LLMConfig, LLMError, cache_key
from .models import (
    Judge,
    JudgeClaimVerdict,
    JudgeCoverage,
    JudgePairwise,
    JudgeRelevance,
    JudgeRun,
    JudgeScore,
    JudgeUnit,
    LLMResponse,
)
from .scoring import researchqa, scholarqa

run_logger = logging.getLogger("concord.judge_runs")

Task = JudgeRun.Task
#: Tasks whose units a task kind needs (the ensemble needs coverage and both orders).
UNIT_TASKS = {
    Task.COVERAGE: (Task.COVERAGE,),
    Task.PAIRWISE: (Task.PAIRWISE,),
    Task.ENSEMBLE: (Task.COVERAGE, Task.PAIRWISE),
    Task.RELEVANCE: (Task.RELEVANCE,),
    Task.CITATIONS: (Task.CITATIONS,),
}
#: A running run whose heartbeat is older than this is considered dead (resume allowed).
STALE_AFTER = timedelta(seconds=60)
HEARTBEAT_EVERY = 2.0  # seconds between heartbeats while calls are in flight
UNIT_CHUNK = 500  # pending units read (and their prompts built) at a time
FLUSH_UNITS = 200  # finished units written in one transaction, at most
FLUSH_EVERY = 0.5  # seconds: a finished unit waits at most this long to be written
MAX_ERRORS_KEPT = 50


class RunError(ValueError):
    """A run cannot be created or resumed; the message says why."""


# --- Reports as text --------------------------------------------------------------------------


def report_text(report_id: int) -> str:
    """The report as the judge reads it: section titles and paragraphs, in order."""
    parts: list[str] = []
    current = None
    for section_id, title, text in (
        Paragraph.objects.filter(report_id=report_id)
        .order_by("number")
        .values_list("section_id", "section__title", "text")
    ):
        if section_id != current:
            current = section_id
            if title and title.strip():
                parts.append(f"## {title.strip()}")
        parts.append(text)
    return "\n\n".join(parts)


# --- Planning ---------------------------------------------------------------------------------


def _reports(study, options: dict):
    qs = Report.objects.filter(question__study=study)
    if options.get("systems"):
        qs = qs.filter(system__name__in=options["systems"])
    if options.get("questions"):
        qs = qs.filter(question__external_id__in=options["questions"])
    return qs.select_related("system").order_by("question_id", "system__name")


def plan_units(run: JudgeRun) -> list[JudgeUnit]:
    """The units of a run (not saved). Units whose results this judge already has are left
    out unless ``options["rejudge"]``: a judge never judges the same thing twice."""
    options = run.options or {}
    rejudge = bool(options.get("rejudge"))
    reports = list(_reports(run.study, options))
    kinds = {k for t in run.tasks for k in UNIT_TASKS[t]}
    units: list[JudgeUnit] = []
    if Task.COVERAGE in kinds:
        units += _coverage_units(run, reports, options, rejudge)
    if Task.PAIRWISE in kinds:
        units += _pairwise_units(run, reports, rejudge)
    if Task.RELEVANCE in kinds:
        units += _relevance_units(run, reports, rejudge)
    if Task.CITATIONS in kinds:
        units += _claim_units(run, reports, rejudge)
    return units


def _coverage_units(run, reports, options, rejudge) -> list[JudgeUnit]:
    items = RubricItem.objects.filter(rubric__question__in={r.question_id for r in reports})
    if options.get("rubric_kind"):
        items = items.filter(rubric__kind=options["rubric_kind"])
    by_question: dict[int, list[tuple[int, list[int]]]] = defaultdict(list)
    rubric_items: dict[tuple[int, int], list[int]] = defaultdict(list)
    for item_id, rubric_id, qid in items.order_by("rubric_id", "position").values_list(
        "id", "rubric_id", "rubric__question_id"
    ):
        rubric_items[(qid, rubric_id)].append(item_id)
    for (qid, rubric_id), ids in rubric_items.items():
        by_question[qid].append((rubric_id, ids))
    done = set()
    if not rejudge:
        done = set(
            JudgeCoverage.objects.filter(
                judge=run.judge, report__in=[r.pk for r in reports]
            ).values_list("report_id", "item_id")
        )
    size = int(options.get("items_per_call") or researchqa.ITEMS_PER_CALL)
    out = []
    for r in reports:
        for rubric_id, ids in by_question.get(r.question_id, []):
            for i in range(0, len(ids), size):
                batch = ids[i : i + size]
                if all((r.pk, item) in done for item in batch):
                    continue
                out.append(
                    JudgeUnit(
                        run=run,
                        task=Task.COVERAGE,
                        key=f"coverage:{r.pk}:{rubric_id}:{i // size}",
                        payload={"report": r.pk, "items": batch},
                    )
                )
    return out


def comparisons(reports) -> list[tuple[Report, Report]]:
    """Every pair of reports of one question, in canonical order (A < B by system name)."""
    by_question: dict[int, list[Report]] = defaultdict(list)
    for r in reports:
        by_question[r.question_id].append(r)
    out = []
    for rs in by_question.values():
        rs.sort(key=lambda r: r.system.name)
        out += list(combinations(rs, 2))
    return out


def _pairwise_units(run, reports, rejudge) -> list[JudgeUnit]:
    done = set()
    if not rejudge:
        done = set(
            JudgePairwise.objects.filter(
                judge=run.judge, protocol=JudgePairwise.Protocol.DIRECT
            ).values_list("left_id", "right_id")
        )
    out = []
    for a, b in comparisons(reports):
        for left, right in ((a, b), (b, a)):  # both orders (positional bias)
            if (left.pk, right.pk) in done:
                continue
            out.append(
                JudgeUnit(
                    run=run,
                    task=Task.PAIRWISE,
                    key=f"pairwise:{left.pk}:{right.pk}",
                    payload={"left": left.pk, "right": right.pk},
                )
            )
    return out


def _relevance_units(run, reports, rejudge) -> list[JudgeUnit]:
    done = set()
    if not rejudge:
        done = set(
            JudgeRelevance.objects.filter(
                judge=run.judge, paragraph__report__in=[r.pk for r in reports]
            ).values_list("paragraph__report_id", flat=True)
        )
    return [
        JudgeUnit(run=run, task=Task.RELEVANCE, key=f"relevance:{r.pk}", payload={"report": r.pk})
        for r in reports
        if r.pk not in done
    ]


def report_claims(report_ids) -> dict[int, list[tuple[Paragraph, prompts.Claim]]]:
    """Claims of each report, paragraph by paragraph (two queries)."""
    anchors: dict[int, list[tuple[int, int, str]]] = defaultdict(list)
    for pid, start, end, key in CitationAnchor.objects.filter(
        paragraph__report_id__in=report_ids
    ).values_list("paragraph_id", "start", "end", "citation__key"):
        anchors[pid].append((start, end, key))
    out: dict[int, list] = defaultdict(list)
    for p in Paragraph.objects.filter(pk__in=list(anchors)).order_by("report_id", "number"):
        for claim in prompts.split_claims(p.text, anchors[p.pk]):
            out[p.report_id].append((p, claim))
    return out


def claim_key(paragraph_number: int, claim: prompts.Claim) -> str:
    return f"p{paragraph_number}:{claim.start}-{claim.end}"


def _claim_units(run, reports, rejudge) -> list[JudgeUnit]:
    ids = [r.pk for r in reports]
    done = set()
    if not rejudge:
        done = set(
            JudgeClaimVerdict.objects.filter(judge=run.judge, report__in=ids).values_list(
                "report_id", "key"
            )
        )
    out = []
    for report_id, claims in report_claims(ids).items():
        for paragraph, claim in claims:
            key = claim_key(paragraph.number, claim)
            if (report_id, key) in done:
                continue
            out.append(
                JudgeUnit(
                    run=run,
                    task=Task.CITATIONS,
                    key=f"claim:{report_id}:{key}",
                    payload={
                        "report": report_id,
                        "paragraph": paragraph.pk,
                        "key": key,
                        "start": claim.start,
                        "end": claim.end,
                        "citations": list(claim.citation_keys),
                    },
                )
            )
    return out


def create_run(judge: Judge, study, tasks, options: dict | None = None, user=None) -> JudgeRun:
    """Validate, plan and save a run (queued, not started)."""
    tasks = list(dict.fromkeys(tasks or []))
    if not tasks:
        raise RunError("tasks: name at least one of " + ", ".join(Task.values))
    unknown = [t for t in tasks if t not in Task.values]
    if unknown:
        raise RunError(f"tasks: {', '.join(unknown)} not one of {', '.join(Task.values)}")
    try:
        LLMConfig.for_judge(judge)
    except ValueError as exc:
        raise RunError(str(exc)) from None
    with transaction.atomic():
        run = JudgeRun.objects.create(
            judge=judge,
            study=study,
            tasks=tasks,
            options=options or {},
            requested_by=user,
            lease=uuid.uuid4().hex,
        )
        units = plan_units(run)
        JudgeUnit.objects.bulk_create(units, batch_size=1000)
        run.total_units = len(units)
        run.save(update_fields=["total_units"])
    return run


def start_run(judge: Judge, study, tasks, options: dict | None = None, user=None) -> JudgeRun:
    """Create a run and queue it (runs at once, in-process, when no broker is configured)."""
    from .tasks import run_judge

    run = create_run(judge, study, tasks, options, user)
    run_judge.delay(run.pk, run.lease)
    run.refresh_from_db()
    return run


def is_stale(run: JudgeRun, now=None) -> bool:
    now = now or timezone.now()
    return run.heartbeat_at is None or now - run.heartbeat_at > STALE_AFTER


def resume_run(run: JudgeRun, *, force: bool = False) -> JudgeRun:
    """Queue an unfinished run again under a new lease; completed units are skipped and
    failed ones retried. Refused while the run shows life, unless ``force`` (the caller
    knows its worker is dead)."""
    from .tasks import run_judge

    run.refresh_from_db()
    if run.status == JudgeRun.Status.DONE:
        raise RunError(f"run {run.pk} is done; nothing to resume")
    if run.status == JudgeRun.Status.RUNNING and not force and not is_stale(run):
        raise RunError(
            f"run {run.pk} is running (last heartbeat {run.heartbeat_at:%H:%M:%S}); "
            "resume it when it stops, or force it if its worker is dead"
        )
    lease = uuid.uuid4().hex
    JudgeRun.objects.filter(pk=run.pk).update(
        lease=lease, status=JudgeRun.Status.QUEUED, finished_at=None
    )
    run_judge.delay(run.pk, lease)
    run.refresh_from_db()
    return run


def resume_stale_runs() -> list[int]:
    """Resume every run that says RUNNING but has shown no life for STALE_AFTER."""
    cutoff = timezone.now() - STALE_AFTER
    ids = list(
        JudgeRun.objects.filter(
            status=JudgeRun.Status.RUNNING, heartbeat_at__lt=cutoff
        ).values_list("pk", flat=True)
    )
    for pk in ids:
        resume_run(JudgeRun.objects.get(pk=pk), force=True)
    return ids


def cancel_run(run: JudgeRun) -> None:
    JudgeRun.objects.filter(pk=run.pk).exclude(status=JudgeRun.Status.DONE).update(
        status=JudgeRun.Status.CANCELLED, lease="", finished_at=timezone.now()
    )


# --- Execution --------------------------------------------------------------------------------


@dataclass
class Job:
    """What one unit asks and how its answer is parsed; built on the task's thread."""

    unit: JudgeUnit
    messages: list[dict]
    parse: Callable[[str], object]
    key: str = ""
    #: The answer's JSON schema, for JSON mode / structured outputs (None: a text answer).
    schema: dict | None = None


@dataclass
class Outcome:
    parsed: object
    content: str
    prompt_tokens: int
    completion_tokens: int
    attempts: int
    cached: bool = False
    error: str = ""


def _call(client: ChatClient, job: Job) -> Outcome:
    """On a pool thread: ask, parse, re-ask on a malformed answer. No database access."""
    prompt_tokens = completion_tokens = attempts = 0
    problem = ""
    for _ in range(client.config.format_retries + 1):
        try:
            c = client.complete(job.messages, job.schema)
        except LLMError as exc:  # refusals and failed attempts still cost their tokens
            return Outcome(
                None,
                "",
                prompt_tokens + exc.prompt_tokens,
                completion_tokens + exc.completion_tokens,
                attempts + exc.attempts,
                error=str(exc),
            )
        prompt_tokens += c.prompt_tokens
        completion_tokens += c.completion_tokens
        attempts += c.attempts
        try:
            return Outcome(
                job.parse(c.content), c.content, prompt_tokens, completion_tokens, attempts
            )
        except prompts.MalformedAnswer as exc:
            problem = f"malformed answer: {exc}"
    return Outcome(None, "", prompt_tokens, completion_tokens, attempts, error=problem)


class _LeaseLost(Exception):
    pass


def execute_run(run_id: int, lease: str) -> str:
    """Run every pending unit of a run (the Celery task's body); returns the final status."""
    now = timezone.now()
    claimed = (
        JudgeRun.objects.filter(pk=run_id, lease=lease)
        .exclude(status__in=[JudgeRun.Status.DONE, JudgeRun.Status.CANCELLED])
        .update(status=JudgeRun.Status.RUNNING, heartbeat_at=now)
    )
    if not claimed:  # superseded by a resume, finished or cancelled: nothing to do
        return "skipped"
    run = JudgeRun.objects.select_related("judge", "study").get(pk=run_id)
    log_fields = {"run": run_id, "judge": run.judge.name, "study": run.study_id, "tasks": run.tasks}
    run_logger.info("judge run started", extra={"event": "judge_run_started", **log_fields})
    if run.started_at is None:
        JudgeRun.objects.filter(pk=run_id).update(started_at=now)
    # a resumed run retries the units that failed last time
    retried = run.units.filter(status=JudgeUnit.Status.FAILED).update(
        status=JudgeUnit.Status.PENDING, error=""
    )
    if retried:
        JudgeRun.objects.filter(pk=run_id).update(failed_units=F("failed_units") - retried)
    try:
        config = LLMConfig.for_judge(run.judge)
    except ValueError as exc:
        _fail_run(run_id, lease, str(exc))
        return JudgeRun.Status.FAILED
    client = ChatClient(config)
    context = _Context(run, config)
    try:
        _process(run, lease, client, context)
    except _LeaseLost:
        return "superseded"
    finally:
        client.close()
    scholarqa_style = bool({Task.RELEVANCE, Task.CITATIONS} & set(run.tasks))
    finalize(run.judge, run.study_id, scholarqa_overall=scholarqa_style)
    failed = run.units.filter(status=JudgeUnit.Status.FAILED).exists()
    status = JudgeRun.Status.FAILED if failed else JudgeRun.Status.DONE
    JudgeRun.objects.filter(pk=run_id, lease=lease).exclude(
        status=JudgeRun.Status.CANCELLED
    ).update(status=status, finished_at=timezone.now(), heartbeat_at=timezone.now())
    run_logger.info("judge run finished", extra={"event": "judge_run_finished", **log_fields,
                    "status": str(status), "seconds": round((timezone.now() - now).total_seconds(), 3)})  # fmt: skip
    return status


def _fail_run(run_id: int, lease: str, message: str) -> None:
    run = JudgeRun.objects.get(pk=run_id)
    JudgeRun.objects.filter(pk=run_id, lease=lease).update(
        status=JudgeRun.Status.FAILED,
        errors=(run.errors + [{"unit": None, "error": message}])[-MAX_ERRORS_KEPT:],
        finished_at=timezone.now(),
    )


def _alive(run_id: int, lease: str) -> bool:
    """Heartbeat; False when the lease was taken over or the run cancelled."""
    return bool(
        JudgeRun.objects.filter(pk=run_id, lease=lease, status=JudgeRun.Status.RUNNING).update(
            heartbeat_at=timezone.now()
        )
    )


def _process(run: JudgeRun, lease: str, client: ChatClient, context: _Context) -> None:
    """Keep ``concurrency`` calls in flight; persist finished units in batches.

    Units are read ``UNIT_CHUNK`` at a time (their prompts' texts preloaded in a few queries,
    cached answers looked up in one), and finished outcomes are written together — one
    transaction per batch of up to ``FLUSH_UNITS`` units or ``FLUSH_EVERY`` seconds,
    whichever comes first — so the database cost per unit is a fraction of a query. The
    heartbeat (which also notices a lost lease) runs every ``HEARTBEAT_EVERY`` seconds."""
    limit = client.config.concurrency
    inflight: dict = {}
    ready: list[tuple[Job, Outcome]] = []
    queue: list[Job] = []
    last_id = 0
    exhausted = stopping = False
    last_flush = last_beat = time.monotonic()
    left = run.total_units - run.done_units - run.failed_units
    shown = progress.bar(left, f"judge run {run.pk}", "unit")
    writer = _Writer(run, context)
    try:
        with shown, ThreadPoolExecutor(limit, thread_name_prefix=f"judge-run-{run.pk}") as pool:
            while True:
                if not queue and not exhausted and not stopping and len(inflight) < limit:
                    chunk = list(
                        run.units.filter(status=JudgeUnit.Status.PENDING, pk__gt=last_id).order_by(
                            "pk"
                        )[:UNIT_CHUNK]
                    )
                    exhausted = len(chunk) < UNIT_CHUNK
                    if chunk:
                        last_id = chunk[-1].pk
                        for job, hit in context.jobs(chunk):
                            if hit is not None:
                                ready.append((job, hit))
                            else:
                                queue.append(job)
                while queue and not stopping and len(inflight) < limit:
                    job = queue.pop(0)
                    inflight[pool.submit(_call, client, job)] = job
                now = time.monotonic()
                if ready and (
                    len(ready) >= FLUSH_UNITS
                    or now - last_flush >= FLUSH_EVERY
                    or not inflight
                    or stopping
                ):
                    writer.write(ready)
                    shown.update(len(ready))
                    ready, last_flush = [], now
                if now - last_beat >= HEARTBEAT_EVERY:
                    last_beat = now
                    if not _alive(run.pk, lease):
                        stopping = True  # finish what is in flight, start nothing new
                if not inflight:
                    if stopping or (exhausted and not queue):
                        break
                    continue
                timeout = FLUSH_EVERY if ready else HEARTBEAT_EVERY
                done, _ = wait(inflight, timeout=timeout, return_when=FIRST_COMPLETED)
                for future in done:
                    ready.append((inflight.pop(future), future.result()))
            if ready:
                writer.write(ready)
                shown.update(len(ready))
    except BaseException:
        writer.close(quiet=True)  # the first error is the one to report
        raise
    writer.close()
    if stopping:
        raise _LeaseLost


class _Writer:
    """Writes batches of finished units. On PostgreSQL, on a thread of its own (with its own
    connection) so that calls keep going while a batch commits; one batch at a time, in
    order, each write waiting for the previous one (errors surface in the task). Elsewhere
    (SQLite, or inside a transaction such as a test's) on the task's thread."""

    def __init__(self, run: JudgeRun, context: _Context):
        from django.db import connection

        self.run, self.context = run, context
        threaded = connection.vendor == "postgresql" and not connection.in_atomic_block
        self._pool = ThreadPoolExecutor(1, f"judge-run-{run.pk}-writer") if threaded else None
        self._pending = None

    def write(self, batch: list[tuple[Job, Outcome]]) -> None:
        if self._pool is None:
            _persist(self.run, batch, self.context)
            return
        if self._pending is not None:
            self._pending.result()
        self._pending = self._pool.submit(_persist, self.run, list(batch), self.context)

    def close(self, quiet: bool = False) -> None:
        if self._pool is None:
            return
        try:
            if self._pending is not None:
                if quiet:
                    self._pending.exception()  # wait, without raising
                else:
                    self._pending.result()
        finally:
            self._pool.submit(_close_connection).result()  # the writer thread's own
            self._pool.shutdown()


def _close_connection() -> None:
    from django.db import connection

    connection.close()  # resolved on the calling thread: that thread's connection


def _persist(run: JudgeRun, batch: list[tuple[Job, Outcome]], context: _Context) -> None:
    """One transaction for a batch: settle the units that are still pending (locked, so a
    second execution of the run cannot settle them too), cache the new answers, upsert the
    results and move the run's counters."""
    now = timezone.now()
    with transaction.atomic():
        pending = set(
            JudgeUnit.objects.select_for_update()
            .filter(pk__in=[job.unit.pk for job, _ in batch], status=JudgeUnit.Status.PENDING)
            .values_list("pk", flat=True)
        )
        batch = [(job, o) for job, o in batch if job.unit.pk in pending]
        if not batch:
            return  # another execution settled them first: write nothing
        units, answers = [], {}
        rows: dict[type, list] = defaultdict(list)
        totals = Counter()
        errors = []
        for job, o in batch:
            ok = o.parsed is not None
            unit = job.unit
            cost = context.config.cost(o.prompt_tokens, o.completion_tokens)
            unit.status = JudgeUnit.Status.DONE if ok else JudgeUnit.Status.FAILED
            unit.attempts += o.attempts
            unit.cached = o.cached
            unit.prompt_tokens += o.prompt_tokens
            unit.completion_tokens += o.completion_tokens
            unit.cost += cost
            unit.error = o.error
            unit.finished_at = now
            units.append(unit)
            totals["requests"] += o.attempts
            totals["cache_hits"] += int(o.cached)
            totals["prompt_tokens"] += o.prompt_tokens
            totals["completion_tokens"] += o.completion_tokens
            totals["done_units" if ok else "failed_units"] += 1
            totals["cost"] += cost
            if ok:
                if not o.cached:
                    answers[job.key] = LLMResponse(
                        key=job.key, model=context.config.model, content=o.content,
                        prompt_tokens=o.prompt_tokens, completion_tokens=o.completion_tokens,
                    )  # fmt: skip
                for row in context.rows(unit, o.parsed):
                    rows[type(row)].append(row)
            else:
                errors.append({"unit": unit.key, "error": o.error})
        # an upsert on the units' own key is one statement per 500 units (bulk_update's
        # CASE WHEN per row and field costs more than the calls themselves)
        JudgeUnit.objects.bulk_create(
            units, update_conflicts=True, unique_fields=["run", "key"],
            update_fields=["status", "attempts", "cached", "prompt_tokens", "completion_tokens",
                           "cost", "error", "finished_at"],
            batch_size=500,
        )  # fmt: skip
        if answers:
            LLMResponse.objects.bulk_create(answers.values(), ignore_conflicts=True)
        for model, objs in rows.items():
            unique, update = UPSERT[model]
            model.objects.bulk_create(
                objs, update_conflicts=True, unique_fields=unique, update_fields=update,
                batch_size=500,
            )  # fmt: skip
        updates = {k: F(k) + v for k, v in totals.items()}
        JudgeRun.objects.filter(pk=run.pk).update(**updates, heartbeat_at=now)
        if errors:
            kept = JudgeRun.objects.select_for_update().get(pk=run.pk).errors
            JudgeRun.objects.filter(pk=run.pk).update(errors=(kept + errors)[-MAX_ERRORS_KEPT:])


#: Result models: (their unique fields, the fields a new judgment overwrites).
UPSERT = {
    JudgeCoverage: (["judge", "report", "item"], ["label", "covered", "run"]),
    JudgePairwise: (["judge", "protocol", "left", "right"], ["choice", "rationale", "run"]),
    JudgeRelevance: (["judge", "paragraph"], ["relevant", "rationale", "run"]),
    JudgeClaimVerdict: (
        ["judge", "report", "key"],
        ["text", "verdict", "citations", "rationale", "run"],
    ),
}


class _Context:
    """Builds the units' prompts and result rows (task thread only). What a prompt reads —
    a report's text, paragraphs, citations and question; rubric item texts — is loaded once
    per report (or per chunk of units), not once per unit."""

    def __init__(self, run: JudgeRun, config: LLMConfig):
        self.run = run
        self.judge = run.judge
        self.config = config
        self._texts: dict[int, str] = {}
        self._queries: dict[int, str] = {}
        self._paragraphs: dict[int, list[tuple[int, int, str]]] = {}  # (id, number, text)
        self._citations: dict[int, dict[str, Citation]] = {}
        self._items: dict[int, str] = {}

    def _load(self, units: list[JudgeUnit]) -> None:
        reports = {u.payload.get("report") for u in units} | {
            u.payload.get(k) for u in units for k in ("left", "right")
        }
        reports = {r for r in reports if r is not None} - set(self._queries)
        if reports:
            self._queries.update(
                Report.objects.filter(pk__in=reports).values_list("pk", "question__text")
            )
            for rid in reports:
                self._paragraphs[rid] = []
                self._citations[rid] = {}
            for pid, rid, number, text in (
                Paragraph.objects.filter(report_id__in=reports)
                .order_by("report_id", "number")
                .values_list("pk", "report_id", "number", "text")
            ):
                self._paragraphs[rid].append((pid, number, text))
            for c in Citation.objects.filter(report_id__in=reports):
                self._citations[c.report_id][c.key] = c
        items = {i for u in units for i in u.payload.get("items", ())} - set(self._items)
        if items:
            self._items.update(RubricItem.objects.filter(pk__in=items).values_list("id", "text"))

    def text(self, report_id: int) -> str:
        if report_id not in self._texts:
            self._texts[report_id] = report_text(report_id)
        return self._texts[report_id]

    def query(self, report_id: int) -> str:
        return self._queries[report_id]

    def jobs(self, units: list[JudgeUnit]) -> list[tuple[Job, Outcome | None]]:
        """Each unit's job and, when the answer cache has a valid answer, its outcome."""
        self._load(units)
        jobs = []
        for unit in units:
            job = self.job(unit)
            job.key = cache_key(self.config, job.messages, job.schema)
            jobs.append(job)
        cached = dict(
            LLMResponse.objects.filter(key__in=[j.key for j in jobs]).values_list("key", "content")
        )
        out = []
        for job in jobs:
            hit = None
            if job.key in cached:
                try:
                    hit = Outcome(job.parse(cached[job.key]), cached[job.key], 0, 0, 0, cached=True)
                except prompts.MalformedAnswer:
                    hit = None
            out.append((job, hit))
        return out

    def job(self, unit: JudgeUnit) -> Job:
        p = unit.payload
        if unit.task == Task.COVERAGE:
            texts = [self._items[i] for i in p["items"]]
            n = len(texts)
            return Job(unit, prompts.coverage_messages(self.text(p["report"]), texts),
                       lambda c: prompts.parse_coverage(c, n))  # fmt: skip
        if unit.task == Task.PAIRWISE:
            messages = prompts.pairwise_messages(
                self.query(p["left"]), self.text(p["left"]), self.text(p["right"])
            )
            return Job(unit, messages, prompts.parse_pairwise)
        if unit.task == Task.RELEVANCE:
            paragraphs = [(n, t) for _, n, t in self._paragraphs[p["report"]]]
            numbers = [n for n, _ in paragraphs]
            return Job(unit, prompts.relevance_messages(self.query(p["report"]), paragraphs),
                       lambda c: prompts.parse_relevance(c, numbers),
                       schema=prompts.RELEVANCE_SCHEMA)  # fmt: skip
        if unit.task == Task.CITATIONS:
            cites = self._citations[p["report"]]
            text = self._paragraph_text(p["report"], p["paragraph"])
            blocks = [
                {"key": k, "title": cites[k].title, "snippets": cites[k].snippets}
                for k in p["citations"]
                if k in cites
            ]
            keys = [b["key"] for b in blocks]
            claim = text[p["start"] : p["end"]]
            return Job(unit, prompts.claim_messages(self.query(p["report"]), claim, blocks),
                       lambda c: prompts.parse_claim(c, keys),
                       schema=prompts.CLAIM_SCHEMA)  # fmt: skip
        raise ValueError(f"unknown task {unit.task!r}")

    def _paragraph_text(self, report_id: int, paragraph_id: int) -> str:
        for pid, _, text in self._paragraphs[report_id]:
            if pid == paragraph_id:
                return text
        raise ValueError(f"paragraph {paragraph_id} is not in report {report_id}")

    def rows(self, unit: JudgeUnit, parsed) -> list:
        """The result rows of a unit's parsed answer (written by :func:`_persist`)."""
        p = unit.payload
        judge, run = self.judge, self.run
        if unit.task == Task.COVERAGE:
            return [
                JudgeCoverage(judge=judge, report_id=p["report"], item_id=item_id, label=label,
                              covered=None, run=run)
                for item_id, label in zip(p["items"], parsed, strict=True)
            ]  # fmt: skip
        if unit.task == Task.PAIRWISE:
            which, rationale = parsed
            return [
                JudgePairwise(judge=judge, protocol=JudgePairwise.Protocol.DIRECT,
                              left_id=p["left"], right_id=p["right"],
                              choice="left" if which == 1 else "right", rationale=rationale,
                              run=run)
            ]  # fmt: skip
        if unit.task == Task.RELEVANCE:
            flagged = parsed
            return [
                JudgeRelevance(judge=judge, paragraph_id=pid, relevant=number not in flagged,
                               rationale=flagged.get(number, ""), run=run)
                for pid, number, _ in self._paragraphs[p["report"]]
            ]  # fmt: skip
        if unit.task == Task.CITATIONS:
            verdict, supporting, rationale = parsed
            cites = self._citations[p["report"]]
            citations = [
                {"key": k, "supports": k in supporting,
                 "title_only": not any(s.strip() for s in (cites[k].snippets if k in cites
                                                             else None) or [])}
                for k in p["citations"]
            ]  # fmt: skip
            text = self._paragraph_text(p["report"], p["paragraph"])
            return [
                JudgeClaimVerdict(judge=judge, report_id=p["report"], key=p["key"],
                                  text=text[p["start"] : p["end"]], verdict=verdict,
                                  citations=citations, rationale=rationale, run=run)
            ]  # fmt: skip
        raise ValueError(f"unknown task {unit.task!r}")


# --- Derived scores ---------------------------------------------------------------------------

ENSEMBLE_NOTE = "J_ensemble (ResearchQA §3.3): 4·(I + I′) + Σ coverage labels"


def _set_scores(judge: Judge, values: dict[tuple[int, str], float]) -> None:
    JudgeScore.objects.bulk_create(
        [JudgeScore(judge=judge, report_id=rid, metric=m, value=v) for (rid, m), v in values.items()],
        update_conflicts=True, unique_fields=["judge", "report", "metric"],
        update_fields=["value"], batch_size=500,
    )  # fmt: skip


def finalize(judge: Judge, study_id: int, *, scholarqa_overall: bool = False) -> None:
    """Derive per-report scores and ensemble decisions of ``judge`` in a study from the
    stored judgments. Only complete evidence counts: a report's coverage needs every item
    of its rubrics, its relevance every paragraph, its citation scores every claim.

    With ``scholarqa_overall`` (a live ScholarQA-CS2-style run: relevance or citations) the
    coverage also stands as ScholarQA-CS2's answer recall (rubric-ingredient coverage,
    seed 003 §3) and ``overall`` is the mean of the four; otherwise those two metrics are
    left as they are (an imported judge keeps its own)."""
    reports = list(Report.objects.filter(question__study_id=study_id).select_related("system"))
    ids = [r.pk for r in reports]
    with transaction.atomic():
        scores: dict[tuple[int, str], float] = {}
        coverage = _coverage_labels(judge, reports)
        for rid, labels in coverage.items():
            value = researchqa.answer_coverage(labels)
            scores[(rid, "rubric_coverage")] = value
            if scholarqa_overall:
                scores[(rid, "answer_recall")] = value
        scores.update(_relevance_scores(judge, ids))
        scores.update(_citation_scores(judge, ids))
        for rid in ids if scholarqa_overall else ():
            parts = [scores.get((rid, m)) for m in scholarqa.METRICS]
            if all(v is not None for v in parts):
                scores[(rid, "overall")] = scholarqa.overall(*parts)
        _set_scores(judge, scores)
        _ensembles(judge, reports, coverage)


def _coverage_labels(judge: Judge, reports) -> dict[int, list[int]]:
    items_of: dict[int, set[int]] = defaultdict(set)
    for item_id, qid in RubricItem.objects.filter(
        rubric__question__in={r.question_id for r in reports}
    ).values_list("id", "rubric__question_id"):
        items_of[qid].add(item_id)
    labels: dict[int, dict[int, int]] = defaultdict(dict)
    for rid, item_id, label in JudgeCoverage.objects.filter(
        judge=judge, report__in=[r.pk for r in reports], label__isnull=False
    ).values_list("report_id", "item_id", "label"):
        labels[rid][item_id] = label
    out = {}
    for r in reports:
        wanted = items_of.get(r.question_id)
        got = labels.get(r.pk, {})
        if wanted and wanted <= set(got):
            out[r.pk] = [got[i] for i in sorted(wanted)]
    return out


def _relevance_scores(judge: Judge, ids) -> dict:
    paragraphs = defaultdict(set)
    for pid, rid in Paragraph.objects.filter(report_id__in=ids).values_list("id", "report_id"):
        paragraphs[rid].add(pid)
    flags = defaultdict(dict)
    for pid, rid, relevant in JudgeRelevance.objects.filter(
        judge=judge, paragraph__report_id__in=ids
    ).values_list("paragraph_id", "paragraph__report_id", "relevant"):
        flags[rid][pid] = relevant
    out = {}
    for rid, pids in paragraphs.items():
        got = flags.get(rid, {})
        if pids and pids <= set(got):
            out[(rid, "answer_relevance")] = scholarqa.answer_relevance(not got[p] for p in pids)
    return out


def _citation_scores(judge: Judge, ids) -> dict:
    verdicts = defaultdict(dict)
    for v in JudgeClaimVerdict.objects.filter(judge=judge, report_id__in=ids):
        verdicts[v.report_id][v.key] = v
    out = {}
    for rid, claims in report_claims(ids).items():
        keys = [claim_key(p.number, c) for p, c in claims]
        got = verdicts.get(rid, {})
        if not keys or not all(k in got for k in keys):
            continue
        credits, recall = [], []
        for k in keys:
            v = got[k]
            cs = v.citations or []
            credits.append([scholarqa.citation_credit(c["supports"], c["title_only"]) for c in cs])
            if v.verdict == JudgeClaimVerdict.Verdict.SUPPORTED:
                supporting = [c for c in cs if c["supports"]]
                title_only = bool(supporting) and all(c["title_only"] for c in supporting)
                recall.append(scholarqa.TITLE_ONLY_SUPPORTS if title_only else 1.0)
            else:
                recall.append(0.0)
        out[(rid, "citation_precision")] = scholarqa.citation_precision(credits)
        out[(rid, "citation_recall")] = scholarqa.citation_recall(recall)
    return out


def _ensembles(judge: Judge, reports, coverage: dict[int, list[int]]) -> None:
    direct = {
        (left, right): choice
        for left, right, choice in JudgePairwise.objects.filter(
            judge=judge, protocol=JudgePairwise.Protocol.DIRECT, left__in=[r.pk for r in reports]
        ).values_list("left_id", "right_id", "choice")
    }
    rows = []
    for a, b in comparisons(reports):
        first, swapped = direct.get((a.pk, b.pk)), direct.get((b.pk, a.pk))
        if first is None or swapped is None or a.pk not in coverage or b.pk not in coverage:
            continue
        prefers_a, prefers_a_swapped = first == "left", swapped == "right"
        score_a = researchqa.ensemble_score(prefers_a, prefers_a_swapped, coverage[a.pk])
        score_b = researchqa.ensemble_score(not prefers_a, not prefers_a_swapped, coverage[b.pk])
        decision = researchqa.ensemble_decision(score_a, score_b)
        rows.append(
            JudgePairwise(judge=judge, protocol=JudgePairwise.Protocol.ENSEMBLE, left=a, right=b,
                          choice={1: "left", -1: "right", 0: "tie"}[decision],
                          score_left=score_a, score_right=score_b, rationale=ENSEMBLE_NOTE)
        )  # fmt: skip
    JudgePairwise.objects.bulk_create(
        rows, update_conflicts=True, unique_fields=["judge", "protocol", "left", "right"],
        update_fields=["choice", "score_left", "score_right", "rationale"], batch_size=500,
    )  # fmt: skip
