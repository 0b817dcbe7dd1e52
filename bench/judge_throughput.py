"""Judge-run throughput against an LLM endpoint that answers at once (issue 18).

Loads the demo study into a throwaway database, starts the local fake OpenAI-compatible
server (``tests/judges/fake_llm.py``, instant answers) and times live runs of every task
(coverage, pairwise, relevance, citations: the demo's 307 units per judge), each run with
its own judge and model name so no answer comes from the cache:

* eager: the run executes in this process (no broker), on SQLite;
* one worker / two workers: ``--runs`` runs queued at once on Redis, executed by one or two
  Celery worker processes (``--pool=solo``), on PostgreSQL.

Units/s = units done / wall time from queueing to the last run done (finalize included).

    .venv/bin/python bench/judge_throughput.py [--modes eager,1,2] [--runs 4] [--concurrency 16]

PostgreSQL and Redis come from ``BENCH_DATABASE_URL`` (default
``postgres://postgres@127.0.0.1:5432/concord_eco_judges_bench``; the benchmark works in
``test_<name>``, created and dropped) and ``BENCH_BROKER_URL`` (default redis db 6, flushed).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PG = "postgres://postgres@127.0.0.1:5432/concord_eco_judges_bench"
BROKER = "redis://127.0.0.1:6379/6"
TASKS = ["coverage", "pairwise", "relevance", "citations"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--modes", default="eager,1,2", help="eager, 1 and/or 2 (workers)")
    parser.add_argument("--runs", type=int, default=4, help="runs queued at once (workers)")
    parser.add_argument("--concurrency", type=int, default=16, help="the judges' concurrency")
    args = parser.parse_args()
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    results = []
    if "eager" in modes:
        results.append(_child(["eager", "1", str(args.concurrency)], {}))
    for workers in ("1", "2"):
        if workers in modes:
            env = {
                "DATABASE_URL": os.environ.get("BENCH_DATABASE_URL", PG),
                "CELERY_BROKER_URL": os.environ.get("BENCH_BROKER_URL", BROKER),
            }
            results.append(_child([workers, str(args.runs), str(args.concurrency)], env))
    print(f"\n{'mode':<28} {'runs':>4} {'units':>6} {'seconds':>8} {'units/s':>8}")
    for r in results:
        print(f"{r['mode']:<28} {r['runs']:>4} {r['units']:>6} {r['seconds']:>8.2f} "
              f"{r['units'] / r['seconds']:>8.1f}")  # fmt: skip
    by_mode = {r["mode"]: r["units"] / r["seconds"] for r in results}
    one, two = by_mode.get("1 worker, PostgreSQL"), by_mode.get("2 workers, PostgreSQL")
    if one and two:
        print(f"two workers / one worker: {two / one:.2f}x")
    return 0


def _child(argv: list[str], env: dict) -> dict:
    """Each mode in a fresh process: settings (database, broker) are read at start-up."""
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


def child(mode: str, n_runs: int, concurrency: int) -> dict:
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "concord.settings")
    import django

    django.setup()
    from django.db import connection

    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    workers = []
    try:
        from judges import runs
        from judges.models import Judge, JudgeRun
        from studio import demo
        from tests.judges.fake_llm import FakeLLM

        study = demo.load().study
        fake = FakeLLM().start()
        fake.requests = _NoLog()  # keep no per-request log: the benchmark sends thousands

        def judge(i: int):
            return Judge.objects.create(
                name=f"bench-{mode}-{i}", model=f"bench-model-{mode}-{i}",
                parameters={"base_url": fake.base_url, "api_key": "sk-bench",
                            "concurrency": concurrency},
            )  # fmt: skip

        if mode == "eager":
            start = time.perf_counter()
            run = runs.start_run(judge(0), study, TASKS)
            seconds = time.perf_counter() - start
            run.refresh_from_db()
            assert run.status == JudgeRun.Status.DONE, run.errors
            return {"mode": "eager, SQLite", "runs": 1, "units": run.done_units,
                    "seconds": seconds}  # fmt: skip
        workers = _workers(connection, int(mode))
        judges = [judge(i) for i in range(n_runs)]
        start = time.perf_counter()
        ids = [runs.start_run(j, study, TASKS).pk for j in judges]
        while JudgeRun.objects.filter(pk__in=ids, status__in=["queued", "running"]).exists():
            time.sleep(0.05)
        seconds = time.perf_counter() - start
        done = list(JudgeRun.objects.filter(pk__in=ids))
        assert all(r.status == JudgeRun.Status.DONE for r in done), [r.errors for r in done]
        label = f"{mode} worker{'s' if mode != '1' else ''}, PostgreSQL"
        return {"mode": label, "runs": n_runs, "units": sum(r.done_units for r in done),
                "seconds": seconds}  # fmt: skip
    finally:
        for w in workers:
            w.terminate()
        for w in workers:
            w.wait(timeout=30)
        connection.creation.destroy_test_db(old_name, verbosity=0)


class _NoLog(list):
    def append(self, item) -> None:
        pass


def _workers(connection, n: int) -> list[subprocess.Popen]:
    import redis

    from concord.celery import app

    db = connection.settings_dict
    url = f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
    broker = os.environ["CELERY_BROKER_URL"]
    redis.Redis.from_url(broker).flushdb()
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "concord",
                "worker",
                "--pool=solo",
                "--concurrency=1",
                "--loglevel=warning",
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
                "-n",
                f"bench{i}@%h",
            ],
            env={**os.environ, "DATABASE_URL": url, "CELERY_BROKER_URL": broker},
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
        )  # fmt: skip
        for i in range(n)
    ]
    deadline = time.monotonic() + 90
    while len(app.control.ping(timeout=1.0) or []) < n:
        if any(p.poll() is not None for p in procs) or time.monotonic() > deadline:
            raise SystemExit("the Celery workers did not start")
    return procs


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        result = child(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
        print(json.dumps(result))
        sys.exit(0)
    sys.exit(main())
