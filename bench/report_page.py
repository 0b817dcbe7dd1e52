"""The report page after a selector change against the command, on the released data (issue 14)
and at scale (issue 29).

Imports the released ScholarQA-CS2 annotation files (``../shared/data/scholarqa-cs2``, as
the tests do: :mod:`tests.builders.scholarqa`) into a fresh database — or, with
``--questions N``, the scale study of ``agreement_scale.py`` (N questions × 3 of 8 systems
× 2 annotators, one judge; generated and imported by that script's functions) —, then, for each
selection, back to back in every round (so page and command see the same machine load):

* the uncached report page: the cache (and the rows the process keeps) emptied, the whole page (``GET /reports/<id>/``) of
  the selection, as when it is first opened;
* the page after a selector change: the cache emptied, the page's default selection
  visited (for the default selection: ``ties=partial``), then the htmx GET of the report
  body for the changed selection (what the browser asks for when a researcher changes
  one selector);
* both of those in the benchmark's process through Django's test client, and over HTTP
  through a WSGI server on a local port (``--http``, default on);
* the same selection's ``manage.py agreement --json`` as a new process (end to end, as a
  user runs it), with its modules' bytecode cached as an installed Python has it (in a
  temporary ``PYTHONPYCACHEPREFIX``; ``--no-pyc``: without, as when
  PYTHONDONTWRITEBYTECODE is set, which compiles about 1,300 modules at every start).

The target (issues 14 and 29): page ≤ command, on the released data and at 40,000
questions (``--questions 40000``). Prints medians over ``--rounds`` with the load
average before and after; ``--profile QUERY`` prints where an uncached page's time goes
(cProfile, cumulative) instead.

Run: ``.venv/bin/python bench/report_page.py [--rounds 5] [--questions 40000]``. Uses
DATABASE_URL if set (e.g. PostgreSQL; a database that already holds the study is reused,
so the 40K import is paid once), else a fresh SQLite file in a temp folder.
"""

from __future__ import annotations

import argparse
import atexit
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
SHARED = ROOT.parent / "shared" / "data" / "scholarqa-cs2"
STUDY = "bench-page"

#: (page query string, the command's arguments for the same selection)
SELECTIONS = [
    ("", []),
    ("ties=partial", ["--ties", "partial"]),
    ("settings=assigned", ["--setting", "assigned"]),
    ("settings=near_expert", ["--setting", "near_expert"]),
    ("settings=assigned&compat=scholarqa-cs2", ["--setting", "assigned", "--compat", "scholarqa-cs2"]),
]  # fmt: skip
#: the scale study has one setting (``assigned``): the selections that apply to it
SCALE_SELECTIONS = [s for s in SELECTIONS if "near_expert" not in s[0]]


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(fn) -> tuple[float, float]:
    """(wall, CPU) seconds of ``fn()``: this process's CPU time plus that of the child
    processes it waited for (the command). CPU time is less inflated than wall time when
    other sessions load the machine, but it is not immune (shared caches, frequency)."""
    start, cpu, children = time.perf_counter(), time.process_time(), _children_cpu()
    fn()
    wall = time.perf_counter() - start
    return wall, time.process_time() - cpu + _children_cpu() - children


def setup(questions: int | None = None):
    """The study (the released files, or ``questions`` generated ones) and a researcher."""
    tmp = Path(tempfile.mkdtemp(prefix="concord-bench-page-"))
    os.environ.setdefault("DATABASE_URL", f"sqlite:///{tmp / 'bench.sqlite3'}")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "concord.settings")
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from annotation.models import Study
    from tests.builders.scholarqa import import_release

    settings.ALLOWED_HOSTS = ["*"]
    call_command("migrate", verbosity=0)
    name = study_name(questions)
    if not Study.objects.filter(name=name).exists():
        start = time.perf_counter()
        if questions is None:
            import_release(SHARED, name)
        else:
            from agreement_scale import generate, import_files

            import_files(generate(questions, tmp), name)
        print(f"import of {'the released files' if questions is None else f'{questions} questions'}: "
              f"{time.perf_counter() - start:.1f} s", flush=True)  # fmt: skip
    user, _ = get_user_model().objects.get_or_create(
        username="bench-researcher", defaults={"is_staff": True, "is_superuser": True}
    )
    return Study.objects.get(name=name), user


def study_name(questions: int | None) -> str:
    return STUDY if questions is None else f"{STUDY}-{questions}"


