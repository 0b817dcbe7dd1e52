"""Load: many annotators autosaving and submitting at once, against gunicorn and PostgreSQL.

Builds its own PostgreSQL database (a study of medal ranking, pairwise, metric-wise and
rubric coverage tasks made with ``tests.builders.content``), starts gunicorn on loopback
with ``DEBUG=0`` as behind a TLS proxy, and runs one thread per simulated annotator with a
plain HTTP client: log in through the login form (CSRF), open the queue, open each task,
autosave growing answers with think time through the same endpoint and htmx headers the
page uses, submit (now and then submit again, which must be a no-op, or save on a stale
version, which must be refused with 409), move on.

Then it counts, in the database, what the clients were told: every acknowledged submit
exists exactly once with the content sent, every assignment's last acknowledged autosave
is the stored draft, every draft's history has one version per accepted change. Any
non-2xx/3xx answer other than the deliberate 409s is an error; errors or lost judgments
make the exit status 1. The database is dropped at the end.

    .venv/bin/python bench/load.py                      # 50 annotators, 5 minutes
    .venv/bin/python bench/load.py --annotators 10 --duration 30
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import requests

ROOT = Path(__file__).resolve().parents[1]
TASKS = ("medal_ranking", "pairwise", "metric_wise", "rubric_coverage")
# Throwaway accounts in a throwaway database; drawn per run, so nothing secret-like is committed.
PASSWORD = secrets.token_urlsafe(16)
WORDS = [
    "covers",
    "misses",
    "cites",
    "repeats",
    "answers",
    "hedges",
    "organised",
    "ablation",
    "evidence",
    "depth",
]


# --- the database and the server ------------------------------------------------------------


def admin_url(url: str) -> str:
    """The same server's maintenance database, to create and drop ``url``'s database."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path="/postgres"))


def db_name(url: str) -> str:
    return urlsplit(url).path.lstrip("/")


def recreate_database(url: str) -> None:
    import psycopg

    name = db_name(url)
    if not re.fullmatch(r"[a-z_][a-z0-9_]*", name):
        raise SystemExit(f"--database-url: {name!r} is not a plain database name")
    with psycopg.connect(admin_url(url), autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {name}")


def drop_database(url: str) -> None:
    import psycopg

    with psycopg.connect(admin_url(url), autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {db_name(url)} WITH (FORCE)")


def build_study(annotators: int, tasks_each: int, paragraphs: int, rubric_items: int) -> None:
    """Migrate, then one study: ``tasks_each`` questions; every annotator gets each question
    once, with the four task types in rotation (so no two of an annotator's tasks share a
    question's judgment rows), in a shuffled order."""
    from django.contrib.auth.hashers import make_password
    from django.contrib.auth.models import Group, User
    from django.core.management import call_command

    from annotation.models import Annotator
    from tests.builders.content import make_assignment, make_question, make_study

    call_command("migrate", verbosity=0)
    study = make_study("Load study", tasks=TASKS)
    questions = [
        make_question(study, n_reports=3, paragraphs=paragraphs, rubric_items=rubric_items)
        for _ in range(tasks_each)
    ]
    hashed = make_password(PASSWORD)  # one hash for all: setup time, not login cost
    users = User.objects.bulk_create(
        User(username=f"load{i:03d}", password=hashed) for i in range(annotators)
    )
    group, _ = Group.objects.get_or_create(name="annotator")
    group.user_set.add(*users)
    rng = random.Random(0)
    for i, user in enumerate(users):
        annotator = Annotator.objects.create(user=user, pseudonym=f"Load annotator {i}")
        order = list(range(tasks_each))
        rng.shuffle(order)
        for position, q in enumerate(order):
            make_assignment(annotator, questions[q], TASKS[(i + q) % len(TASKS)], position)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_gunicorn(url: str, port: int, workers: int, threads: int, log: Path):
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "DEBUG": "0",
        "SECRET_KEY": secrets.token_urlsafe(40),
        "ALLOWED_HOSTS": "127.0.0.1",
        "CONN_MAX_AGE": os.environ.get("CONN_MAX_AGE", "60"),
        "LOG_LEVEL": "ERROR",  # not the expected 409s; server errors are still logged
    }
    env.pop("CELERY_BROKER_URL", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "concord.wsgi:application",
         "--bind", f"127.0.0.1:{port}", "--workers", str(workers), "--threads", str(threads),
         "--worker-class", "gthread", "--timeout", "60", "--graceful-timeout", "10",
         "--error-logfile", str(log)],
        cwd=ROOT, env=env,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"gunicorn exited with {proc.returncode}; see {log}")
        try:
            ready = requests.get(
                f"http://127.0.0.1:{port}/accounts/login/",
                headers={"X-Forwarded-Proto": "https"},
                allow_redirects=False,
                timeout=2,
            )
            if ready.status_code == 200:
                return proc
        except requests.RequestException:
            pass
        time.sleep(0.3)
    proc.kill()
    raise SystemExit(f"gunicorn did not answer within 60 s; see {log}")


