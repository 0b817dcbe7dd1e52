"""Judge-run throughput against an LLM endpoint that answers at once (issue 18).

Loads the demo study into a throwaway database, starts the local fake OpenAI-compatible
server (``tests/judges/fake_llm.py``, instant answers) and times live runs of every task
(coverage, pairwise, relevance, citations: the demo's 307 units per judge), each run with
its own judge and model name so no answer comes from the cache:

* eager: the run executes in this process (no broker), on SQLite;
* one worker / two workers: ``--runs`` runs (default 64: 19,648 units, 11–14 s for two
  workers and 21–25 s for one on this machine kind, so that the steady state outweighs a
  measurement's fixed costs: the first chunks, the tail of the last one, the last run's
  finalize; 16 runs lasted only 3.5 s once one worker did 700–900 units/s, where those
  costs weighed 5–10 %) queued at once on Redis, executed by one or two Celery
  worker processes (``--pool=solo``), on PostgreSQL, started exactly as the tests'
  ``celery_worker_process`` fixture starts its worker (``tests/worker.py``) but with
  production's settings (``DEBUG`` off, ``CONN_MAX_AGE`` 60, as in ``compose.yaml``). Each
  run is split into chunks of about 100 units, each chunk a task of its own, so two workers
  share even a single run (``--runs 1``).

Units/s = units done / wall time from queueing to the last run's ``finished_at`` (finalize
included). The runs are planned (units and chunks created, what a web request does) before
the clock starts; the workers are started and answering before it too.

The endpoint (``--server``): ``fast`` (default), ``bench/fast_llm.py`` in processes of its
own (a lean asyncio responder giving the tests' fake server's answers), or ``tests``, the
tests' fake server (``tests/judges/fake_llm.py``, a ``ThreadingHTTPServer``) in a process
of its own. For each mode the benchmark also prints the CPU time per unit of each party,
read from ``/proc`` (utime + stime) while the runs go: the worker process(es), the fake
server's process(es), the PostgreSQL backends of the benchmark's database (sampled every
``POLL`` s: a backend that exits loses at most its last interval) and this process
(polling). Their sum bounds what the cores can give: units/s ≤ cores × 1000 / total ms.

    .venv/bin/python bench/judge_throughput.py [--modes eager,1,2] [--runs 64] [--concurrency 16]
        [--server fast|tests] [--repeat 1]

``--study released-scholarqa`` (issue 29) times instead what the issue measured on real
content: the released ScholarQA-CS2 study (``../shared/data/scholarqa-cs2``, imported as
the README's block does: the expert-written reports, then the annotation files as the tests
import them, :mod:`tests.builders.scholarqa`) in a SQLite file of a temporary folder (the
default install's database), judged by relevance + citations (6,838 units: 125 reports'
relevance, 6,713 cited claims), eagerly (no broker), once per ``--concurrency`` value
(comma-separated, default ``4,16``), ``--repeat`` rounds alternating them; each run has its
own judge and model name (no cached answer). Units/s = units / wall time of ``start_run``
(planning, every chunk, finalize); CPU per unit of this process (``getrusage``: its
threads included) and of the fake server's processes.

    .venv/bin/python bench/judge_throughput.py --study released-scholarqa [--concurrency 4,16]
        [--repeat 2]

PostgreSQL and Redis come from ``BENCH_DATABASE_URL`` (default
``postgres://postgres@127.0.0.1:5432/concord_eco_judges_bench``; the benchmark works in
``test_<name>``, created and dropped) and ``BENCH_BROKER_URL`` (default redis db 6, flushed).
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import statistics
import subprocess
import sys
import time
from pathlib import Path

from proc_cpu import CPU, POLL, own_cpu, ticks

ROOT = Path(__file__).resolve().parents[1]
PG = "postgres://postgres@127.0.0.1:5432/concord_eco_judges_bench"
BROKER = "redis://127.0.0.1:6379/6"
TASKS = ["coverage", "pairwise", "relevance", "citations"]
#: The released ScholarQA-CS2 data (``--study released-scholarqa``), beside the checkout.
DEFAULT_MODES = "eager,1,2"
RELEASED = ROOT.parent / "shared" / "data" / "scholarqa-cs2"
RELEASED_STUDY = "ScholarQA-CS2"
RELEASED_TASKS = ["relevance", "citations"]
# POLL (proc_cpu): seconds between two looks at the runs' status and two CPU samples: the end
# time is the runs' own ``finished_at``, so this only bounds how long the benchmark idles after it.
#: The workers' settings as in production (compose.yaml): DEBUG off (Django then keeps no
#: log of every query) and connections kept between tasks for CONN_MAX_AGE seconds.
WORKER_ENV = {"DEBUG": "0", "CONN_MAX_AGE": "60", "CONCORD_JUDGE_ALLOW_PRIVATE": "1"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--modes", default=DEFAULT_MODES, help="eager, 1 and/or 2 (workers)")
    parser.add_argument("--runs", type=int, default=64, help="runs queued at once (workers)")
    parser.add_argument(
        "--concurrency",
        default=None,
        help="the judges' concurrency (default 16; released-scholarqa: a list, default 4,16)",
    )
    parser.add_argument(
        "--study",
        choices=["demo", "released-scholarqa"],
        default="demo",
        help="demo: every task of the demo study; released-scholarqa: relevance + citations "
        "of the released ScholarQA-CS2 study, eagerly (issue 29)",
    )
    parser.add_argument(
        "--server",
        choices=["fast", "tests"],
        default="fast",
        help="the fake endpoint: bench/fast_llm.py or tests/judges/fake_llm.py",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="measure each worker mode this many times, in one database",
    )
    args = parser.parse_args()
    if args.study == "released-scholarqa":
        return released(args)
    if args.concurrency is not None and not args.concurrency.isdigit():
        parser.error("--concurrency: one number with the demo study")
    args.concurrency = int(args.concurrency or 16)
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    results = []
    common = [str(args.concurrency), args.server, str(args.repeat)]
    if "eager" in modes:
        results += _child(["eager", "1", *common], {})
    workers = ",".join(w for w in ("1", "2") if w in modes)
    if workers:
        env = {
            "DATABASE_URL": os.environ.get("BENCH_DATABASE_URL", PG),
            "CELERY_BROKER_URL": os.environ.get("BENCH_BROKER_URL", BROKER),
        }
        results += _child([workers, str(args.runs), *common], env)
    print(f"\nendpoint: {args.server}; CPU ms per unit: worker(s), fake server, PostgreSQL "
          "backends, benchmark process")  # fmt: skip
    print(f"{'mode':<28} {'runs':>4} {'units':>6} {'seconds':>8} {'units/s':>8} "
          f"{'worker':>7} {'server':>7} {'pg':>6} {'bench':>6} {'total':>6}  load")  # fmt: skip
    for r in results:
        cpu = r.get("cpu_ms") or {}
        parts = [cpu.get(k) for k in ("worker", "server", "pg", "bench")]
        shown = " ".join(f"{v:>{w}.2f}" if v is not None else f"{'-':>{w}}"
                         for v, w in zip(parts, (7, 7, 6, 6), strict=True))  # fmt: skip
        total = f"{sum(v for v in parts if v is not None):>6.2f}" if cpu else f"{'-':>6}"
        print(f"{r['mode']:<28} {r['runs']:>4} {r['units']:>6} {r['seconds']:>8.2f} "
              f"{r['units'] / r['seconds']:>8.1f} {shown} {total}  {r.get('load', '')}")  # fmt: skip
    ratios = []
    for i in range(args.repeat):
        by_mode = {r["mode"]: r["units"] / r["seconds"] for r in results if r.get("round") == i}
        one, two = by_mode.get("1 worker, PostgreSQL"), by_mode.get("2 workers, PostgreSQL")
        if one and two:
            ratios.append(two / one)
            print(f"round {i + 1}: two workers / one worker: {two / one:.2f}x")
    if len(ratios) > 1:
        # One round's ratio moves by ±10 % on this machine kind (the same code's CPU per unit
        # varies that much between rounds): the median of the rounds is the figure to quote.
        print(f"median of {len(ratios)} rounds: {statistics.median(ratios):.2f}x "
              f"(from {min(ratios):.2f}x to {max(ratios):.2f}x)")  # fmt: skip
    return 0


def released(args) -> int:
    """``--study released-scholarqa``: eager runs only (the issue's setting), in a child
    whose database is a SQLite file in a temporary folder."""
    import tempfile

    if args.modes not in ("eager", DEFAULT_MODES):
        raise SystemExit("--study released-scholarqa runs eagerly only: leave --modes out")
    if not RELEASED.is_dir():
        raise SystemExit(f"the released ScholarQA-CS2 data is not in {RELEASED}")
    try:
        levels = [int(c) for c in (args.concurrency or "4,16").split(",")]
    except ValueError:
        raise SystemExit("--concurrency: comma-separated numbers, e.g. 4,16") from None
    with tempfile.TemporaryDirectory(prefix="concord-bench-judges-") as tmp:
        env = {"DATABASE_URL": f"sqlite:///{tmp}/bench.sqlite3"}
        argv = ["released", ",".join(map(str, levels)), args.server, str(args.repeat)]
        results = _child(argv, env)
    print(f"\nreleased ScholarQA-CS2, relevance + citations, eager, SQLite file; endpoint: "
          f"{args.server}")  # fmt: skip
    print(f"{'round':>5} {'concurrency':>11} {'units':>6} {'seconds':>8} {'units/s':>8} "
          f"{'CPU ms/unit':>11} {'server':>7}  load (1, 5, 15 min)")  # fmt: skip
    for r in results:
        print(f"{r['round'] + 1:>5} {r['concurrency']:>11} {r['units']:>6} {r['seconds']:>8.2f} "
              f"{r['units'] / r['seconds']:>8.1f} {r['cpu_ms']:>11.2f} {r['server_ms']:>7.2f}"
              f"  {r['load']}")  # fmt: skip
    return 0


def released_child(levels: list[int], server: str, repeat: int) -> list[dict]:
    """Import the released study into the (empty) database, then time eager relevance +
    citation runs against the instant endpoint."""
    import io

    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "concord.settings")
    os.environ.setdefault("CONCORD_JUDGE_ALLOW_PRIVATE", "1")
    import django

    django.setup()
    from django.core.management import call_command

    from annotation.models import Study
    from judges import runs
    from judges.models import Judge, JudgeRun
    from tests.builders.scholarqa import import_release

    call_command("migrate", verbosity=0)
    reports = RELEASED / "reports" / "expert_written"
    for system, name in [("sqa", "sqa.json"), ("openai-dr", "openai-dr.json"),
                         ("perplexity", "perplexity.json"), ("storm", "storm.json"),
                         ("qwen-sqa", "sqa-qwen3_8b_SFT_fullanswer.jsonl")]:  # fmt: skip
        call_command("import_reports", str(reports / name), study=RELEASED_STUDY,
                     format="scholarqa", system=system, stdout=io.StringIO())  # fmt: skip
    import_release(RELEASED, RELEASED_STUDY)
    study = Study.objects.get(name=RELEASED_STUDY)
    endpoint = _Endpoint(server)
    results = []

    try:
        for round_ in range(repeat):
            for level in levels:
                name = f"bench-released-{round_}-{level}"
                judge = Judge.objects.create(
                    name=name, model=f"model-{name}",
                    parameters={"base_url": endpoint.base_url, "api_key": "sk-bench",
                                "concurrency": level},
                )  # fmt: skip
                served = sum(ticks(p) for p in endpoint.pids)
                used, start = own_cpu(), time.perf_counter()
                run = runs.start_run(judge, study, RELEASED_TASKS)
                seconds = time.perf_counter() - start
                used = own_cpu() - used
                served = sum(ticks(p) for p in endpoint.pids) - served
                run.refresh_from_db()
                assert run.status == JudgeRun.Status.DONE, run.errors
                results.append({
                    "round": round_, "concurrency": level, "units": run.done_units,
                    "seconds": seconds, "cpu_ms": used * 1000 / run.done_units,
                    "server_ms": served * 1000 / run.done_units,
                    "load": " ".join(f"{x:.1f}" for x in os.getloadavg()),
                })  # fmt: skip
    finally:
        endpoint.stop()
    return results


def _child(argv: list[str], env: dict) -> list[dict]:
    """Each kind of mode in a fresh process: settings (database, broker) are read at
    start-up."""
    out = subprocess.run(
        [sys.executable, __file__, "--child", *argv],
        env={**os.environ, "DEBUG": "1", **env},
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if out.returncode:
        sys.stderr.write(out.stdout + out.stderr)
        raise SystemExit(f"benchmark mode {argv[0]} failed")
    return json.loads(out.stdout.strip().splitlines()[-1])


def child(modes: str, n_runs: int, concurrency: int, server: str, repeat: int) -> list[dict]:
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "concord.settings")
    os.environ.setdefault("CONCORD_JUDGE_ALLOW_PRIVATE", "1")  # its LLM server is local
    import django

    django.setup()
    from django.db import connection

    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    endpoint = None
    try:
        from django.db.models import Max
        from django.utils import timezone

        from judges import runs
        from judges import tasks as queue
        from judges.models import Judge, JudgeRun
        from studio import demo

        study = demo.load().study
        endpoint = _Endpoint(server)

        def judge(name: str):
            return Judge.objects.create(
                name=name, model=f"model-{name}",
                parameters={"base_url": endpoint.base_url, "api_key": "sk-bench",
                            "concurrency": concurrency},
            )  # fmt: skip

        if modes == "eager":
            start = time.perf_counter()
            run = runs.start_run(judge("bench-eager"), study, TASKS)
            seconds = time.perf_counter() - start
            run.refresh_from_db()
            assert run.status == JudgeRun.Status.DONE, run.errors
            return [{"mode": "eager, SQLite", "runs": 1, "units": run.done_units,
                     "seconds": seconds}]  # fmt: skip
        # the workers run as in production (compose.yaml), not as this debug process
        os.environ.update(WORKER_ENV, SECRET_KEY=secrets.token_urlsafe(32))
        results = []
        for round_ in range(repeat):
            for mode in modes.split(","):
                workers = _workers(connection, int(mode))
                try:
                    judges = [judge(f"bench-{mode}-{round_}-{i}") for i in range(n_runs)]
                    planned = [runs.create_run(j, study, TASKS) for j in judges]
                    cpu = CPU(
                        {
                            "worker": lambda pids=[p.pid for p in workers]: pids,
                            "server": lambda: endpoint.pids,
                        },
                        database=connection.settings_dict["NAME"],
                    )
                    start = timezone.now()
                    for run in planned:
                        queue.queue_run(run.pk, run.lease)
                    ids = [run.pk for run in planned]
                    active = JudgeRun.objects.filter(pk__in=ids, status__in=["queued", "running"])
                    while active.exists():
                        time.sleep(POLL)
                    used = cpu.stop()
                    end = JudgeRun.objects.filter(pk__in=ids).aggregate(end=Max("finished_at"))
                    seconds = (end["end"] - start).total_seconds()
                finally:
                    from tests import worker

                    worker.stop(workers, timeout=30)
                done = list(JudgeRun.objects.filter(pk__in=ids))
                assert all(r.status == JudgeRun.Status.DONE for r in done), [r.errors for r in done]
                units = sum(r.done_units for r in done)
                label = f"{mode} worker{'s' if mode != '1' else ''}, PostgreSQL"
                results.append({
                    "mode": label, "runs": n_runs, "units": units, "seconds": seconds,
                    "round": round_, "load": " ".join(f"{x:.1f}" for x in os.getloadavg()),
                    "cpu_ms": {k: v * 1000 / units for k, v in used.items()},
                })  # fmt: skip
        return results
    finally:
        if endpoint is not None:
            endpoint.stop()
        connection.close()
        connection.creation.destroy_test_db(old_name, verbosity=0)


class _Endpoint:
    """The fake OpenAI-compatible server, in process(es) of its own so that its CPU is
    counted apart and it shares no interpreter lock with this process."""

    def __init__(self, kind: str):
        script = (
            [str(ROOT / "bench" / "fast_llm.py"), "--processes", "2"]
            if kind == "fast"
            else ["-c", _TESTS_SERVER]
        )
        self.proc = subprocess.Popen(
            [sys.executable, *script], cwd=ROOT, stdout=subprocess.PIPE, text=True
        )
        port, pids = self.proc.stdout.readline().split(" ", 1)
        self.base_url = f"http://127.0.0.1:{int(port)}/v1"
        self.pids = [int(p) for p in pids.split()]

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


#: The tests' fake server in a process of its own, keeping no per-request log (the
#: benchmark sends thousands of requests).
_TESTS_SERVER = """
import os, sys, threading
sys.path.insert(0, os.getcwd())
from tests.judges.fake_llm import FakeLLM
class NoLog(list):
    def append(self, item): pass
fake = FakeLLM().start()
fake.requests = NoLog()
print(fake.httpd.server_address[1], os.getpid(), flush=True)
threading.Event().wait()
"""


def _workers(connection, n: int) -> list[subprocess.Popen]:
    """``n`` workers started as the tests start theirs (``tests/worker.py``)."""
    import redis

    from concord.celery import app
    from tests import worker

    broker = os.environ["CELERY_BROKER_URL"]
    redis.Redis.from_url(broker).flushdb()
    procs = [
        worker.start_worker(connection, broker, name=f"bench{i}@%h", stdout=subprocess.DEVNULL)
        for i in range(n)
    ]
    try:
        worker.wait_until_answering(app, procs, 90)
    except worker.WorkerError as exc:
        raise SystemExit(f"the Celery workers did not start: {exc}") from None
    return procs


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1:3] == ["--child", "released"]:
        levels = [int(c) for c in sys.argv[3].split(",")]
        print(json.dumps(released_child(levels, sys.argv[4], int(sys.argv[5]))))
        sys.exit(0)
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        result = child(
            sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], int(sys.argv[6])
        )
        print(json.dumps(result))
        sys.exit(0)
    sys.exit(main())
