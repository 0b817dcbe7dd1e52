"""Scale benchmark of the meta-evaluation (issue 3).

40,000 questions × 3 of 8 systems × 2 annotators = 240,000 pairwise records in the
ScholarQA-CS2 format, 5 judge metrics. Prints: the import time of both files (wall, and
the CPU of this process and of the PostgreSQL server, each against issue 29's 30 s
target), the full report end to end (``manage.py agreement --json``), a straightforward pure-Python script
doing the same loops over the JSON, and the report with ``--bootstrap 1000``.

Run: ``make bench`` or ``.venv/bin/python bench/agreement_scale.py [--questions N]
[--import-only]``.
Uses DATABASE_URL if set (e.g. PostgreSQL), else a fresh SQLite file in a temp folder.
"""

from __future__ import annotations

import argparse
import io
import itertools
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

SYSTEMS = ["atlas", "beacon", "cedar", "delta", "ember", "fjord", "grove", "harbor"]
QUALITY = dict(zip(SYSTEMS, [0.82, 0.78, 0.74, 0.7, 0.66, 0.6, 0.55, 0.5], strict=True))
METRICS = ["answer_precision", "answer_recall", "citation_precision", "citation_recall"]
ANNOTATORS = ("ann1", "ann2")
JUDGE = "bench-judge"


def medal_norm(values: dict[str, float], tie: float = 0.04) -> dict[str, float]:
    """Gold 1.0 / silver 0.5 / bronze 0.0 by dense rank; reports within ``tie`` share."""
    order = sorted(values, key=values.get, reverse=True)
    out, level, prev = {}, 0, None
    for s in order:
        if prev is not None and values[prev] - values[s] > tie:
            level += 1
        out[s] = [1.0, 0.5, 0.0][min(level, 2)]
        prev = s
    return out


def generate(n_questions: int, folder: Path, seed: int = 7) -> list[Path]:
    rng = random.Random(seed)
    combos = list(itertools.combinations(SYSTEMS, 3))
    files = {ann: [] for ann in ANNOTATORS}
    for q in range(n_questions):
        trio = combos[q % len(combos)]
        text = f"Synthetic research question {q}: how does method {q % 97} scale?"
        quality = {s: QUALITY[s] + rng.gauss(0, 0.08) for s in trio}
        scores = {}
        for s in trio:
            m = {k: min(1.0, max(0.0, quality[s] + rng.gauss(0, 0.12))) for k in METRICS}
            m["overall"] = sum(m[k] for k in METRICS) / 4
            m["overall_citation"] = (m["citation_precision"] + m["citation_recall"]) / 2
            scores[s] = m
        for ann in files:
            medals = medal_norm({s: quality[s] + rng.gauss(0, 0.1) for s in trio})
            for a, b in itertools.combinations(trio, 2):
                if rng.random() < 0.5:
                    a, b = b, a
                record = {"question": text, "models": [a, b]}
                for k in ["overall", *METRICS, "overall_citation"]:
                    record[f"model_{k}"] = [scores[a][k], scores[b][k]]
                record["preference_ranking_norm"] = [medals[a], medals[b]]
                files[ann].append(record)
    paths = []
    for ann, records in files.items():
        path = folder / f"pairwise_test_assigned_{ann}.json"
        path.write_text(json.dumps(records))
        paths.append(path)
    return paths


def import_files(paths: list[Path], study: str) -> None:
    """``import_pairwise`` of the files :func:`generate` wrote into ``study`` (created if
    missing): one annotator per file, setting ``assigned``, judge :data:`JUDGE`."""
    from django.core.management import call_command

    for path, ann in zip(paths, ANNOTATORS, strict=True):
        call_command("import_pairwise", str(path), study=study, annotator=ann,
                     setting="assigned", judge=JUDGE, stdout=io.StringIO())  # fmt: skip


def timed(label: str, fn, results: list):
    start = time.perf_counter()
    value = fn()
    seconds = time.perf_counter() - start
    results.append((label, seconds))
    print(f"{label:58s} {seconds:8.2f} s", flush=True)
    return value


#: Seconds the import of both files may take (issue 29: under 30 s on SQLite and PostgreSQL).
IMPORT_TARGET = 30.0


