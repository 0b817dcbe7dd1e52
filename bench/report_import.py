"""Scale benchmark of the report import (issue 29, "report import").

N questions × 3 systems' reports of about 2 KB each, about 10 citations per report, in the
ScholarQA-CS2 report format (``{"question", "response": {"sections": [{"title", "text",
"citations": [{"id", "title", "snippets", "metadata"}]}]}}``), files of at most
``PER_FILE`` records per system (the import refuses a file above 64 MB). Each
system cites in one of the released files' styles, so normalisation meets the markers it
meets on the released data:

* ``numbered``: ``[3]`` (dev/perplexity), citation id ``"3"``;
* ``author-year``: ``(Rego et al., 2022)`` (claude), citation id ``"Rego et al., 2022"``;
* ``corpus-id``: ``[245738635 | Kang et al. | 2022 | Citations: 3]`` with ScholarQA's
  ``TLDR; … (N sources)`` section summaries (sqa), citation id the marker itself.

Each file is imported with ``manage.py import_reports --format scholarqa`` in this process
(``call_command``), into a fresh database; the benchmark prints wall and CPU seconds per
phase: *prepare* (since session 12, a system's first file: read, check, parse, normalise
and encode every record, on every core, ``annotation.importers.new_reports``; what this
process waits for the helpers beside its writes; CPU counts the helper processes), *parse* (what else the command does; before session 12,
read the file, check and parse every record), *normalise*
(``annotation.normalise.normalise_report``, a re-import only since session 12), *write*
(everything else of the write: the question, report and structure rows), *after* (what follows the write: the study's task
readiness), *commit* (the import's transaction committed: SQLite writes the rows' pages,
PostgreSQL checks the deferred foreign keys; before session 11 it was counted in *parse*),
*analyse* (the statistics refresh of the tables written, once committed). On PostgreSQL the server's CPU (the connection's
backend, from ``/proc``) is printed beside this process's.

The Label Studio side of the comparison (``bench/labelstudio.py``) imports the same texts:
:func:`generate` writes the files and returns their paths, :func:`texts` reads each report
back as the plain text an annotator would see in Label Studio.

Run: ``.venv/bin/python bench/report_import.py [--questions 40000] [--database sqlite|postgres]
[--profile FILE]``. SQLite: a fresh file in a temporary folder. PostgreSQL: the database
``concord_report_import_bench`` on 127.0.0.1 (``--database-url`` to change), dropped and
created again for every run.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import json
import os
import random
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

STUDY = "report-import-bench"
PG = "postgres://postgres@127.0.0.1:5432/concord_report_import_bench"
SYSTEMS = ("numbered", "author-year", "corpus-id")
SURNAMES = [
    "Rego", "Kang", "Chen", "Okafor", "Silva", "Novak", "Haddad", "Ivanova", "Mendes",
    "Tanaka", "Fischer", "Moreau", "Kowalski", "Nguyen", "Larsen", "Osei", "Petrov", "Quinn",
]  # fmt: skip
WORDS = [
    "model",
    "method",
    "data",
    "results",
    "study",
    "evaluation",
    "benchmark",
    "approach",
    "performance",
    "training",
    "retrieval",
    "citation",
    "evidence",
    "analysis",
    "dataset",
    "language",
    "system",
    "annotation",
    "experts",
    "task",
    "reports",
    "research",
    "quality",
    "accuracy",
    "bias",
    "transformer",
    "graph",
    "sampling",
    "inference",
    "baseline",
    "scale",
    "signal",
    "robust",
    "sparse",
    "dense",
    "latent",
    "prior",
    "estimate",
    "variance",
    "error",
    "domain",
    "transfer",
]
#: Characters of running text per section (3 sections: about 2 KB per report).
SECTION_CHARS = 640
CITATIONS = 10


def _sentences(rng: random.Random, n: int = 600) -> list[str]:
    """A pool of plain sentences (no markers), drawn once: reports are built from it so
    generating 120,000 reports takes seconds, and the texts still differ report to report."""
    out = []
    for _ in range(n):
        words = [rng.choice(WORDS) for _ in range(rng.randint(9, 18))]
        out.append(" ".join(words).capitalize())
    return out


def _source(rng: random.Random, style: str, k: int) -> tuple[str, str, str]:
    """(citation id, marker in the text, title) of the ``k``-th source of a report."""
    name = rng.choice(SURNAMES)
    year = rng.randint(2005, 2025)
    title = f"{rng.choice(WORDS).capitalize()} {rng.choice(WORDS)} for {rng.choice(WORDS)}"
    if style == "numbered":
        return str(k), f"[{k}]", f"{name} et al. ({year})"
    if style == "author-year":
        key = f"{name} et al., {year}{'abcdefghij'[k - 1]}"  # distinct within the report
        return key, f"({key})", title
    marker = f"[{rng.randint(10**8, 3 * 10**8)} | {name} et al. | {year} | Citations: {k * 3}]"
    return marker, marker, marker


def _report(rng: random.Random, pool: list[str], style: str, q: int) -> dict:
    """One report: 3 sections, ~``SECTION_CHARS`` of text each, ``CITATIONS`` sources
    (each cited where it is listed; a few cited a second time further on)."""
    sources = [_source(rng, style, k) for k in range(1, CITATIONS + 1)]
    split = [sources[:4], sources[4:7], sources[7:]]
    sections = []
    for s, cited in enumerate(split):
        parts, length, queue = [], 0, list(cited)
        if s and rng.random() < 0.5:  # cite an earlier source again
            queue.append(rng.choice(split[s - 1]))
        while length < SECTION_CHARS or queue:
            sentence = rng.choice(pool)
            if queue and (length > SECTION_CHARS / 4 or rng.random() < 0.5):
                sentence += (" " if style != "numbered" else "") + queue.pop(0)[1]
            parts.append(sentence + ".")
            length += len(sentence) + 2
        text = " ".join(parts)
        if style == "corpus-id":
            text = f"TLDR; {pool[(q + s) % len(pool)]}. ({len(cited)} sources)\n\n{text}"
        sections.append({
            "title": None if style == "numbered" else f"Part {s + 1} of question {q}",
            "text": text,
            "citations": [
                {"id": key, "title": title, "snippets": [rng.choice(pool) + "."], "metadata": None}
                for key, _, title in cited
            ],
        })  # fmt: skip
    return {"sections": sections}


def question(q: int) -> str:
    return f"Synthetic research question {q}: how does method {q % 97} scale with data?"


#: Reports per file: the import refuses a file above ``IMPORT_MAX_BYTES`` (64 MB); a
#: report here is 4.3–5.6 KB of JSON with its citations (corpus-id markers are the longest),
#: so 40,000 questions are 4 files per system (the issue measured files of 15,006 reports).
PER_FILE = 10_000


def generate(
    questions: int, seed: int = 29, folder: Path | None = None, per_file: int = PER_FILE
) -> dict[str, list[Path]]:
    """Write each system's (``SYSTEMS``) reports for ``questions`` questions as ScholarQA-CS2
    report files of at most ``per_file`` records; returns their paths by system name.
    Deterministic for a seed; files a previous call wrote in ``folder`` with the same
    arguments are reused (``manifest.json``)."""
    folder = Path(folder or tempfile.mkdtemp(prefix="concord-report-import-"))
    folder.mkdir(parents=True, exist_ok=True)
    manifest = folder / "manifest.json"
    wanted = {"questions": questions, "seed": seed, "per_file": per_file}
    if manifest.exists():
        done = json.loads(manifest.read_text())
        if done["arguments"] == wanted and all((folder / n).exists() for ns in
                                               done["files"].values() for n in ns):  # fmt: skip
            return {s: [folder / n for n in ns] for s, ns in done["files"].items()}
    paths: dict[str, list[Path]] = {}
    for n, style in enumerate(SYSTEMS):
        rng = random.Random(seed * 1000 + n)
        pool = _sentences(rng)
        for first in range(0, questions, per_file):
            records = [
                {"question": question(q), "response": _report(rng, pool, style, q)}
                for q in range(first, min(first + per_file, questions))
            ]
            path = folder / f"{style}-{first // per_file + 1:02d}.json"
            path.write_text(json.dumps(records))
            paths.setdefault(style, []).append(path)
    manifest.write_text(json.dumps({"arguments": wanted, "files": {
        s: [p.name for p in ps] for s, ps in paths.items()}}))  # fmt: skip
    return paths


def report_text(response: dict) -> str:
    """A report as one plain text (section titles and texts, blank lines between): what
    the Label Studio side imports for it."""
    parts = []
    for s in response["sections"]:
        if s.get("title"):
            parts.append(s["title"])
        parts.append(s["text"])
    return "\n\n".join(parts)


def texts(paths: dict[str, list[Path]]) -> Iterator[tuple[str, str, str]]:
    """(system, question, report text) of every report of :func:`generate`'s files."""
    for system, files in paths.items():
        for path in files:
            for record in json.loads(Path(path).read_text()):
                yield system, record["question"], report_text(record["response"])


