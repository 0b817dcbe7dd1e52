"""Executing judge runs: chunks of units leased to Celery tasks, calls in flight, batched
writes.

A run's units are split into chunks (:class:`~judges.models.JudgeChunk`, about
``CHUNK_UNITS`` units each); each chunk is one Celery task holding its own lease
(:mod:`concord.leases`), so two workers share one run and a worker that dies loses only
its chunk. Within a chunk, at most ``concurrency`` LLM calls are in flight on a thread pool;
threads only talk HTTP and parse, every database write happens in batches (at most
``FLUSH_UNITS`` units or ``FLUSH_EVERY`` seconds of answers, one transaction each): the
responses go into the cache, the result rows are upserted in bulk, the units are marked
done and the run's counters move. Per-unit writes, not HTTP, were what limited a run
against a fast endpoint (see ``bench/judge_throughput.py``). Hence:

* a worker that dies loses only the calls in flight of its chunk and the answers of its
  last ``FLUSH_EVERY`` seconds; the chunk's heartbeat stops, :func:`take_over_stale` leases
  it again and the new execution skips every unit already done (nothing judged twice);
* a unit is only marked done if it was still pending (the rows are locked), so two
  executions cannot both write it; a stale execution also stops as soon as its heartbeat
  finds that its lease was taken over or the run cancelled;
* the chunk that settles last derives the run's scores (:func:`judges.kinds.finalize`, a
  pure recomputation) and closes the run, under a lock on the run's row.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections import Counter, defaultdict, deque
from dataclasses import dataclass
from datetime import timedelta
from queue import Empty, SimpleQueue

from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone

from annotation import progress, webhooks
from annotation.models import Citation, Paragraph, Report, RubricItem, cited
from concord.leases import Leases, new_lease

from . import llm, pools, prompts, writes
from .kinds import Job, finalize, kind, report_text, scholarqa_style
from .llm import ChatClient, LLMConfig, LLMError, cache_key
from .models import JudgeChunk, JudgeRun, JudgeUnit, LLMResponse

run_logger = logging.getLogger("concord.judge_runs")

#: A running run or chunk whose heartbeat is older than this is considered dead.
STALE_AFTER = timedelta(seconds=60)
HEARTBEAT_EVERY = 2.0  # seconds between heartbeats while calls are in flight
CHUNK_UNITS = 100  # units of a chunk, about: a run of n units has ceil(n / 100) chunks
UNIT_CHUNK = 500  # pending units read (and their prompts built) at a time
FLUSH_UNITS = 200  # finished units written in one transaction, at most
FLUSH_EVERY = 0.5  # seconds: a finished unit waits at most this long to be written
MAX_ERRORS_KEPT = 50

RunStatus, ChunkStatus = JudgeRun.Status, JudgeChunk.Status
#: Judge runs' statuses as the lease module knows them (stored names unchanged).
RUNS = Leases(
    JudgeRun,
    queued=RunStatus.QUEUED,
    running=RunStatus.RUNNING,
    final=(RunStatus.DONE, RunStatus.CANCELLED),
    stale_after=STALE_AFTER,
    heartbeat_every=HEARTBEAT_EVERY,
)
CHUNKS = Leases(
    JudgeChunk,
    queued=ChunkStatus.QUEUED,
    running=ChunkStatus.RUNNING,
    final=(ChunkStatus.DONE,),
    claimable=(ChunkStatus.QUEUED,),
    stale_after=STALE_AFTER,
    heartbeat_every=HEARTBEAT_EVERY,
)


# --- Chunks -----------------------------------------------------------------------------------


def make_chunks(run: JudgeRun, units: list[JudgeUnit]) -> list[JudgeChunk]:
    """Split ``units`` (in order) into chunks of about CHUNK_UNITS, each queued under a
    lease of its own; sets each unit's ``chunk`` (save the units afterwards)."""
    if not units:
        return []
    n = math.ceil(len(units) / CHUNK_UNITS)
    size = math.ceil(len(units) / n)
    first = (run.chunks.order_by("-number").values_list("number", flat=True).first() or 0) + 1
    chunks = JudgeChunk.objects.bulk_create(
        [JudgeChunk(run=run, number=first + i, lease=new_lease()) for i in range(n)]
    )
    if any(c.pk is None for c in chunks):  # a backend without RETURNING
        chunks = list(run.chunks.filter(number__gte=first).order_by("number"))
    for i, unit in enumerate(units):
        unit.chunk = chunks[i // size]
    return chunks


def open_run(run_id: int, lease: str) -> list[tuple[int, str]] | None:
    """Claim a run for the execution holding ``lease`` and return its chunks to execute
    ``(id, lease)``; None when the lease was taken over or the run is done or cancelled.

    Units that failed last time are retried: they become pending again, and a settled chunk
    holding one is queued again."""
    now = timezone.now()
    if not RUNS.claim(run_id, lease):
        return None
    run = JudgeRun.objects.select_related("judge").get(pk=run_id)
    if run.started_at is None:
        JudgeRun.objects.filter(pk=run_id).update(started_at=now)
    run_logger.info("judge run started", extra={"event": "judge_run_started", **_log(run)})
    retried = run.units.filter(status=JudgeUnit.Status.FAILED)
    chunk_ids = set(retried.values_list("chunk_id", flat=True))
    count = retried.update(status=JudgeUnit.Status.PENDING, error="")
    if count:
        JudgeRun.objects.filter(pk=run_id).update(failed_units=F("failed_units") - count)
        again = run.chunks.filter(pk__in=chunk_ids, status=ChunkStatus.DONE)
        for pk in list(again.values_list("pk", flat=True)):
            CHUNKS.take_over(again.filter(pk=pk), finished_at=None)
    legacy = list(run.units.filter(chunk__isnull=True, status=JudgeUnit.Status.PENDING))
    if legacy:  # planned before runs had chunks
        make_chunks(run, legacy)
        JudgeUnit.objects.bulk_update(legacy, ["chunk"], batch_size=500)
    try:
        LLMConfig.for_judge(run.judge)
    except ValueError as exc:
        _fail_run(run_id, lease, str(exc))
        return []
    chunks = list(run.chunks.filter(status=ChunkStatus.QUEUED).values_list("pk", "lease"))
    if not chunks:
        complete(run_id)
    return chunks


def warm() -> None:
    """Prepare a worker process for its first chunk (:func:`judges.llm.warm`)."""
    llm.warm()


def status_of(run_id: int) -> str:
    return JudgeRun.objects.values_list("status", flat=True).get(pk=run_id)


def _log(run: JudgeRun) -> dict:
    return {"run": run.pk, "judge": run.judge.name, "study": run.study_id, "tasks": run.tasks}


def release_run(run_id: int, rows=None) -> str | None:
    """Give a run (``rows``: its row with conditions) a new lease, queued, and lease every
    unsettled chunk again, so that executions of the old lease stop and do nothing; the
    run's new lease, or None when the conditions no longer held."""
    rows = JudgeRun.objects.filter(pk=run_id) if rows is None else rows
    with transaction.atomic():
        lease = RUNS.take_over(rows, finished_at=None)
        if lease:
            unsettled = JudgeChunk.objects.filter(run_id=run_id).exclude(status=ChunkStatus.DONE)
            for pk in list(unsettled.values_list("pk", flat=True)):
                CHUNKS.take_over(unsettled.filter(pk=pk), heartbeat_at=None)
    return lease


def take_over_stale(queue_run, queue_chunk, stale_after: timedelta) -> list[int]:
    """Lease again what lost its worker; the ids of the runs concerned.

    * a running run that has shown no life for ``stale_after`` and has no live chunk
      (its workers died, or its chunks' messages were lost): released whole, every
      unsettled chunk with it, and queued (``queue_run(id, lease)``);
    * a running chunk of a run still running whose heartbeat is older than
      ``stale_after`` (its worker died while other chunks go on): leased again alone and
      queued (``queue_chunk(id, lease)``).
    """
    runs: list[int] = []
    cutoff = timezone.now() - stale_after
    beating = JudgeChunk.objects.filter(status=ChunkStatus.RUNNING, heartbeat_at__gte=cutoff)
    stale_runs = RUNS.stale(stale_after).exclude(pk__in=beating.values("run_id"))
    for pk in list(stale_runs.values_list("pk", flat=True)):
        lease = release_run(pk, stale_runs.filter(pk=pk))
        if lease:
            queue_run(pk, lease)
            runs.append(pk)
    live_runs = JudgeChunk.objects.filter(run__status=RunStatus.RUNNING)
    stale_chunks = CHUNKS.stale(stale_after, live_runs)
    for pk, run_id in list(stale_chunks.values_list("pk", "run_id")):
        lease = CHUNKS.take_over(stale_chunks.filter(pk=pk), heartbeat_at=None)
        if lease:
            queue_chunk(pk, lease)
            runs.append(run_id)
    return list(dict.fromkeys(runs))


def complete(run_id: int) -> str:
    """Close the run when every chunk is settled: derive the scores and set the final
    status, once (the run's row is locked; a second caller finds it closed)."""
    with transaction.atomic():
        run = JudgeRun.objects.select_for_update().select_related("judge").get(pk=run_id)
        if run.status != RunStatus.RUNNING:
            return run.status
        if run.chunks.exclude(status=ChunkStatus.DONE).exists():
            return run.status
        finalize(
            run.judge,
            run.study_id,
            scholarqa_overall=scholarqa_style(run.tasks),
            binary_coverage=JudgeRun.Task.COVERAGE_BINARY in run.tasks,
        )
        failed = run.units.filter(status=JudgeUnit.Status.FAILED).exists()
        status = RunStatus.FAILED if failed else RunStatus.DONE
        now = timezone.now()
        JudgeRun.objects.filter(pk=run_id).update(status=status, finished_at=now, heartbeat_at=now)
        run.status = status
        webhooks.judge_run_finished(run)  # sent once this commits
    seconds = (now - (run.started_at or run.created_at)).total_seconds()
    run_logger.info("judge run finished", extra={"event": "judge_run_finished", **_log(run),
                    "status": str(status), "seconds": round(max(seconds, 0.0), 3)})  # fmt: skip
    return status


def _fail_run(run_id: int, lease: str, message: str) -> None:
    run = JudgeRun.objects.get(pk=run_id)
    RUNS.settle(
        run_id,
        lease,
        RunStatus.FAILED,
        errors=(run.errors + [{"unit": None, "error": message}])[-MAX_ERRORS_KEPT:],
    )


class LeaseLost(Exception):
    """The chunk's lease was taken over, or its run cancelled: the execution stopped."""


def execute_chunk(chunk_id: int, lease: str) -> str:
    """Judge every pending unit of a chunk (a Celery task's body); returns the run's status
    when this chunk closed it, "running" while other chunks go on, "skipped" when the
    lease no longer holds, "superseded" when it was lost midway."""
    if not CHUNKS.claim(chunk_id, lease, attempts=F("attempts") + 1):
        return "skipped"
    chunk = JudgeChunk.objects.select_related("run__judge", "run__study").get(pk=chunk_id)
    run = chunk.run
    if run.status != RunStatus.RUNNING:  # cancelled or closed: give the chunk back
        CHUNKS.held(chunk_id, lease).update(status=ChunkStatus.QUEUED, heartbeat_at=None)
        return "skipped"
    try:
        config = LLMConfig.for_judge(run.judge)
    except ValueError as exc:
        _fail_run(run.pk, run.lease, str(exc))
        return RunStatus.FAILED
    client, context = _sessions.take(run, config)
    try:
        _process(chunk, lease, client, context)
    except LeaseLost:
        client.close()
        return "superseded"
    except BaseException:
        client.close()
        raise
    _sessions.give_back(run, client, context)
    if not CHUNKS.settle(chunk_id, lease, ChunkStatus.DONE):
        return "superseded"
    if _others_open(chunk):
        return "running"
    _sessions.drop(run.pk)
    return complete(run.pk)


class _Sessions:
    """What the chunks of one run share in a process: the HTTP client (its connection
    pool) and the :class:`Context` (the reports' texts, paragraphs and citations read for
    the prompts). An eager run executes all its chunks in one process, and a worker often
    takes several chunks of one run in a row; each chunk opened a new client (and its
    first connection) and read again the reports it shared with the previous chunk: on
    the released ScholarQA-CS2 study a report's ≈ 54 claims span chunks, and its 6,838
    units make 69 chunks (issue 29, ``bench/README.md``).

    A session is lent to one chunk at a time (two chunks of one run at once in one process
    each get their own, as the Context is the task thread's), kept while the run's lease
    is the one it was made under (a resumed run, whose content may have changed, starts
    afresh) and for at most ``IDLE`` seconds, and at most ``KEEP`` are kept (their
    clients closed when dropped)."""

    KEEP = 2
    IDLE = STALE_AFTER.total_seconds()

    def __init__(self):
        self._idle: dict[int, tuple[str, LLMConfig, ChatClient, Context, float]] = {}
        self._lock = threading.Lock()

    def take(self, run: JudgeRun, config: LLMConfig) -> tuple[ChatClient, Context]:
        with self._lock:
            kept = self._idle.pop(run.pk, None)
        if kept is not None:
            lease, old_config, client, context, at = kept
            if (lease, old_config) == (run.lease, config) and time.monotonic() - at < self.IDLE:
                context.run, context.judge = run, run.judge
                return client, context
            client.close()
        return ChatClient(config), Context(run, config)

    def give_back(self, run: JudgeRun, client: ChatClient, context: Context) -> None:
        with self._lock:
            old = self._idle.pop(run.pk, None)
            self._idle[run.pk] = (run.lease, context.config, client, context, time.monotonic())
            dropped = [self._idle.pop(k) for k in list(self._idle)[: -self.KEEP]]
        for kept in [old, *dropped] if old else dropped:
            kept[2].close()

    def drop(self, run_id: int) -> None:
        with self._lock:
            kept = self._idle.pop(run_id, None)
        if kept is not None:
            kept[2].close()


_sessions = _Sessions()


def _others_open(chunk: JudgeChunk) -> bool:
    return JudgeChunk.objects.filter(run_id=chunk.run_id).exclude(status=ChunkStatus.DONE).exists()


def _alive(chunk: JudgeChunk, lease: str) -> bool:
    """Heartbeat of the chunk and its run; False when the chunk's lease was taken over or
    the run cancelled (the execution then stops)."""
    if not CHUNKS.beat(chunk.pk, lease):
        return False
    return bool(
        JudgeRun.objects.filter(pk=chunk.run_id, status=RunStatus.RUNNING).update(
            heartbeat_at=timezone.now()
        )
    )


# --- Calls ------------------------------------------------------------------------------------


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


def _process(chunk: JudgeChunk, lease: str, client: ChatClient, context: Context) -> None:
    """Keep ``concurrency`` calls in flight; persist finished units in batches.

    Units are read ``UNIT_CHUNK`` at a time (their prompts' texts preloaded in a few queries,
    cached answers looked up in one), and finished outcomes are written together — one
    transaction per batch of up to ``FLUSH_UNITS`` units or ``FLUSH_EVERY`` seconds,
    whichever comes first — so the database cost per unit is a fraction of a query. The
    heartbeat (which also notices a lost lease) runs every ``HEARTBEAT_EVERY`` seconds."""
    run = context.run
    limit = client.config.concurrency
    inflight: dict = {}
    finished: SimpleQueue = SimpleQueue()  # futures, as they finish (their callbacks)
    ready: list[tuple[Job, Outcome]] = []
    queue: deque[Job] = deque()
    last_id = 0
    exhausted = stopping = False
    last_flush = last_beat = time.monotonic()
    pending = chunk.units.filter(status=JudgeUnit.Status.PENDING)
    # one bar for the whole run, whichever chunk this is
    shown = progress.bar(run.total_units, f"judge run {run.pk}", "unit", key=("run", run.pk),
                         initial=run.done_units + run.failed_units)  # fmt: skip
    writer = _Writer(run, context)
    try:
        with shown, pools.borrowed("judge-calls", limit) as pool:
            while True:
                if not queue and not exhausted and not stopping and len(inflight) < limit:
                    units = list(pending.filter(pk__gt=last_id).order_by("pk")[:UNIT_CHUNK])
                    exhausted = len(units) < UNIT_CHUNK
                    if units:
                        last_id = units[-1].pk
                        for job, hit in context.jobs(units):
                            if hit is not None:
                                ready.append((job, hit))
                            else:
                                queue.append(job)
                while queue and not stopping and len(inflight) < limit:
                    job = queue.popleft()
                    future = pool.submit(_call, client, job)
                    inflight[future] = job
                    future.add_done_callback(finished.put)
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
                    if not _alive(chunk, lease):
                        stopping = True  # finish what is in flight, start nothing new
                if not inflight:
                    if stopping or (exhausted and not queue):
                        break
                    continue
                # one queue of finished futures rather than concurrent.futures.wait, which
                # installs and removes a waiter on every future in flight at each wake-up
                try:
                    future = finished.get(timeout=FLUSH_EVERY if ready else HEARTBEAT_EVERY)
                except Empty:
                    continue
                while future is not None:
                    ready.append((inflight.pop(future), future.result()))
                    try:
                        future = finished.get_nowait()
                    except Empty:
                        future = None
            if ready:
                writer.write(ready)
                shown.update(len(ready))
    except BaseException:
        writer.close(quiet=True)  # the first error is the one to report
        raise
    writer.close()
    if stopping:
        raise LeaseLost


# --- Writes -----------------------------------------------------------------------------------


class _Writer:
    """Writes batches of finished units. On PostgreSQL, on a thread of its own (with its own
    connection) so that calls keep going while a batch commits; one batch at a time, in
    order, each write waiting for the previous one (errors surface in the task). Elsewhere
    (SQLite, or inside a transaction such as a test's) on the task's thread.

    The thread is borrowed from :mod:`judges.pools` and kept for the next chunk, with its
    connection as ``CONN_MAX_AGE`` allows (Django's rule for requests: closed when too old
    or after an error; at ``CONN_MAX_AGE`` 0, after every chunk)."""

    POOL = "judge-writer"

    def __init__(self, run: JudgeRun, context: Context):
        self.run, self.context = run, context
        threaded = connection.vendor == "postgresql" and not connection.in_atomic_block
        self._pool = pools.take(self.POOL, 1) if threaded else None
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
        ok = False
        try:
            if self._pending is not None:
                if quiet:
                    self._pending.exception()  # wait, without raising
                else:
                    self._pending.result()
            ok = not quiet
        finally:
            if ok:
                try:
                    self._pool.submit(_tidy_connection).result()
                except BaseException:
                    pools.discard(self._pool, on_discard=_close_connection)
                    raise
                pools.give_back(self._pool, self.POOL, 1, on_discard=_close_connection)
            else:
                pools.discard(self._pool, on_discard=_close_connection)


def _close_connection() -> None:
    connection.close()  # resolved on the calling thread: that thread's connection


def _tidy_connection() -> None:
    """What Django does to a connection after a request, on the calling thread's."""
    connection.close_if_unusable_or_obsolete()


def _persist(run: JudgeRun, batch: list[tuple[Job, Outcome]], context: Context) -> None:
    """One transaction for a batch: settle the units that are still pending
    (:mod:`judges.writes`: a second execution cannot settle them too), cache the new
    answers, upsert the results and move the run's counters."""
    now = timezone.now()
    batch = sorted(batch, key=lambda b: b[0].unit.pk)  # one lock order for every writer
    cost = context.config.cost
    with transaction.atomic():
        settled = writes.settle(
            [
                writes.Settled(job.unit, o.parsed is not None, o.attempts, o.cached,
                               o.prompt_tokens, o.completion_tokens,
                               cost(o.prompt_tokens, o.completion_tokens), o.error)
                for job, o in batch
            ],
            now,
        )  # fmt: skip
        batch = [(job, o) for job, o in batch if job.unit.pk in settled]
        if not batch:
            return  # another execution settled them first: write nothing
        answers = {}
        rows: dict[str, list] = defaultdict(list)  # task -> result rows
        totals = Counter()
        errors = []
        for job, o in batch:
            ok = o.parsed is not None
            unit = job.unit
            totals["requests"] += o.attempts
            totals["cache_hits"] += int(o.cached)
            totals["prompt_tokens"] += o.prompt_tokens
            totals["completion_tokens"] += o.completion_tokens
            totals["done_units" if ok else "failed_units"] += 1
            totals["cost"] += cost(o.prompt_tokens, o.completion_tokens)
            if ok:
                if not o.cached:
                    answers[job.key] = LLMResponse(
                        key=job.key, model=context.config.model, content=o.content,
                        prompt_tokens=o.prompt_tokens, completion_tokens=o.completion_tokens,
                    )  # fmt: skip
                rows[unit.task] += kind(unit.task).rows(context, unit, o.parsed)
            else:
                errors.append({"unit": unit.key, "error": o.error})
        if answers:
            writes.upsert(LLMResponse, list(answers.values()), ["key"], None)
        for task, objs in rows.items():
            if objs:
                kind(task).write(objs)
        updates = {k: F(k) + v for k, v in totals.items()}
        JudgeRun.objects.filter(pk=run.pk).update(**updates, heartbeat_at=now)
        if errors:
            kept = JudgeRun.objects.select_for_update().get(pk=run.pk).errors
            JudgeRun.objects.filter(pk=run.pk).update(errors=(kept + errors)[-MAX_ERRORS_KEPT:])


# --- What the prompts read --------------------------------------------------------------------


class Context:
    """What the kinds' prompts and result rows read (task thread only): a report's text,
    paragraphs, citations and question, the rubric items' texts — loaded once per report
    (or per batch of units), not once per unit, and kept for the run's next chunk in this
    process (:class:`_Sessions`)."""

    def __init__(self, run: JudgeRun, config: LLMConfig):
        self.run = run
        self.judge = run.judge
        self.config = config
        self._texts: dict[int, str] = {}
        self._queries: dict[int, str] = {}
        self.paragraphs: dict[int, list[tuple[int, int, str]]] = {}  # (id, number, text)
        self.citations: dict[int, dict[str, Citation]] = {}
        self.items: dict[int, str] = {}
        self.weights: dict[int, float] = {}  # the rubric items' weights (binary coverage)

    def _load(self, units: list[JudgeUnit]) -> None:
        reports = {u.payload.get("report") for u in units} | {
            u.payload.get(k) for u in units for k in ("left", "right")
        }
        reports = {r for r in reports if r is not None} - set(self._queries)
        if reports:
            for rid, query, cites in Report.objects.filter(pk__in=reports).values_list(
                "pk", "question__text", "citations"
            ):
                self._queries[rid] = query
                self.citations[rid] = cited(cites)
            for rid in reports:
                self.paragraphs[rid] = []
                self.citations.setdefault(rid, {})
            for pid, rid, number, text in (
                Paragraph.objects.filter(report_id__in=reports)
                .order_by("report_id", "number")
                .values_list("pk", "report_id", "number", "text")
            ):
                self.paragraphs[rid].append((pid, number, text))
        items = {i for u in units for i in u.payload.get("items", ())} - set(self.items)
        if items:
            for pk, text, weight in RubricItem.objects.filter(pk__in=items).values_list(
                "id", "text", "weight"
            ):
                self.items[pk], self.weights[pk] = text, weight

    def text(self, report_id: int) -> str:
        if report_id not in self._texts:
            self._texts[report_id] = report_text(report_id)
        return self._texts[report_id]

    def query(self, report_id: int) -> str:
        return self._queries[report_id]

    def paragraph_text(self, report_id: int, paragraph_id: int) -> str:
        for pid, _, text in self.paragraphs[report_id]:
            if pid == paragraph_id:
                return text
        raise ValueError(f"paragraph {paragraph_id} is not in report {report_id}")

    def jobs(self, units: list[JudgeUnit]) -> list[tuple[Job, Outcome | None]]:
        """Each unit's job and, when the answer cache has a valid answer, its outcome."""
        self._load(units)
        jobs = []
        for unit in units:
            job = kind(unit.task).job(self, unit)
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