def backend_cpu() -> float:
    """CPU seconds of this connection's PostgreSQL server process (0 on SQLite, which runs
    in this process): read from /proc, so the server must be on this machine."""
    from django.db import connection

    if connection.vendor != "postgresql":
        return 0.0
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")  # a server on another machine
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def import_cpu(import_both, results: list) -> dict[str, float]:
    """Time the import, wall and CPU: on a loaded machine (other users, two cores) the wall
    time says more about the load than the import; this process's CPU plus the database
    server's is what the import costs (their sum bounds its wall time on an idle machine,
    as they overlap only while rows stream in)."""
    import resource

    def own() -> float:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        return usage.ru_utime + usage.ru_stime

    python, database = own(), backend_cpu()
    timed("import_pairwise of both files", import_both, results)
    return {"python": own() - python, "database": backend_cpu() - database}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--questions", type=int, default=40_000)
    parser.add_argument("--bootstrap", type=int, default=1000)
    parser.add_argument("--import-only", action="store_true", help="stop after the import")
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="concord-bench-"))
    os.environ.setdefault("DATABASE_URL", f"sqlite:///{tmp / 'bench.sqlite3'}")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "concord.settings")
    import django

    django.setup()
    import naive_agreement
    from django.core.management import call_command

    results: list[tuple[str, float]] = []
    n_records = args.questions * 3 * 2
    print(f"{args.questions} questions x 3 of 8 systems x 2 annotators = {n_records} records")
    print(f"database: {os.environ['DATABASE_URL'].split('://')[0]}")
    paths = timed("generate the two JSON files", lambda: generate(args.questions, tmp), results)
    call_command("migrate", verbosity=0)
    from annotation.models import Study

    Study.objects.filter(name="bench").delete()

    cpu = import_cpu(lambda: import_files(paths, "bench"), results)
    wall = dict(results)["import_pairwise of both files"]
    load = os.getloadavg()[0]
    print(f"import of the {n_records} records: {wall:.1f} s wall = {wall / IMPORT_TARGET:.2f}x "
          f"the {IMPORT_TARGET:.0f} s target (issue 29); CPU {cpu['python']:.1f} s in this "
          f"process + {cpu['database']:.1f} s in the database server = "
          f"{(cpu['python'] + cpu['database']) / IMPORT_TARGET:.2f}x the target; "
          f"load average {load:.1f} on {os.cpu_count()} cores", flush=True)  # fmt: skip
    if args.import_only:
        return

    def report(*extra):
        out = io.StringIO()
        call_command("agreement", "--study", "bench", "--json", *extra, stdout=out)
        return json.loads(out.getvalue())

    ours = timed("full report (agreement --json, in this process)", report, results)

    def report_process():
        # End to end as a user runs it: a new process (start-up, Django set-up, imports).
        subprocess.run(
            [sys.executable, "manage.py", "agreement", "--study", "bench", "--json"],
            cwd=ROOT, env=os.environ, check=True, stdout=subprocess.DEVNULL,
        )  # fmt: skip

    timed("full report (manage.py agreement --json, new process)", report_process, results)
    naive = timed("pure-Python script over the JSON, same loops",
                  lambda: naive_agreement.report(paths), results)  # fmt: skip
    for metric in ("overall", "answer_relevance"):
        a = ours["preference"][metric]["agreement"]
        b = naive["preference"][metric]["agreement"]
        assert abs(a - b) < 1e-9, (metric, a, b)
    assert abs(ours["iaa"]["strict"] - naive["iaa"]["strict"]) < 1e-9
    timed(f"full report with --bootstrap {args.bootstrap}",
          lambda: report("--bootstrap", str(args.bootstrap)), results)  # fmt: skip
    seconds = dict(results)
    naive_s = seconds["pure-Python script over the JSON, same loops"]
    process_s = seconds["full report (manage.py agreement --json, new process)"]
    print(f"\nspeed-up of the report (new process) over the pure-Python script: "
          f"{naive_s / process_s:.1f}x; over the issue's reference 56 s: {56 / process_s:.1f}x")  # fmt: skip
    print("\n| step | seconds |\n| --- | ---: |")
    for label, seconds in results:
        print(f"| {label} | {seconds:.2f} |")


if __name__ == "__main__":
    main()
