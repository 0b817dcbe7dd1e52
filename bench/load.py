"""Load: many annotators autosaving and submitting at once, against gunicorn and PostgreSQL.

Builds its own PostgreSQL database (a study of medal ranking, pairwise, metric-wise and
rubric coverage tasks made with ``tests.builders.content``), starts gunicorn on loopback
with ``DEBUG=0`` as behind a TLS proxy (``make serve``'s sizing: ``WEB_WORKERS``,
``WEB_THREADS``, ``WEB_KEEPALIVE``), and runs the simulated annotators as asyncio tasks
in this one process (httpx; one connection each, kept alive as a browser keeps it): they
arrive over ``--ramp`` seconds, log in through the login form (CSRF) a few seconds after
opening it, open the queue, open each task, autosave growing answers with think time
through the same endpoint, fields and htmx headers the page uses (its own client id
among them), submit (now and then submit again, which must be a no-op), move on. Now and
then an annotator opens the task in a second tab (a page load of its own: its own client
id and version); the first tab saves, and the second tab's change, based on a version it
has not seen, must be refused with 409.

Then it counts, in the database, what the clients were told (``lost_judgments``): every
acknowledged submit exists exactly once with the content sent, every assignment's last
acknowledged autosave is the stored draft and the latest version of its history (autosaves
coalesce, so a history may have fewer rows than accepted changes, never more). Any
non-2xx/3xx answer other than the deliberate 409s is an error, and so is a request that got
no answer (refused, reset, timed out: counted apart); errors or lost judgments make the exit
status 1. The database is dropped at the end.

It also prints CPU time per request, read from ``/proc`` while the annotators run: the
gunicorn workers, the PostgreSQL backends of its database and this load generator apart;
and, per kind of request, the CPU of the thread that ran the view (``load_server.py``).
``--profile`` keeps a cProfile (CPU time) of every worker. On a loaded machine wall times
are mostly waiting for a core: compare CPU per request.

    .venv/bin/python bench/load.py                      # 50 annotators, 5 minutes
    .venv/bin/python bench/load.py --annotators 200 --duration 300 --profile
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from html import unescape
from pathlib import Path
from urllib.parse import urlencode, urlsplit, urlunsplit

import httpx
from proc_cpu import CPU, children

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

    from annotation.models import Annotator, Assignment
    from tests.builders.content import make_question, make_study

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
    annotators = Annotator.objects.bulk_create(
        Annotator(user=user, pseudonym=f"Load annotator {i}") for i, user in enumerate(users)
    )
    reports = {q.pk: list(q.reports.values_list("pk", flat=True)) for q in questions}
    assignments = []
    for i, annotator in enumerate(annotators):
        order = list(range(tasks_each))
        rng.shuffle(order)
        assignments += [
            Assignment(
                study=study,
                annotator=annotator,
                question=questions[q],
                task=TASKS[(i + q) % len(TASKS)],
                position=position,
                report_order=Assignment.shuffled(reports[questions[q].pk], seed=rng.random()),
            )
            for position, q in enumerate(order)
        ]
    Assignment.objects.bulk_create(assignments, batch_size=2000)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_gunicorn(url: str, port: int, args, measure: Path, log: Path):
    """gunicorn as ``make serve`` runs it, serving ``bench/load_server.py`` (Concord's
    application, its CPU time per request measured; ``--profile``: under cProfile too)."""
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "DEBUG": "0",
        "SECRET_KEY": secrets.token_urlsafe(40),
        "ALLOWED_HOSTS": "127.0.0.1",
        "CONN_MAX_AGE": os.environ.get("CONN_MAX_AGE", "60"),  # as compose.yaml
        "LOG_LEVEL": "ERROR",  # not the expected 409s; server errors are still logged
        "CONCORD_LOAD_MEASURE": str(measure),
        "CONCORD_LOAD_PROFILE": "1" if args.profile else "0",
    }
    env.pop("CELERY_BROKER_URL", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "load_server:application", "--pythonpath",
         f"{ROOT},{ROOT / 'bench'}", "--bind", f"127.0.0.1:{port}",
         "--workers", str(args.workers), "--threads", str(args.threads),
         "--worker-class", "gthread", "--timeout", "60", "--graceful-timeout", "10",
         "--keep-alive", str(args.keep_alive), "--preload",
         "--error-logfile", str(log)],
        cwd=ROOT, env=env,
    )  # fmt: skip
    deadline = time.monotonic() + 180  # a loaded machine boots slowly
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"gunicorn exited with {proc.returncode}; see {log}")
        try:
            ready = httpx.get(
                f"http://127.0.0.1:{port}/accounts/login/",
                headers={"X-Forwarded-Proto": "https"},
                timeout=2,
            )
            if ready.status_code == 200:
                return proc
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    proc.kill()
    raise SystemExit(f"gunicorn did not answer within 180 s; see {log}")


# --- the simulated annotators -------------------------------------------------------------

TEMPLATE = re.compile(r"<template\b.*?</template>", re.S)
FIELD = re.compile(r"<(input|textarea)\b([^>]*)>")
ATTR = re.compile(r'([a-zA-Z_:-]+)="([^"]*)"')


@dataclass
class TaskForm:
    """The task form's fields, as a browser would post them: radio groups with their
    options, text fields, hidden values. Inputs inside ``<template>`` (rows the page's script
    may add) are not fields yet. Read with regular expressions, not an HTML parser: the
    load generator shares the server's two cores, and a task page is 100–300 KB."""

    radios: dict[str, list[str]] = field(default_factory=dict)
    texts: list[str] = field(default_factory=list)
    hidden: dict[str, str] = field(default_factory=dict)

    @classmethod
    def read(cls, html: str) -> TaskForm:
        form = cls()
        for tag, attrs in FIELD.findall(TEMPLATE.sub("", html)):
            a = {k: unescape(v) for k, v in ATTR.findall(attrs)}
            name = a.get("name")
            if not name:
                continue
            if tag == "textarea":
                form.texts.append(name)
            elif a.get("type") == "radio":
                form.radios.setdefault(name, []).append(a.get("value", ""))
            elif a.get("type") == "hidden":
                form.hidden.setdefault(name, a.get("value", ""))
        return form


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
CITE = re.compile(r'class="cite" data-cite="([^"]+)" data-kind="([a-z_]+)"')
SUPPORT = {"snippet": "snippet_supports", "link": "snippet_supports",
           "title_only": "title_likely_supports", "bare": "none"}  # fmt: skip