# --- the simulated annotators -------------------------------------------------------------


class TaskForm(HTMLParser):
    """The task form's fields: radio groups with their options, text fields, hidden values.
    Inputs inside ``<template>`` (rows the page's script may add) are not fields yet."""

    def __init__(self):
        super().__init__()
        self.radios: dict[str, list[str]] = {}
        self.texts: list[str] = []
        self.hidden: dict[str, str] = {}
        self._in_template = 0

    def handle_starttag(self, tag, attrs):
        if tag == "template":
            self._in_template += 1
        if self._in_template:
            return
        a = dict(attrs)
        name = a.get("name")
        if not name:
            return
        if tag == "textarea":
            self.texts.append(name)
        elif tag == "input" and a.get("type") == "radio":
            self.radios.setdefault(name, []).append(a.get("value", ""))
        elif tag == "input" and a.get("type") == "hidden":
            self.hidden.setdefault(name, a.get("value", ""))

    def handle_endtag(self, tag):
        if tag == "template":
            self._in_template -= 1


def plan_answers(form: TaskForm, rng: random.Random) -> list[tuple[str, str]]:
    """A complete, valid answer: distinct medals, no ties, every rating and label, text
    in every text box."""
    answers = []
    medals = iter(rng.sample(["gold", "silver", "bronze"], 3))
    for name, options in form.radios.items():
        if name.startswith("medal-"):
            answers.append((name, next(medals)))
        else:
            answers.append((name, rng.choice([o for o in options if o != "tie"] or options)))
    for name in form.texts:
        answers.append((name, " ".join(rng.choices(WORDS, k=rng.randint(6, 14))).capitalize()))
    return answers


PARAGRAPH = re.compile(r'<div class="para"[^>]*data-paragraph="(\d+)" data-report="([^"]+)"')
CITE = re.compile(r'class="cite cite--([a-z_]+)" data-cite="([^"]+)"')
SUPPORT = {"snippet": "snippet_supports", "title_only": "title_likely_supports", "bare": "none"}


def plan_claims(html: str, rng: random.Random, per_report: int = 3) -> list[tuple[str, str]]:
    """Metric-wise claims, as the page's claim picker posts them: a sentence of a paragraph
    ending in one of its citations, whether that citation supports it, and coverage."""
    cited: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
    marks = list(PARAGRAPH.finditer(html))
    for m, following in zip(marks, [*marks[1:], None], strict=True):
        segment = html[m.end() : following.start() if following else len(html)]
        for kind, key in CITE.findall(segment):
            cited[m.group(2)].append((m.group(1), kind, key))
    fields = []
    for pid, options in cited.items():
        for c, (number, kind, key) in enumerate(rng.sample(options, min(per_report, len(options)))):
            prefix = f"claim.{pid}.c{c}"
            fields += [
                (f"{prefix}.paragraph", number),
                (f"{prefix}.citations", json.dumps([key])),
                (f"{prefix}.text", " ".join(rng.choices(WORDS, k=8)).capitalize() + "."),
                (f"{prefix}.support.0", SUPPORT.get(kind, "none")),
                (f"{prefix}.coverage", rng.choice(["fully", "partially", "none"])),
                (f"{prefix}.notes", ""),
            ]
    return fields


def version_in(html: str) -> int | None:
    m = re.search(r'<input[^>]*id="base-version"[^>]*value="(\d+)"', html)
    return int(m.group(1)) if m else None


@dataclass
class Outcome:
    """What the clients were told, per assignment: the check compares it with the database."""

    saved: tuple[int, list] | None = None  # last acknowledged autosave: (version, fields)
    submitted: list | None = None  # fields of the acknowledged submit
    versions: int = 0  # acknowledged saves that changed something (each a new version)