def serve(port: int):
    """A threaded WSGI server of the project on ``port`` (this process, its own thread)."""
    from socketserver import ThreadingMixIn
    from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

    from django.core.wsgi import get_wsgi_application

    class Quiet(WSGIRequestHandler):
        def log_message(self, *args):
            pass

    class Threaded(ThreadingMixIn, WSGIServer):
        daemon_threads = True

    server = make_server("127.0.0.1", port, get_wsgi_application(), Threaded, Quiet)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--port", type=int, default=8160)
    parser.add_argument("--no-http", dest="http", action="store_false")
    parser.add_argument("--no-pyc", dest="pyc", action="store_false",
                        help="run the command without bytecode caches (PYTHONDONTWRITEBYTECODE "
                             "as set, every module compiled at each start)")  # fmt: skip
    parser.add_argument("--profile", metavar="QUERY", help="profile one uncached page instead")
    parser.add_argument("--only", metavar="QUERY", action="append",
                        help="measure only these selections (repeatable)")  # fmt: skip
    parser.add_argument("--questions", type=int, metavar="N",
                        help="the scale study of agreement_scale.py with N questions (issue 29) "
                             "instead of the released files")  # fmt: skip
    parser.add_argument("--change", action="store_true",
                        help="with --profile: profile the page after a selector change (the "
                             "previous selection visited first, then the htmx body)")  # fmt: skip
    args = parser.parse_args()
    study, user = setup(args.questions)
    name = study_name(args.questions)
    from django.core.cache import cache
    from django.test import Client

    client = Client()
    client.force_login(user)
    url = f"/reports/{study.pk}/"
    client.get(url)  # the first page load of the process (imports, templates)

    def page(query: str, htmx: bool = False):
        headers = {"HX-Request": "true"} if htmx else {}
        response = client.get(f"{url}?{query}", headers=headers)
        assert response.status_code == 200 and b"report-body" in response.content, response

    from metaeval import cache as report_cache

    def forget():
        """Nothing computed before: the report cache and the rows a process keeps."""
        cache.clear()
        getattr(report_cache, "forget_selections", lambda: None)()

    if args.profile is not None:
        import cProfile
        import pstats

        forget()
        if args.change:
            page("" if args.profile else "ties=partial")
        profiler = cProfile.Profile()
        profiler.runcall(page, args.profile, args.change)
        stats = pstats.Stats(profiler)
        stats.sort_stats("cumulative").print_stats(90)
        stats.sort_stats("tottime").print_stats(30)
        return

    cookie = f"sessionid={client.cookies['sessionid'].value}"
    base = f"http://127.0.0.1:{args.port}{url}"
    if args.http:
        serve(args.port)

    def http(query: str, htmx: bool = False):
        headers = {"Cookie": cookie, **({"HX-Request": "true"} if htmx else {})}
        with urllib.request.urlopen(
            urllib.request.Request(f"{base}?{query}", headers=headers)
        ) as r:
            assert r.status == 200 and b"report-body" in r.read()

    env = dict(os.environ)
    if args.pyc:  # as installed: compiled bytecode, here in a temporary cache of its own
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = tempfile.mkdtemp(prefix="concord-bench-pyc-")
        atexit.register(shutil.rmtree, env["PYTHONPYCACHEPREFIX"], True)

    def command(argv):
        subprocess.run(
            [sys.executable, "manage.py", "agreement", "--study", name, "--json", *argv],
            cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL,
        )  # fmt: skip

    command([])  # the bytecode cache filled (with --no-pyc: the file cache warmed)

    def uncached(get, query):
        forget()
        return timed(lambda: get(query))

    def changed(get, query):
        forget()
        get("" if query else "ties=partial")  # the page as it was, then the selector change
        return timed(lambda: get(query, True))

    every = SELECTIONS if args.questions is None else SCALE_SELECTIONS
    selections = [s for s in every if not args.only or s[0] in args.only]
    names = ["page", "change"] + (["http page", "http change"] if args.http else []) + ["command"]
    times = {q: {n: [] for n in names} for q, _ in selections}
    loads = [load()]
    for _ in range(args.rounds):
        for query, argv in selections:
            got = times[query]
            got["page"].append(uncached(page, query))
            got["change"].append(changed(page, query))
            if args.http:
                got["http page"].append(uncached(http, query))
                got["http change"].append(changed(http, query))
            got["command"].append(timed(lambda a=argv: command(a)))
        loads.append(load())
    db = os.environ["DATABASE_URL"].split("://")[0]
    pyc = "with bytecode caches" if args.pyc else "without bytecode caches"
    what = (
        "released ScholarQA-CS2 files" if args.questions is None else f"{args.questions} questions"
    )
    print(f"\n{what}; database: {db}; command {pyc}; median of {args.rounds} rounds, back to back; "
          f"load average (1, 5, 15 min) per round: {' | '.join(loads)}")  # fmt: skip
    for what, k in (("wall", 0), ("CPU", 1)):
        print(f"\n{what} time\n\n| selection | " + " | ".join(f"{n} (s)" for n in names)
              + " | slowest page / command |")  # fmt: skip
        print("| --- |" + " ---: |" * (len(names) + 1))
        for query, _ in selections:
            med = {n: statistics.median(v[k] for v in got) for n, got in times[query].items()}
            worst = max(v for n, v in med.items() if n != "command")
            cells = " | ".join(f"{med[n]:.2f}" for n in names)
            print(f"| `{query or '(default)'}` | {cells} | {worst / med['command']:.2f} |",
                  flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
