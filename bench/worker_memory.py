"""Memory of the gunicorn process tree after annotators' requests (issue 29).

Starts gunicorn as ``make serve`` does (``--preload``, 3 gthread workers × 4 threads,
``DEBUG=0``) on a fresh SQLite database holding one annotator with medal-ranking tasks,
sends ``--pages`` rounds of an annotator's requests (task page, queue, autosave) so that
every worker serves some, and prints each process's RSS and PSS (``/proc/PID/smaps_rollup``
through psutil) and the tree's sums, and which analysis libraries each process has
imported (numpy, scipy, pandas, matplotlib: those with compiled extensions). ``--code DIR`` serves another
checkout's code (the database is set up by this one's), to compare branches;
``--warm-urls`` imports the URL configuration in the master before it forks (a gunicorn
``when_ready`` hook), for a checkout whose ``concord/wsgi.py`` does not do it already.

Run: ``.venv/bin/python bench/worker_memory.py [--pages 30] [--code DIR] [--warm-urls]``.
"""

from __future__ import annotations

import argparse
import os
import secrets
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: The analysis libraries seen from outside a process: by their compiled extensions, which
#: it maps once it imported them (openai, pure Python, cannot be seen this way:
#: tests/deploy/test_worker_imports.py looks inside a process).
HEAVY = ("numpy", "scipy", "pandas", "matplotlib")
#: gunicorn hook of --warm-urls: the master imports every URL module (and the views they
#: name) before forking its workers.
WARM_HOOK = """
def when_ready(server):
    from django.urls import get_resolver

    get_resolver().url_patterns
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def setup_database(path: Path, tasks: int) -> tuple[str, list[int]]:
    """Migrate a fresh SQLite file; one annotator with ``tasks`` medal-ranking tasks.
    Returns (session key of the annotator, assignment ids)."""
    os.environ["DATABASE_URL"] = f"sqlite:///{path}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "concord.settings")
    import django

    django.setup()
    from django.core.management import call_command
    from django.test import Client

    from tests.builders.content import make_assignment, make_question, make_study
    from tests.builders.users import make_user

    call_command("migrate", verbosity=0)
    call_command("collectstatic", "--noinput", verbosity=0)  # DEBUG off: the manifest
    user = make_user("annotator_m", "annotator", annotator=True)
    study = make_study("Worker memory")
    ids = [
        make_assignment(user.annotator, make_question(study, paragraphs=20), "medal_ranking", i).pk
        for i in range(tasks)
    ]
    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value, ids


def processes(master: int):
    import psutil

    parent = psutil.Process(master)
    return [parent, *parent.children(recursive=True)]


def heavy_modules(pid: int) -> list[str]:
    """The analysis libraries the process has imported (:data:`HEAVY`)."""
    try:
        maps = Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return []
    return [name for name in HEAVY if f"/site-packages/{name}/" in maps]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pages", type=int, default=30, help="rounds of requests")
    parser.add_argument("--code", type=Path, default=ROOT, help="checkout gunicorn serves")
    parser.add_argument("--warm-urls", action="store_true")
    parser.add_argument("--workers", type=int, default=3)
    args = parser.parse_args()
    import requests

    tmp = Path(tempfile.mkdtemp(prefix="concord-memory-"))
    # production's settings, in this process too: the session is signed with SECRET_KEY
    os.environ.update({
        "DEBUG": "0",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "127.0.0.1",
        "SECURE_SSL_REDIRECT": "0",
        "STATIC_ROOT": str(tmp / "static"),
    })  # fmt: skip
    session, ids = setup_database(tmp / "memory.sqlite3", 5)
    port = free_port()
    env = {**os.environ}
    command = [
        str(Path(sys.executable).parent / "gunicorn"), "concord.wsgi:application",
        "--bind", f"127.0.0.1:{port}", "--chdir", str(args.code),
        "--worker-class", "gthread", "--workers", str(args.workers), "--threads", "4",
        "--keep-alive", "75", "--preload",
    ]  # fmt: skip
    if args.warm_urls:
        hook = tmp / "warm.py"
        hook.write_text(WARM_HOOK)
        command += ["--config", str(hook)]
    log = (tmp / "gunicorn.log").open("w")
    server = subprocess.Popen(command, cwd=args.code, env=env, stdout=log, stderr=log)
    base = f"http://127.0.0.1:{port}"
    headers = {"X-Forwarded-Proto": "https", "Origin": f"https://127.0.0.1:{port}"}
    try:
        deadline = time.monotonic() + 300
        while True:
            try:
                requests.get(f"{base}/healthz", headers=headers, timeout=60)
                break
            except requests.RequestException:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise SystemExit(
                        f"gunicorn did not start: see {tmp / 'gunicorn.log'}"
                    ) from None
                time.sleep(0.5)
        while len(processes(server.pid)) < args.workers + 1:
            time.sleep(0.2)
        before = {p.pid: p.memory_full_info() for p in processes(server.pid)}
        statuses = []
        for i in range(args.pages):
            pk = ids[i % len(ids)]
            # a new connection per request, so that the requests spread over the workers
            # cookies by hand: production's are Secure, which requests keeps off plain HTTP
            cookie = {"Cookie": f"sessionid={session}", **headers}
            page = requests.get(f"{base}/annotate/{pk}/", headers=cookie, timeout=60)
            queue = requests.get(f"{base}/annotate/", headers=cookie, timeout=60)
            token = page.cookies.get("csrftoken", "")
            save = requests.post(
                f"{base}/annotate/{pk}/save/",
                data={"version": str(i // len(ids)), "reasoning": f"Thoughts {i}."},
                headers={**cookie, "Cookie": f"sessionid={session}; csrftoken={token}",
                         "X-CSRFToken": token},
                timeout=60,
            )  # fmt: skip
            statuses.append((page.status_code, queue.status_code, save.status_code))
        print(f"code: {args.code}; --warm-urls: {args.warm_urls}; {args.pages} rounds of "
              f"task page, queue, autosave; answers {sorted(set(statuses))}; "
              f"load average {os.getloadavg()[0]:.1f}")  # fmt: skip
        print("| process | RSS before (MB) | RSS after (MB) | PSS after (MB) | loaded |")
        print("| --- | ---: | ---: | ---: | --- |")
        rss = pss = 0
        for n, p in enumerate(processes(server.pid)):
            info = p.memory_full_info()
            rss, pss = rss + info.rss, pss + info.pss
            old = before.get(p.pid)
            name = "master" if n == 0 else f"worker {n}"
            print(f"| {name} | {old.rss / 2**20 if old else float('nan'):.0f} | "
                  f"{info.rss / 2**20:.0f} | {info.pss / 2**20:.0f} | "
                  f"{', '.join(heavy_modules(p.pid)) or '—'} |")  # fmt: skip
        print(f"| tree | | {rss / 2**20:.0f} | {pss / 2**20:.0f} | |")
    finally:
        server.terminate()
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


if __name__ == "__main__":
    main()