@dataclass
class Stats:
    lock: threading.Lock = field(default_factory=threading.Lock)
    latency: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: list[str] = field(default_factory=list)
    conflicts: int = 0
    outcomes: dict[int, Outcome] = field(default_factory=dict)

    def record(self, kind: str, seconds: float) -> None:
        with self.lock:
            self.latency[kind].append(seconds)

    def error(self, message: str) -> None:
        with self.lock:
            self.errors.append(message)


class Annotator(threading.Thread):
    def __init__(self, n: int, base: str, stats: Stats, deadline: float, think: float, ramp: float):
        super().__init__(name=f"annotator-{n}", daemon=True)
        self.ramp = ramp
        self.username = f"load{n:03d}"
        self.base, self.stats, self.deadline, self.think = base, stats, deadline, think
        self.rng = random.Random(n)
        self.http = requests.Session()
        origin = "https://" + urlsplit(base).netloc
        self.http.headers.update({"X-Forwarded-Proto": "https", "Origin": origin})

    def request(self, kind: str, method: str, path: str, expect=(200,), **kw):
        # The server runs as in production behind a TLS-terminating proxy (the client sends
        # X-Forwarded-Proto: https), so its cookies are Secure; requests would not send them
        # back over this plain loopback leg, so the Cookie header is written here.
        cookies = "; ".join(f"{c.name}={c.value}" for c in self.http.cookies)
        kw["headers"] = {**kw.get("headers", {}), "Cookie": cookies}
        start = time.perf_counter()
        try:
            r = self.http.request(method, self.base + path, timeout=60, allow_redirects=False, **kw)
        except requests.RequestException as exc:
            self.stats.error(f"{self.username} {kind} {path}: {exc.__class__.__name__}: {exc}")
            return None
        self.stats.record(kind, time.perf_counter() - start)
        if r.status_code not in expect:
            self.stats.error(
                f"{self.username} {kind} {path}: HTTP {r.status_code} {r.text[:200]!r}"
            )
            return None
        return r

    def pause(self, scale: float = 1.0) -> bool:
        """Think; False once the run is over."""
        wait = self.rng.uniform(0.4, 1.6) * self.think * scale
        time.sleep(max(0.0, min(wait, self.deadline - time.monotonic())))
        return time.monotonic() < self.deadline

    def run(self):
        try:
            self.session()
        except Exception as exc:  # noqa: BLE001 - a crashed client is an error, not a hang
            self.stats.error(f"{self.username}: client crashed: {exc!r}")

    def session(self):
        time.sleep(self.rng.uniform(0, self.ramp))  # people arrive over the first minute
        page = self.request("login_form", "GET", "/accounts/login/")
        if page is None:
            return
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
        login = self.request(
            "login", "POST", "/accounts/login/", expect=(302,),
            data={"csrfmiddlewaretoken": token, "username": self.username,
                  "password": PASSWORD, "next": ""},
            headers={"Referer": self.base.replace("http:", "https:") + "/accounts/login/"},
        )  # fmt: skip
        if login is None:
            return
        queue = self.request("queue", "GET", "/annotate/")
        if queue is None:
            return
        pks = list(
            dict.fromkeys(int(pk) for pk in re.findall(r'href="/annotate/(\d+)/"', queue.text))
        )
        for pk in pks:
            if not self.pause(0.5) or not self.task(pk):
                return

    def task(self, pk: int) -> bool:
        path = f"/annotate/{pk}/"
        page = self.request("task_page", "GET", path)
        if page is None:
            return False
        form = TaskForm()
        form.feed(page.text)
        token, version = form.hidden.get("csrfmiddlewaretoken"), version_in(page.text)
        if token is None or version is None:
            self.stats.error(f"{self.username} task_page {path}: no form")
            return False
        outcome = self.stats.outcomes.setdefault(pk, Outcome())
        # hidden inputs go with every post, as the browser sends them
        kept = [
            (k, v) for k, v in form.hidden.items() if k not in ("csrfmiddlewaretoken", "version")
        ]
        answers = kept + plan_answers(form, self.rng)
        if 'class="claims"' in page.text:
            answers += plan_claims(page.text, self.rng)
        htmx = {"HX-Request": "true", "HX-Current-URL": self.base + path,
                "HX-Target": "save-status", "Referer": self.base + path}  # fmt: skip
        steps = self.rng.randint(3, 6)
        for step in range(1, steps + 1):
            if not self.pause():
                return False
            fields = answers[: max(1, len(answers) * step // steps)]
            body = [("csrfmiddlewaretoken", token), ("version", str(version)), *fields]
            r = self.request("autosave", "POST", path + "save/", data=body,
                             headers={**htmx, "HX-Trigger": "task-form"})  # fmt: skip
            if r is None:
                return False
            new = version_in(r.text)
            if new is None:
                self.stats.error(f"{self.username} autosave {path}: no version in the answer")
                return False
            outcome.versions += new != version
            version = new
            outcome.saved = (version, fields)
            if self.rng.random() < 0.03:  # a second tab with an old version: must be refused
                stale = [("csrfmiddlewaretoken", token), ("version", str(version - 1)), *fields[:1]]
                r = self.request("conflict_check", "POST", path + "save/", expect=(409,),
                                 data=stale, headers={**htmx, "HX-Trigger": "task-form"})  # fmt: skip
                if r is None:
                    return False
                with self.stats.lock:
                    self.stats.conflicts += 1
        if self.rng.random() < 0.1:  # leave it as a draft for now
            return True
        if not self.pause():
            return False
        body = [("csrfmiddlewaretoken", token), ("version", str(version)), *answers]
        submit = {**htmx, "HX-Trigger": "submit-btn"}
        if self.request("submit", "POST", path + "submit/", expect=(204,), data=body,
                        headers=submit) is None:  # fmt: skip
            return False
        outcome.submitted = answers
        double_click = self.rng.random() < 0.05  # the same submit again must change nothing
        resubmit = double_click and self.request(
            "resubmit", "POST", path + "submit/", expect=(204,), data=body, headers=submit
        )
        return not (double_click and resubmit is None)


# --- the check ----------------------------------------------------------------------------


def sent_payload(spec, page, fields: list) -> dict:
    """The payload the server makes of posted ``fields`` (as JSON stores it)."""
    from django.http import QueryDict

    data = QueryDict(mutable=True)
    for k, v in fields:
        data.appendlist(k, v)
    return json.loads(json.dumps(spec.parse(data, page)))


def lost_judgments(outcomes: dict[int, Outcome]) -> list[str]:
    """Every acknowledged submit and last acknowledged autosave, looked up in the database."""
    from annotation.annotate.page import load_page
    from annotation.annotate.registry import SPECS
    from annotation.models import (
        Assignment,
        DraftVersion,
        MedalRanking,
        PairwisePreference,
        ReportRating,
        RubricCoverage,
    )

    rows = {
        "medal_ranking": MedalRanking,
        "pairwise": PairwisePreference,
        "metric_wise": ReportRating,
        "rubric_coverage": RubricCoverage,
    }
    problems = []
    assignments = Assignment.objects.select_related("annotator__user", "draft").in_bulk(outcomes)
    for pk, seen in sorted(outcomes.items()):
        a = assignments[pk]
        spec = SPECS[a.task]
        page = load_page(a.annotator.user, pk, SPECS)

        draft = a.draft
        history = DraftVersion.objects.filter(assignment=a)
        if history.count() != draft.version:
            problems.append(
                f"assignment {pk}: {history.count()} versions for draft v{draft.version}"
            )
        if seen.submitted is not None:
            sent = sent_payload(spec, page, seen.submitted)
            submits = list(history.filter(kind=DraftVersion.Kind.SUBMIT))
            if len(submits) != 1 or submits[0].payload != sent or draft.payload != sent:
                problems.append(f"assignment {pk}: submit stored {len(submits)}× or not as sent")
            if a.status != Assignment.Status.SUBMITTED or draft.submitted_version is None:
                problems.append(f"assignment {pk}: acknowledged submit, status {a.status}")
            if not rows[a.task].objects.filter(assignment=a).exists():
                problems.append(f"assignment {pk}: no {rows[a.task].__name__} rows")
        elif seen.saved is not None:
            version, fields = seen.saved
            if draft.version != version or draft.payload != sent_payload(spec, page, fields):
                problems.append(
                    f"assignment {pk}: draft v{draft.version} is not the acknowledged v{version}"
                )
    return problems


def percentiles(values: list[float]) -> tuple[float, ...]:
    import numpy as np

    ms = np.asarray(values) * 1000
    return (*np.percentile(ms, [50, 95, 99]), ms.max())


def report(stats: Stats, elapsed: float, lost: list[str], args) -> None:
    total = sum(len(v) for v in stats.latency.values())
    print(f"\n{args.annotators} annotators, {elapsed:.0f} s, gunicorn {args.workers} workers × "
          f"{args.threads} threads, think ≈ {args.think} s")  # fmt: skip
    print(f"{'request':<15} {'count':>7} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'max ms':>8}")
    kinds = [k for k in ("login_form", "login", "queue", "task_page", "autosave",
                         "conflict_check", "submit", "resubmit") if stats.latency.get(k)]  # fmt: skip
    for kind in [*kinds, "overall"]:
        values = (
            [x for v in stats.latency.values() for x in v] if kind == "overall"
            else stats.latency[kind]
        )  # fmt: skip
        if values:
            p50, p95, p99, top = percentiles(values)
            print(f"{kind:<15} {len(values):>7} {p50:>8.1f} {p95:>8.1f} {p99:>8.1f} {top:>8.1f}")
    submits = sum(o.submitted is not None for o in stats.outcomes.values())
    drafts = sum(o.submitted is None and o.saved is not None for o in stats.outcomes.values())
    print(f"requests/s {total / elapsed:.1f} · submits acknowledged {submits} · drafts left "
          f"{drafts} · deliberate conflicts refused {stats.conflicts}")  # fmt: skip
    print(f"errors {len(stats.errors)} · lost judgments {len(lost)}")
    for line in (stats.errors + lost)[:20]:
        print("  ", line)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--annotators", type=int, default=50)
    parser.add_argument("--duration", type=float, default=300, help="seconds (default 300)")
    parser.add_argument("--think", type=float, default=3.0, help="mean seconds between saves")
    parser.add_argument("--tasks-each", type=int, default=40, help="assignments per annotator")
    parser.add_argument("--paragraphs", type=int, default=20, help="per report (3 per task)")
    parser.add_argument("--workers", type=int, default=3, help="gunicorn worker processes")
    parser.add_argument("--threads", type=int, default=4, help="gunicorn threads per worker")
    parser.add_argument(
        "--database-url",
        default=os.environ.get("LOAD_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/concord_load"),
        help="created, used and dropped by this script",
    )  # fmt: skip
    args = parser.parse_args()

    url = args.database_url
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "concord.settings")
    sys.path.insert(0, str(ROOT))
    recreate_database(url)
    server = None
    try:
        import django

        django.setup()
        t0 = time.monotonic()
        build_study(args.annotators, args.tasks_each, args.paragraphs, rubric_items=8)
        print(f"study built in {time.monotonic() - t0:.1f} s")
        subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"],
                       cwd=ROOT, check=True, env={**os.environ, "DEBUG": "0",
                       "SECRET_KEY": "collectstatic-only"})  # fmt: skip
        port = free_port()
        log = Path(os.environ.get("TMPDIR", "/tmp")) / f"concord-load-gunicorn-{port}.log"
        server = start_gunicorn(url, port, args.workers, args.threads, log)

        stats = Stats()
        start = time.monotonic()
        deadline = start + args.duration
        ramp = min(60.0, args.duration / 5)
        clients = [
            Annotator(n, f"http://127.0.0.1:{port}", stats, deadline, args.think, ramp)
            for n in range(args.annotators)
        ]
        for c in clients:
            c.start()
        for c in clients:
            c.join(timeout=max(1.0, deadline - time.monotonic() + 90))
        elapsed = time.monotonic() - start
        if any(c.is_alive() for c in clients):
            stats.error("some clients did not finish within 90 s of the end")
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
        server = None

        from django.db import connections

        lost = lost_judgments(stats.outcomes)
        connections.close_all()
        report(stats, elapsed, lost, args)
        return 1 if stats.errors or lost else 0
    finally:
        if server is not None:
            server.kill()
        try:
            from django.db import connections

            connections.close_all()
        except Exception:  # noqa: BLE001, S110 - django may not be set up yet
            pass
        drop_database(url)


if __name__ == "__main__":
    sys.exit(main())