# --- measuring ------------------------------------------------------------------------------


def load_average() -> str:
    one, five, _ = os.getloadavg()
    return f"load {one:.1f} / {five:.1f} (1 / 5 min)"


class Phases:
    """Wall and CPU seconds per phase of an import (this process; the database server's
    backend too on PostgreSQL, from ``/proc``): the import is instrumented by wrapping the
    functions that begin each phase, nothing else is changed."""

    def __init__(self, backend_pid: int | None):
        self.backend_pid = backend_pid
        self.totals: dict[str, list[float]] = {}

    def _server_cpu(self) -> float:
        if self.backend_pid is None:
            return 0.0
        with open(f"/proc/{self.backend_pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def now(self) -> tuple[float, float, float]:
        # CPU: this process and its children once ended (a new system's file is prepared
        # on every core by forked helpers, annotation.importers.parallel)
        t = os.times()
        cpu = t.user + t.system + t.children_user + t.children_system
        return time.perf_counter(), cpu, self._server_cpu()

    def add(self, name: str, start: tuple, end: tuple | None = None) -> None:
        end = end or self.now()
        row = self.totals.setdefault(name, [0.0, 0.0, 0.0])
        for k in range(3):
            row[k] += end[k] - start[k]

    @contextlib.contextmanager
    def wrapped(self, module, name: str, phase: str, inner: str | None = None):
        """``module.name`` timed as ``phase``; time spent in the ``inner`` phase during it
        is taken out of it (normalisation runs inside the write)."""
        original = getattr(module, name)

        def timed(*args, **kwargs):
            before = list(self.totals.get(inner, [0.0, 0.0, 0.0])) if inner else None
            start = self.now()
            try:
                return original(*args, **kwargs)
            finally:
                self.add(phase, start)
                if inner:
                    nested = self.totals.get(inner, [0.0, 0.0, 0.0])
                    row = self.totals[phase]
                    for k in range(3):
                        row[k] -= nested[k] - before[k]

        setattr(module, name, timed)
        try:
            yield
        finally:
            setattr(module, name, original)


def import_files(paths: dict[str, list[Path]], phases: Phases, split: bool = True) -> None:
    """Import every file, timed per phase (``split``) or as a whole (nothing wrapped: the
    clock read once per file, for a comparison with a checkout that lacks a phase's
    function)."""
    from django.core.management import call_command
    from django.db.backends.base.base import BaseDatabaseWrapper

    from annotation import importers, normalise
    from annotation.importers import structure

    try:  # a new system's reports prepared on every core (session 12)
        from annotation.importers import new_reports
    except ImportError:
        new_reports = None
    try:  # the statistics refresh (issue 29); absent from a checkout before it
        from annotation.importers import planner_statistics
    except ImportError:
        planner_statistics = None
    for system, path in ((s, p) for s, ps in paths.items() for p in ps):
        start = phases.now()
        if not split:
            call_command(
                "import_reports", str(path), study=STUDY, system=system, format="scholarqa",
                stdout=io.StringIO(),
            )  # fmt: skip
            phases.add("total", start)
            continue
        with (
            # one call per file where the import has it (per report, the clock's own reads
            # were a tenth of the import's CPU under load)
            phases.wrapped(normalise, "normalise_reports", "normalise")
            if hasattr(normalise, "normalise_reports")
            else phases.wrapped(normalise, "normalise_report", "normalise"),
            phases.wrapped(structure, "write_reports", "write", inner="normalise"),
            # a new system's file (session 12): prepared on every core, then written
            phases.wrapped(new_reports, "load_new", "prepare", inner="write")
            if new_reports
            else contextlib.nullcontext(),
            phases.wrapped(new_reports, "write_prepared", "write")
            if new_reports
            else contextlib.nullcontext(),
            phases.wrapped(importers, "_enable", "after"),
            # the import's one transaction committed: the rows' pages written (session 11:
            # until then counted in "parse", which is what is left of the total)
            phases.wrapped(BaseDatabaseWrapper, "commit", "commit"),
            phases.wrapped(planner_statistics, "analyse", "analyse")
            if planner_statistics
            else contextlib.nullcontext(),
        ):
            call_command(
                "import_reports", str(path), study=STUDY, system=system, format="scholarqa",
                stdout=io.StringIO(),
            )  # fmt: skip
        phases.add("total", start)


def task_page(rounds: int) -> tuple[float, float, int]:
    """(median wall ms, median CPU ms, queries) of the medal-ranking task page of the bench
    study's middle question (3 reports, ~30 citation anchors), through Django's test client
    as an annotator meets it: what the planner's statistics decide (issue 29: 256 ms on a
    fresh PostgreSQL until ANALYZE, 96 ms after)."""
    import statistics

    from django.conf import settings
    from django.contrib.auth.models import User
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext
    from django.urls import reverse

    from annotation.models import Annotator, Assignment, Question, Study

    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
    settings.STORAGES = {  # DEBUG off without collectstatic: static names as they are
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    study = Study.objects.get(name=STUDY)
    if "medal_ranking" not in study.tasks:
        study.tasks = [*study.tasks, "medal_ranking"]
        study.save(update_fields=["tasks"])
    user, _ = User.objects.get_or_create(username="report-import-bench")
    annotator, _ = Annotator.objects.get_or_create(user=user, defaults={"pseudonym": "Bench"})
    ids = list(Question.objects.filter(study=study).order_by("pk").values_list("pk", flat=True))
    question = Question.objects.get(pk=ids[len(ids) // 2])
    assignment, _ = Assignment.objects.get_or_create(
        study=study, annotator=annotator, question=question, task="medal_ranking",
        defaults={"report_order": list(question.reports.values_list("pk", flat=True))},
    )  # fmt: skip
    client = Client()
    client.force_login(user)
    url = reverse("annotate:task", args=[assignment.pk])
    first = client.get(url, secure=True)
    assert first.status_code == 200, (first.status_code, first.content[:300])
    walls, cpus = [], []
    for _ in range(rounds):
        start, cpu = time.perf_counter(), time.process_time()
        client.get(url, secure=True)
        walls.append((time.perf_counter() - start) * 1000)
        cpus.append((time.process_time() - cpu) * 1000)
    with CaptureQueriesContext(connection) as queries:
        client.get(url, secure=True)
    return statistics.median(walls), statistics.median(cpus), len(queries)


#: The tables a report import fills, parents first (the order the import writes them).
FLOOR_TABLES = ("question", "report", "section", "paragraph")


def floor(sqlite_file: Path | None, backend_pid: int | None) -> None:
    """The inserts alone: the rows the import stored, written again by the database's own
    fastest path, with nothing else (no parsing, normalising, preparing, id read-back).

    SQLite: a new file with the same schema (every table and index of the bench database,
    foreign keys on as Django has them, the import's page cache), each table's stored rows
    read back as tuples and written by one ``executemany`` per table in one transaction,
    through the ``sqlite3`` module (no Django). PostgreSQL: each table's rows taken out with
    ``COPY … TO STDOUT`` as bytes and, in a transaction rolled back afterwards, the tables
    emptied (``TRUNCATE``: new empty files with every index and foreign key) and the bytes
    put back with ``COPY … FROM STDIN``: the server's own work, timed from ``/proc``, with
    the commit's deferred foreign-key checks (``SET CONSTRAINTS ALL IMMEDIATE`` before the
    rollback). Prints rows, and seconds of CPU (and wall) per table."""
    print(f"\nfloor: the {len(FLOOR_TABLES)} tables' rows written again, nothing else")
    names = [f"annotation_{t}" for t in FLOOR_TABLES]
    if sqlite_file is not None:
        import sqlite3

        source = sqlite3.connect(sqlite_file)
        target_file = sqlite_file.with_name("floor.sqlite3")
        target = sqlite3.connect(target_file, isolation_level=None)
        for (sql,) in source.execute(
            "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' "
            "ORDER BY type = 'index'"
        ):
            target.execute(sql)
        target.execute("PRAGMA foreign_keys = ON")
        target.execute("PRAGMA cache_size = -262144")
        target.execute("BEGIN")
        for parent in ("auth_user", "annotation_study", "annotation_system"):  # not timed
            rows = source.execute(f'SELECT * FROM "{parent}"').fetchall()
            if rows:
                marks = ", ".join("?" * len(rows[0]))
                target.executemany(f'INSERT INTO "{parent}" VALUES ({marks})', rows)
        total_cpu = total_wall = 0.0
        for name in names:
            rows = source.execute(f'SELECT * FROM "{name}"').fetchall()
            marks = ", ".join("?" * len(rows[0]))
            wall, cpu = time.perf_counter(), time.process_time()
            target.executemany(f'INSERT INTO "{name}" VALUES ({marks})', rows)
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            total_cpu, total_wall = total_cpu + cpu, total_wall + wall
            print(f"  {name:28s} {len(rows):9d} rows  CPU {cpu:6.2f} s  wall {wall:6.2f} s")
            del rows
        wall, cpu = time.perf_counter(), time.process_time()
        target.execute("COMMIT")
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        print(f"  {'commit':28s} {'':9s}       CPU {cpu:6.2f} s  wall {wall:6.2f} s")
        print(f"  total: CPU {total_cpu + cpu:.2f} s, wall {total_wall + wall:.2f} s")
        target.close()
        source.close()
        target_file.unlink()
        return
    from django.db import connection

    def server() -> float:
        with open(f"/proc/{backend_pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    raw = connection.connection  # psycopg 3
    data = {}
    with raw.cursor() as cursor:
        for name in names:
            with cursor.copy(f'COPY "{name}" TO STDOUT') as copy:
                data[name] = b"".join(bytes(block) for block in copy)
    totals = [0.0, 0.0, 0.0]
    with raw.transaction(force_rollback=True), raw.cursor() as cursor:
        cursor.execute("TRUNCATE " + ", ".join(f'"{n}"' for n in names) + " CASCADE")
        for name in [*names, "constraints"]:
            start = (time.perf_counter(), time.process_time(), server())
            if name == "constraints":  # the deferred foreign-key checks of a commit
                cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
            else:
                with cursor.copy(f'COPY "{name}" FROM STDIN') as copy:
                    copy.write(data[name])
            wall, cpu, srv = (b - a for a, b in zip(start, (time.perf_counter(),
                              time.process_time(), server()), strict=True))  # fmt: skip
            totals = [totals[0] + wall, totals[1] + cpu, totals[2] + srv]
            rows = data[name].count(b"\n") if name in data else 0
            print(f"  {name:28s} {rows:9d} rows  server CPU {srv:6.2f} s  this process "
                  f"{cpu:5.2f} s  wall {wall:6.2f} s")  # fmt: skip
    print(f"  total: server CPU {totals[2]:.2f} s, this process {totals[1]:.2f} s, "
          f"wall {totals[0]:.2f} s")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=40_000)
    parser.add_argument("--database", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--database-url", default=PG, help="PostgreSQL: the bench's database")
    parser.add_argument("--seed", type=int, default=29)
    parser.add_argument("--folder", type=Path, help="write the files here (default: temporary)")
    parser.add_argument("--profile", type=Path, help="write a cProfile of the imports here")
    parser.add_argument("--page-rounds", type=int, default=15,
                        help="GETs of a task page after the import (0: none)")  # fmt: skip
    parser.add_argument("--totals", action="store_true",
                        help="time each file's import as a whole (no phase wrapped)")  # fmt: skip
    parser.add_argument("--floor", action="store_true",
                        help="after the import, time the stored rows' inserts alone")  # fmt: skip
    parser.add_argument("--page-only", metavar="DATABASE_URL",
                        help="no import: time the task page of a database a run left")  # fmt: skip
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="concord-report-import-"))
    if args.page_only:
        os.environ["DATABASE_URL"] = args.page_only
    elif args.database == "postgres":
        from load import recreate_database

        recreate_database(args.database_url)
        os.environ["DATABASE_URL"] = args.database_url
    else:
        os.environ["DATABASE_URL"] = f"sqlite:///{tmp / 'bench.sqlite3'}"
        print(f"SQLite file: {tmp / 'bench.sqlite3'}")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "concord.settings")
    os.environ.setdefault("DEBUG", "0")  # as in production: no log of every query
    os.environ.setdefault("SECRET_KEY", "report-import-bench-" + os.urandom(16).hex())
    import django

    django.setup()
    import logging

    from django.core.management import call_command
    from django.db import connection

    logging.getLogger("concord.imports").setLevel(logging.WARNING)  # a line per file: noise

    if args.page_only:
        wall, cpu, n = task_page(args.page_rounds)
        print(f"task page: median {wall:.1f} ms wall, {cpu:.1f} ms CPU, {n} queries; "
              f"{load_average()}")  # fmt: skip
        return
    print(f"{args.questions} questions x {len(SYSTEMS)} systems; database {args.database}; "
          f"{load_average()} on {os.cpu_count()} cores", flush=True)  # fmt: skip
    start = time.perf_counter()
    paths = generate(args.questions, args.seed, args.folder or tmp)
    files = [p for ps in paths.values() for p in ps]
    size = sum(p.stat().st_size for p in files) / 1e6
    print(f"generated {len(files)} files, {size:.0f} MB, in {time.perf_counter() - start:.1f} s",
          flush=True)  # fmt: skip
    call_command("migrate", verbosity=0)
    backend = None
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            backend = cursor.fetchone()[0]
    phases = Phases(backend)
    profiler = cProfile.Profile() if args.profile else None
    with profiler or contextlib.nullcontext():
        import_files(paths, phases, split=not args.totals)
    if profiler:
        profiler.dump_stats(args.profile)
    total = phases.totals["total"]
    phases.totals["parse"] = [
        total[k]
        - sum(
            phases.totals.get(p, [0.0] * 3)[k]
            for p in ("prepare", "normalise", "write", "after", "commit", "analyse")
        )
        for k in range(3)
    ]  # read, check and parse (and the command's own start and summary)
    print(f"{'phase':12s} {'wall (s)':>9s} {'CPU (s)':>9s} {'server CPU (s)':>15s}")
    for name in ("prepare", "parse", "normalise", "write", "after", "commit", "analyse",
                 "total"):  # fmt: skip
        wall, cpu, server = phases.totals.get(name, [0.0] * 3)
        print(f"{name:12s} {wall:9.2f} {cpu:9.2f} {server:15.2f}")
    if args.page_rounds:
        wall, cpu, n = task_page(args.page_rounds)
        print(f"task page right after the import: median {wall:.1f} ms wall, {cpu:.1f} ms CPU, "
              f"{n} queries")  # fmt: skip
    if args.floor:
        floor(tmp / "bench.sqlite3" if args.database == "sqlite" else None, backend)
    print(f"[{load_average()} at the end]")


if __name__ == "__main__":
    main()