def plan_claims(html: str, rng: random.Random, per_report: int = 3) -> list[tuple[str, str]]:
    """Metric-wise claims, as the page's claim picker posts them: a sentence of a paragraph
    ending in one of its citations, whether that citation supports it, and coverage."""
    cited: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
    marks = list(PARAGRAPH.finditer(html))
    for m, following in zip(marks, [*marks[1:], None], strict=True):
        segment = html[m.end() : following.start() if following else len(html)]
        for key, kind in CITE.findall(segment):
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
    # fields of a save or submit whose answer never came (a timeout or a reset): the server
    # may or may not have applied it, so the check accepts either
    unanswered: list = field(default_factory=list)


@dataclass
class Stats:
    latency: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: list[str] = field(default_factory=list)
    resets: int = 0  # connections refused, reset or timed out: the request got no answer
    conflicts: int = 0
    outcomes: dict[int, Outcome] = field(default_factory=dict)


class Cookies:
    """The session's cookies. The server runs as in production behind a TLS-terminating
    proxy (the client sends X-Forwarded-Proto: https), so its cookies are Secure; no client
    sends them back over this plain loopback leg, so the Cookie header is written here."""

    def __init__(self):
        self.values: dict[str, str] = {}

    def take(self, response: httpx.Response) -> None:
        for line in response.headers.get_list("set-cookie"):
            pair, _, attrs = line.partition(";")
            name, _, value = pair.strip().partition("=")
            if "max-age=0" in attrs.lower().replace(" ", ""):
                self.values.pop(name, None)
            else:
                self.values[name] = value

    def header(self) -> str:
        return "; ".join(f"{k}={v}" for k, v in self.values.items())


class Annotator:
    """One annotator in the browser: a connection of their own (keep-alive, as a browser
    keeps one), a session, think time between actions."""

    def __init__(self, n: int, base: str, stats: Stats, deadline: float, think: float, ramp: float):
        self.ramp = ramp
        self.username = f"load{n:03d}"
        self.base, self.stats, self.deadline, self.think = base, stats, deadline, think
        self.rng = random.Random(n)
        self.cookies = Cookies()
        self.unanswered = False  # the last request got no answer at all
        self.origin = "https://" + urlsplit(base).netloc
        self.http = httpx.AsyncClient(
            base_url=base,
            timeout=60,
            headers={"X-Forwarded-Proto": "https", "Origin": self.origin},
            limits=httpx.Limits(max_connections=1),
        )

    async def request(self, kind: str, method: str, path: str, expect=(200,), **kw):
        kw["headers"] = {**kw.get("headers", {}), "Cookie": self.cookies.header()}
        if "data" in kw:  # a form as the browser posts it (repeated names kept, in order)
            kw["content"] = urlencode(kw.pop("data"))
            kw["headers"]["Content-Type"] = "application/x-www-form-urlencoded"
        start = time.perf_counter()
        self.unanswered = False
        try:
            r = await self.http.request(method, path, **kw)
        except httpx.HTTPError as exc:
            self.unanswered = True  # the server may or may not have applied it
            self.stats.resets += 1
            self.stats.errors.append(
                f"{self.username} {kind} {path}: {exc.__class__.__name__}: {exc}"
            )
            return None
        self.stats.latency[kind].append(time.perf_counter() - start)
        self.http.cookies.clear()  # never sent over http (Secure); kept in self.cookies
        self.cookies.take(r)
        if r.status_code not in expect:
            self.stats.errors.append(
                f"{self.username} {kind} {path}: HTTP {r.status_code} {r.text[:200]!r}"
            )
            return None
        return r

    async def pause(self, scale: float = 1.0) -> bool:
        """Think; False once the run is over."""
        wait = self.rng.uniform(0.4, 1.6) * self.think * scale
        await asyncio.sleep(max(0.0, min(wait, self.deadline - time.monotonic())))
        return time.monotonic() < self.deadline

    async def run(self):
        try:
            await self.session()
        except Exception as exc:  # noqa: BLE001 - a crashed client is an error, not a hang
            self.stats.errors.append(f"{self.username}: client crashed: {exc!r}")
        finally:
            await self.http.aclose()

    async def session(self):
        await asyncio.sleep(self.rng.uniform(0, self.ramp))  # people arrive over the ramp
        page = await self.request("login_form", "GET", "/accounts/login/")
        if page is None:
            return
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
        await asyncio.sleep(self.rng.uniform(2, 6))  # typing the user name and password
        login = await self.request(
            "login", "POST", "/accounts/login/", expect=(302,),
            data={"csrfmiddlewaretoken": token, "username": self.username,
                  "password": PASSWORD, "next": ""},
            headers={"Referer": self.origin + "/accounts/login/"},
        )  # fmt: skip
        if login is None:
            return
        queue = await self.request("queue", "GET", "/annotate/")
        if queue is None:
            return
        pks = list(
            dict.fromkeys(int(pk) for pk in re.findall(r'href="/annotate/(\d+)/"', queue.text))
        )
        for pk in pks:
            if not await self.pause(0.5) or not await self.task(pk):
                return

    async def open_tab(self, kind: str, path: str):
        """A task page as the browser gets it: (page, form, token, version, client id)."""
        page = await self.request(kind, "GET", path)
        if page is None:
            return None
        form = TaskForm.read(page.text)
        token, version = form.hidden.get("csrfmiddlewaretoken"), version_in(page.text)
        client = form.hidden.get("client")
        if token is None or version is None or not client:
            self.stats.errors.append(f"{self.username} {kind} {path}: no form")
            return None
        return page, form, token, version, client

    async def task(self, pk: int) -> bool:
        path = f"/annotate/{pk}/"
        tab = await self.open_tab("task_page", path)
        if tab is None:
            return False
        page, form, token, version, client = tab
        outcome = self.stats.outcomes.setdefault(pk, Outcome())
        # hidden inputs go with every post, as the browser sends them (the page's own
        # client id among them)
        kept = [
            (k, v) for k, v in form.hidden.items() if k not in ("csrfmiddlewaretoken", "version")
        ]
        answers = kept + plan_answers(form, self.rng)
        if 'class="claims"' in page.text:
            answers += plan_claims(page.text, self.rng)
        htmx = {"HX-Request": "true", "HX-Current-URL": self.origin + path,
                "HX-Target": "save-status", "Referer": self.origin + path}  # fmt: skip
        steps = self.rng.randint(3, 6)
        second = None  # a second tab of this task, opened at some version
        second_saved = False
        for step in range(1, steps + 1):
            if not await self.pause():
                return False
            if second is None and step < steps and self.rng.random() < 0.05:
                # the annotator opens the task in a second tab too (its own client id and
                # the version it was given); this tab saves next, so that one falls behind
                second = await self.open_tab("second_tab", path)
                if second is None:
                    return False
            fields = answers[: max(1, len(answers) * step // steps)]
            body = [("csrfmiddlewaretoken", token), ("version", str(version)), *fields]
            r = await self.request("autosave", "POST", path + "save/", data=body,
                                   headers={**htmx, "HX-Trigger": "task-form"})  # fmt: skip
            if r is None:
                if self.unanswered:
                    outcome.unanswered.append(fields)
                return False
            new = version_in(r.text)
            if new is None:
                self.stats.errors.append(f"{self.username} autosave {path}: no version")
                return False
            outcome.versions += new != version
            version = new
            outcome.saved = (version, fields)
            if second is not None and not second_saved and second[3] < version:
                if not await self.stale_save(second, path, htmx, outcome):
                    return False
                second_saved = True
        if self.rng.random() < 0.1:  # leave it as a draft for now
            return True
        if not await self.pause():
            return False
        body = [("csrfmiddlewaretoken", token), ("version", str(version)), *answers]
        submit = {**htmx, "HX-Trigger": "submit-btn"}
        r = await self.request("submit", "POST", path + "submit/", expect=(204,), data=body,
                               headers=submit)  # fmt: skip
        if r is None:
            if self.unanswered:
                outcome.unanswered.append(answers)
            return False
        outcome.submitted = answers
        if self.rng.random() < 0.05:  # a double click: the same submit again changes nothing
            again = await self.request(
                "resubmit", "POST", path + "submit/", expect=(204,), data=body, headers=submit
            )
            return again is not None
        return True

    async def stale_save(self, tab, path: str, htmx: dict, outcome: Outcome) -> bool:
        """The second tab, behind the first by a version it has not seen, saves a change of
        its own: the product refuses it with 409 and changes nothing (drafts.py)."""
        _, form, token, version, _ = tab
        other = [  # its own client id among them
            (k, v) for k, v in form.hidden.items() if k not in ("csrfmiddlewaretoken", "version")
        ]
        change = [(name, "Written in the second tab.") for name in form.texts[:1]]
        if not change:  # no text box: a radio answer of its own
            name, options = next(iter(form.radios.items()))
            change = [(name, options[-1])]
        body = [("csrfmiddlewaretoken", token), ("version", str(version)), *other, *change]
        r = await self.request("conflict_check", "POST", path + "save/", expect=(409,),
                               data=body, headers={**htmx, "HX-Trigger": "task-form"})  # fmt: skip
        if r is None:
            if self.unanswered:
                outcome.unanswered.append(other + change)
            return False
        self.stats.conflicts += 1
        return True


# --- the check ----------------------------------------------------------------------------


def sent_payload(spec, page, fields: list) -> dict:
    """The payload the server makes of posted ``fields`` (as JSON stores it)."""
    from django.http import QueryDict

    data = QueryDict(mutable=True)
    for k, v in fields:
        data.appendlist(k, v)
    return json.loads(json.dumps(spec.parse(data, page)))


def lost_judgments(outcomes: dict[int, Outcome]) -> list[str]:
    """Every acknowledged submit and last acknowledged autosave, looked up in the database.

    What the product promises (``annotation/annotate/drafts.py``): the last acknowledged
    save is the draft and the latest version of its history; a submit is stored once, as
    a version of its own. Autosaves within ``CONCORD_AUTOSAVE_COALESCE_SECONDS`` of the
    latest draft version replace it (its number moves up), so a history has at most one
    row per accepted change, not exactly one: fewer rows are no loss. A request that got no
    answer (timeout, reset) may or may not have been applied: either state is accepted.
    """
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
        history = list(DraftVersion.objects.filter(assignment=a).order_by("version"))
        latest = history[-1] if history else None
        if draft.version and (
            latest is None or latest.version != draft.version or latest.payload != draft.payload
        ):
            problems.append(f"assignment {pk}: draft v{draft.version} is not its latest version")
        if len(history) > seen.versions + len(seen.unanswered) + (seen.submitted is not None):
            problems.append(
                f"assignment {pk}: {len(history)} versions for {seen.versions} accepted changes"
            )
        unanswered = [sent_payload(spec, page, fields) for fields in seen.unanswered]
        submits = [v for v in history if v.kind == DraftVersion.Kind.SUBMIT]
        if seen.submitted is not None:
            sent = sent_payload(spec, page, seen.submitted)
            if len(submits) != 1 or submits[0].payload != sent or draft.payload != sent:
                problems.append(f"assignment {pk}: submit stored {len(submits)}× or not as sent")
            if a.status != Assignment.Status.SUBMITTED or draft.submitted_version is None:
                problems.append(f"assignment {pk}: acknowledged submit, status {a.status}")
            if not rows[a.task].objects.filter(assignment=a).exists():
                problems.append(f"assignment {pk}: no {rows[a.task].__name__} rows")
        elif seen.saved is not None:
            version, fields = seen.saved
            acknowledged = draft.version == version and draft.payload == sent_payload(
                spec, page, fields
            )
            if not acknowledged and not (draft.version > version and draft.payload in unanswered):
                problems.append(
                    f"assignment {pk}: draft v{draft.version} is not the acknowledged v{version}"
                )
        elif draft.version and draft.payload not in unanswered:
            problems.append(f"assignment {pk}: v{draft.version} saved, none acknowledged")
    return problems


def percentiles(values: list[float]) -> tuple[float, ...]:
    import numpy as np

    ms = np.asarray(values) * 1000
    return (*np.percentile(ms, [50, 95, 99]), ms.max())


KINDS = ("login_form", "login", "queue", "task_page", "second_tab", "autosave",
         "conflict_check", "submit", "resubmit")  # fmt: skip


def server_cpu(measure: Path) -> dict[str, dict]:
    """The workers' CPU per kind of request (``load_server.py``), all workers added up."""
    total: dict[str, dict] = defaultdict(lambda: {"count": 0, "seconds": 0.0})
    for path in measure.glob("cpu-*.json"):
        for kind, entry in json.loads(path.read_text()).items():
            total[kind]["count"] += entry["count"]
            total[kind]["seconds"] += entry["seconds"]
    return total


def report(stats: Stats, elapsed: float, lost: list[str], cpu: dict, per_kind: dict, args):
    total = sum(len(v) for v in stats.latency.values())
    print(f"\n{args.annotators} annotators, {elapsed:.0f} s, gunicorn {args.workers} workers × "
          f"{args.threads} threads, think ≈ {args.think} s, load average "
          f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}")  # fmt: skip
    print(f"{'request':<15} {'count':>7} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'max ms':>8}"
          f" {'server CPU ms':>14}")  # fmt: skip
    # the server's kinds: a second tab is a task page, a stale save an autosave, a resubmit
    # a submit
    served = {"second_tab": "task_page", "conflict_check": "autosave", "resubmit": "submit"}
    for kind in [*[k for k in KINDS if stats.latency.get(k)], "overall"]:
        values = (
            [x for v in stats.latency.values() for x in v] if kind == "overall"
            else stats.latency[kind]
        )  # fmt: skip
        entry = per_kind.get(served.get(kind, kind))
        if kind == "overall":
            n = sum(e["count"] for e in per_kind.values())
            entry = {"count": n, "seconds": sum(e["seconds"] for e in per_kind.values())}
        server = (
            f"{entry['seconds'] * 1000 / entry['count']:.1f}" if entry and entry["count"] else "—"
        )
        if values:
            p50, p95, p99, top = percentiles(values)
            print(f"{kind:<15} {len(values):>7} {p50:>8.1f} {p95:>8.1f} {p99:>8.1f} {top:>8.1f}"
                  f" {server:>14}")  # fmt: skip
    submits = sum(o.submitted is not None for o in stats.outcomes.values())
    drafts = sum(o.submitted is None and o.saved is not None for o in stats.outcomes.values())
    print(f"requests/s {total / elapsed:.1f} · submits acknowledged {submits} · drafts left "
          f"{drafts} · deliberate conflicts refused {stats.conflicts}")  # fmt: skip
    ms = {k: v * 1000 / max(total, 1) for k, v in cpu.items()}
    print(f"CPU ms per request (/proc): gunicorn {ms['server']:.1f} (views "
          f"{sum(e['seconds'] for e in per_kind.values()) * 1000 / max(total, 1):.1f}) · "
          f"PostgreSQL {ms['pg']:.1f} · load generator {ms['bench']:.1f}; "
          f"CPU use {sum(cpu.values()) / elapsed:.2f} cores of {os.cpu_count()}")  # fmt: skip
    print(f"errors {len(stats.errors)} (no answer: {stats.resets}) · lost judgments {len(lost)}")
    for line in (stats.errors + lost)[:20]:
        print("  ", line)


async def annotate(clients: list[Annotator]) -> None:
    await asyncio.gather(*(c.run() for c in clients))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--annotators", type=int, default=50)
    parser.add_argument("--duration", type=float, default=300, help="seconds (default 300)")
    parser.add_argument("--think", type=float, default=3.0, help="mean seconds between saves")
    parser.add_argument("--ramp", type=float, default=60.0, help="annotators arrive over it")
    parser.add_argument("--tasks-each", type=int, default=40, help="assignments per annotator")
    parser.add_argument("--paragraphs", type=int, default=20, help="per report (3 per task)")
    parser.add_argument(
        "--workers",
        type=int,
        default=int(os.environ.get("WEB_WORKERS", 3)),
        help="gunicorn worker processes (default: WEB_WORKERS or 3, as make serve)",
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=int(os.environ.get("WEB_THREADS", 4)),
        help="gunicorn threads per worker (default: WEB_THREADS or 4)",
    )
    parser.add_argument(
        "--keep-alive",
        type=int,
        default=int(os.environ.get("WEB_KEEPALIVE", 75)),
        help="seconds gunicorn keeps an idle connection open (default: WEB_KEEPALIVE or 75, as make serve)",
    )
    parser.add_argument(
        "--profile",
        action="store_true",
        help="run every request under cProfile; the statistics are kept",
    )
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
    measure = Path(tempfile.mkdtemp(prefix="concord-load-"))
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
        server = start_gunicorn(url, port, args, measure, measure / "gunicorn.log")

        stats = Stats()
        start = time.monotonic()
        deadline = start + args.duration
        clients = [
            Annotator(n, f"http://127.0.0.1:{port}", stats, deadline, args.think, args.ramp)
            for n in range(args.annotators)
        ]
        gunicorn = server.pid
        cpu = CPU({"server": lambda: {gunicorn} | children(gunicorn)}, database=db_name(url))
        try:
            asyncio.run(asyncio.wait_for(annotate(clients), args.duration + 90))
        except TimeoutError:
            stats.errors.append("some clients did not finish within 90 s of the end")
        elapsed = time.monotonic() - start
        used = cpu.stop()
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
        server = None

        from django.db import connections

        lost = lost_judgments(stats.outcomes)
        connections.close_all()
        report(stats, elapsed, lost, used, server_cpu(measure), args)
        if args.profile:
            print(f"cProfile statistics per worker: {measure}/profile-*.prof")
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
        if not args.profile:
            shutil.rmtree(measure, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
