"""Concord beside Label Studio 1.23 on the same machine and the same data (issue 29).

The issue keeps four figures where Concord is ahead of Label Studio (task page, submit,
server memory, fresh clone to a served login) and asks that report import be no slower than
Label Studio's. This script makes those figures one reproducible run:

1. **Label Studio in a venv of its own**, outside the repository (default
   ``~/.cache/concord-bench/labelstudio``, ``--venv`` or ``CONCORD_BENCH_LS_VENV``),
   ``label-studio==1.23.*`` installed on demand (``--install`` forces a fresh one). Nothing
   in ``make test`` touches it; no test needs it.
2. **Both servers on one backend** (``--backend sqlite|postgres``): Label Studio as its users
   start it (``label-studio start``: Django's threaded ``runserver``, one process; its own
   settings read ``DJANGO_DB=sqlite`` + ``DATABASE_NAME``, or ``DJANGO_DB=default`` +
   ``POSTGRE_NAME/USER/PASSWORD/HOST/PORT``; its user and API token made by ``--username
   --password --user-token``), Concord as ``make serve`` runs it (gunicorn, 3 workers × 4
   threads, ``DEBUG=0``), each on a free loopback port.
3. **The same data for both**: ``--questions`` questions × 3 systems' reports of ~2 KB
   with ~10 numbered citations each (:func:`generate_reports`). Concord reads them as
   ScholarQA-CS2 report files (one per system); Label Studio gets one task per question with
   the three reports, each written out with its reference list as an annotator reads it.
4. **Three rounds, alternated** (who goes first swaps every round):

   * *report import*: Concord's ``import_reports`` (the command's code in this process, one
     call per system file; no process start counted; ``DEBUG`` off, as the server beside
     it and as Label Studio starts) vs Label Studio's
     ``POST /api/projects/{id}/import`` (JSON tasks, ``--ls-chunk`` tasks per request as a
     user splits a large file below its 250 MB upload limit), each until the server says
     every task is there;
   * *task page*: a logged-in user opens ``--pages`` tasks. Concord: the task page
     (``GET /annotate/{id}/``, one server-rendered page holding the reports, citations and
     form). Label Studio: what its data manager requests to show one task — the page
     (``/projects/{p}/data?task={t}``), the project (``/api/projects/{p}/``, the labelling
     config) and the task (``/api/tasks/{t}/``, its data and annotations) — summed. Static
     files are counted for neither.
   * *submit*: Concord's task submit (the complete medal ranking form, as the page posts
     it) vs ``POST /api/tasks/{t}/annotations/`` with the same answer (three medals and a
     reasoning text) as the labelling interface sends it.

   Wall milliseconds seen by the client (medians) and the server's own CPU milliseconds
   per request (psutil, the server's process tree, before and after each request; a mean,
   as the kernel counts CPU in 10 ms ticks). CPU time is what the comparison should rest
   on when other work loads the machine; the load average is printed beside the figures.
5. **Server memory** after the run: resident set size of each server's process tree.
6. **Setup** (``--setup``, about a minute or two each): a fresh ``git clone`` of this
   checkout to a served login page the way ``make run`` does it, vs a fresh venv, ``pip
   install label-studio==1.23.*`` and ``label-studio start`` to a served login page. Both
   install with uv and its cache (Concord's Makefile does; the same cache serves both).

Prints one table: figure, Concord, Label Studio, ratio (Concord ÷ Label Studio; < 1 is
Concord ahead). Run:

    .venv/bin/python bench/labelstudio.py --questions 1000              # SQLite, minutes
    .venv/bin/python bench/labelstudio.py --backend postgres --questions 40000 --setup

PostgreSQL: ``--postgres-url`` (default ``postgres://postgres@127.0.0.1:5432``); the script
creates and drops its two databases (``bench_ls_concord``, ``bench_ls_labelstudio``;
``--database-prefix`` to run beside another run on the same server).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import random
import re
import secrets
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

LS_REQUIREMENT = "label-studio==1.23.*"
DEFAULT_VENV = Path(
    os.environ.get("CONCORD_BENCH_LS_VENV", Path.home() / ".cache/concord-bench/labelstudio")
)
SYSTEMS = ("atlas", "beacon", "cedar")
LETTERS = ("a", "b", "c")
MEDALS = ("gold", "silver", "bronze")
STUDY_PREFIX = "ls-bench"
# Throwaway accounts on loopback servers that live for one run.
PASSWORD = secrets.token_urlsafe(16)
LS_EMAIL = "bench@example.org"
LS_TOKEN = secrets.token_hex(20)
# Label Studio's labelling interface for the medal ranking: the question, three reports,
# a medal for each, a reasoning text (what Concord's medal-ranking form asks).
LABEL_CONFIG = """<View>
  <Header value="$question"/>
  <Text name="report_a" value="$report_a"/>
  <Choices name="medal_a" toName="report_a" choice="single" showInline="true">
    <Choice value="gold"/><Choice value="silver"/><Choice value="bronze"/>
  </Choices>
  <Text name="report_b" value="$report_b"/>
  <Choices name="medal_b" toName="report_b" choice="single" showInline="true">
    <Choice value="gold"/><Choice value="silver"/><Choice value="bronze"/>
  </Choices>
  <Text name="report_c" value="$report_c"/>
  <Choices name="medal_c" toName="report_c" choice="single" showInline="true">
    <Choice value="gold"/><Choice value="silver"/><Choice value="bronze"/>
  </Choices>
  <TextArea name="reasoning" toName="report_a" rows="4"/>
</View>"""

# --- the data ---------------------------------------------------------------------------------

TEXT = (
    "retrieval augmented generation grounds answers in passages while long context models "
    "attend to every token and sparse attention reduces the cost of each layer so that "
    "evaluation of factual precision depends on the judge the rubric and the citation "
    "quality of each report across domains such as biology chemistry and computer science"
)
WORDS = TEXT.split(" ")


def _sentence(rng: random.Random, n: int) -> str:
    words = rng.choices(WORDS, k=n)
    return " ".join(words).capitalize()


def generate_reports(questions: int, seed: int = 29) -> dict[str, list[dict]]:
    """ScholarQA-CS2 report records of each system: ``questions`` questions, each answered by
    the three systems with two sections of ~2 KB in all, citing ~10 numbered sources ("[n]",
    each listed with a title, a snippet and a URL).

    The one place the data is made: the lead may swap it for ``bench/report_import.py``'s
    ``generate(questions, seed)`` (branch scale-import) once that lands, as long as it
    returns the same shape (system -> list of ScholarQA records)."""
    rng = random.Random(seed)
    out: dict[str, list[dict]] = {s: [] for s in SYSTEMS}
    for q in range(questions):
        question = f"Question {q}: how does method {q % 97} scale on benchmark {q % 13}?"
        for system in SYSTEMS:
            sections, number = [], 0
            for title in ("Background", "Findings"):
                sentences, citations = [], []
                for _ in range(5):
                    number += 1
                    sentences.append(f"{_sentence(rng, rng.randint(26, 32))} [{number}].")
                    citations.append(
                        {
                            "id": str(number),
                            "title": f"{_sentence(rng, 5)} ({2015 + number % 10})",
                            "snippets": [_sentence(rng, 9) + "."],
                            "metadata": {"url": f"https://example.org/paper/{q}/{number}"},
                        }
                    )
                sections.append(
                    {"title": title, "text": " ".join(sentences), "citations": citations}
                )
            out[system].append({"question": question, "response": {"sections": sections}})
    return out


def as_text(record: dict) -> str:
    """A ScholarQA record as Label Studio shows it: the sections, then the numbered
    reference list (title, snippet, URL), so the annotator sees what Concord's page shows."""
    parts, refs = [], []
    for section in record["response"]["sections"]:
        parts.append(f"{section['title']}\n\n{section['text']}")
        for c in section["citations"]:
            refs.append(f"[{c['id']}] {c['title']}. {c['snippets'][0]} {c['metadata']['url']}")
    return "\n\n".join([*parts, "References\n" + "\n".join(refs)])


def ls_tasks(reports: dict[str, list[dict]]) -> list[dict]:
    """One Label Studio task per question: its three reports, as :func:`as_text` writes them."""
    columns = [reports[s] for s in SYSTEMS]
    tasks = []
    for records in zip(*columns, strict=True):
        data = {"question": records[0]["question"]}
        for letter, system, record in zip(LETTERS, SYSTEMS, records, strict=True):
            data[f"report_{letter}"] = as_text(record)
            data[f"system_{letter}"] = system
        tasks.append({"data": data})
    return tasks


def chunks(items: list, size: int) -> list[list]:
    return [items[i : i + size] for i in range(0, len(items), size)] or [[]]


# --- the figures -------------------------------------------------------------------------------


@dataclass
class Figures:
    """Each figure's samples for both products, in the order measured."""

    wall: dict[str, dict[str, list[float]]] = field(default_factory=dict)
    cpu: dict[str, dict[str, list[float]]] = field(default_factory=dict)
    single: dict[str, dict[str, float | None]] = field(default_factory=dict)

    def add(self, figure: str, product: str, wall: float, cpu: float | None = None) -> None:
        self.wall.setdefault(figure, {}).setdefault(product, []).append(wall)
        if cpu is not None:
            self.cpu.setdefault(figure, {}).setdefault(product, []).append(cpu)

    def rows(self) -> list[tuple[str, float | None, float | None]]:
        """(figure, Concord, Label Studio): medians of the wall samples, means of the CPU
        samples (CPU is counted in ticks: a mean over many requests, not a median of ticks),
        and the single figures (memory, setup)."""
        out = []
        for name, by in self.wall.items():
            c, ls = by.get("concord"), by.get("labelstudio")
            out.append((name, _median(c), _median(ls)))
        for name, by in self.cpu.items():
            c, ls = by.get("concord"), by.get("labelstudio")
            out.append((f"{name}, server CPU (mean)", _mean(c), _mean(ls)))
        for name, by in self.single.items():
            out.append((name, by.get("concord"), by.get("labelstudio")))
        return out


def _median(values):
    return statistics.median(values) if values else None


def _mean(values):
    return statistics.fmean(values) if values else None


def ratio(concord: float | None, labelstudio: float | None) -> float | None:
    """Concord ÷ Label Studio; None (printed "n/a") when either is missing or LS's is 0."""
    if concord is None or labelstudio is None or labelstudio == 0:
        return None
    return concord / labelstudio


def table(rows: list[tuple[str, float | None, float | None]]) -> str:
    def cell(v):
        return "n/a" if v is None else f"{v:.1f}"

    width = max(len("figure"), *(len(r[0]) for r in rows))
    lines = [f"{'figure':<{width}}  {'Concord':>10}  {'Label Studio':>12}  {'ratio':>6}"]
    for name, c, ls in rows:
        r = ratio(c, ls)
        lines.append(
            f"{name:<{width}}  {cell(c):>10}  {cell(ls):>12}  {'n/a' if r is None else f'{r:.2f}':>6}"
        )
    return "\n".join(lines)


def load_average() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.1f} / {five:.1f} / {fifteen:.1f} on {os.cpu_count()} cores"


# --- processes ---------------------------------------------------------------------------------


def tree(pid: int):
    import psutil

    root = psutil.Process(pid)
    return [root, *root.children(recursive=True)]


def tree_cpu(pid: int) -> float:
    """Seconds of CPU (user + system) of a process and its children so far."""
    total = 0.0
    for p in tree(pid):
        try:
            t = p.cpu_times()
            total += t.user + t.system
        except Exception:  # noqa: BLE001, S112 - a worker that just exited
            continue
    return total


def tree_memory_mb(pid: int) -> dict[str, float]:
    """Memory of a server's process tree, MB: ``rss`` summed (what the brief asks; pages
    shared by gunicorn's forked workers counted once per worker), ``pss`` (proportional:
    shared pages split between their processes, so the tree's sum is what it holds), and
    ``largest`` process's RSS (one serving process against Label Studio's one)."""
    rss = pss = largest = 0
    for p in tree(pid):
        try:
            info = p.memory_full_info()
        except Exception:  # noqa: BLE001, S112
            continue
        rss += info.rss
        pss += getattr(info, "pss", info.rss)
        largest = max(largest, info.rss)
    return {k: v / 2**20 for k, v in {"rss": rss, "pss": pss, "largest": largest}.items()}


def wait_for(url: str, proc: subprocess.Popen, seconds: float, log: Path, **kw) -> None:
    import requests

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"{url}: the server exited with {proc.returncode}; see {log}")
        try:
            if requests.get(url, timeout=2, allow_redirects=False, **kw).status_code == 200:
                return
        except requests.RequestException:
            pass
        time.sleep(0.3)
    raise SystemExit(f"{url}: no answer within {seconds:.0f} s; see {log}")


def stop(proc: subprocess.Popen | None) -> None:
    if proc is None or proc.poll() is not None:
        return
    import psutil

    children = tree(proc.pid)[1:]
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    for child in children:  # runserver's or make's children, by their own ids
        with contextlib.suppress(psutil.Error):
            child.kill()


# --- Label Studio ------------------------------------------------------------------------------


def installer() -> list[str]:
    """uv (Concord's own installer, from its venv) when present, else pip."""
    uv = Path(sys.executable).parent / "uv"
    return [str(uv), "pip", "install", "--compile-bytecode"] if uv.exists() else []


def install_labelstudio(venv: Path, requirement: str = LS_REQUIREMENT) -> None:
    """A fresh venv at ``venv`` with Label Studio in it (the bytecode compiled, as Concord's
    Makefile compiles its own: this machine may set PYTHONDONTWRITEBYTECODE)."""
    if ROOT in venv.resolve().parents or venv.resolve() == ROOT:
        raise SystemExit(f"--venv {venv}: must be outside the repository")
    shutil.rmtree(venv, ignore_errors=True)
    venv.parent.mkdir(parents=True, exist_ok=True)
    python = venv / "bin" / "python"
    uv = installer()
    if uv:
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
        subprocess.run([*uv, "--quiet", "--python", str(python), requirement, "psutil"],
                       check=True)  # fmt: skip
    else:
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", requirement], check=True)
        subprocess.run([str(python), "-m", "compileall", "-q", "-j", "0", str(venv / "lib")],
                       check=False)  # fmt: skip


def ensure_labelstudio(venv: Path, force: bool) -> Path:
    binary = venv / "bin" / "label-studio"
    if force or not binary.exists():
        print(f"installing {LS_REQUIREMENT} into {venv} ...", flush=True)
        install_labelstudio(venv)
    version = subprocess.run(
        [str(venv / "bin" / "python"), "-c",
         "import importlib.metadata as m; print(m.version('label-studio'))"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    if not version.startswith("1.23."):
        raise SystemExit(f"{venv}: label-studio {version}, not 1.23.x; run with --install")
    print(f"Label Studio {version} in {venv}")
    return binary


def labelstudio_env(backend: str, data_dir: Path, pg: dict | None) -> dict:
    env = {
        **os.environ,
        "LABEL_STUDIO_BASE_DATA_DIR": str(data_dir),
        # no reports to Sentry, no version check against PyPI, no analytics from a bench
        "SENTRY_DSN": "",
        "FRONTEND_SENTRY_DSN": "",
        "LATEST_VERSION_CHECK": "false",
        "COLLECT_ANALYTICS": "false",
        "LOG_LEVEL": "ERROR",
    }
    for key in list(env):  # Concord's settings must not leak into Label Studio's
        if key.startswith(("DATABASE_URL", "DJANGO_SETTINGS_MODULE")):
            env.pop(key)
    if backend == "postgres":
        env.update(DJANGO_DB="default", POSTGRE_NAME=pg["name"], POSTGRE_USER=pg["user"],
                   POSTGRE_PASSWORD=pg["password"], POSTGRE_HOST=pg["host"],
                   POSTGRE_PORT=str(pg["port"]))  # fmt: skip
    else:
        env.update(DJANGO_DB="sqlite", DATABASE_NAME=str(data_dir / "label_studio.sqlite3"))
    return env


def start_labelstudio(binary: Path, env: dict, port: int, log: Path, seconds=600):
    cmd = [str(binary), "start", "--no-browser", "--internal-host", "127.0.0.1",
           "--port", str(port), "--username", LS_EMAIL, "--password", PASSWORD,
           "--user-token", LS_TOKEN, "--enable-legacy-api-token"]  # fmt: skip
    proc = subprocess.Popen(cmd, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT)
    wait_for(f"http://127.0.0.1:{port}/user/login/", proc, seconds, log)
    return proc


class LabelStudio:
    """A logged-in browser session (the page and the labelling interface's calls) and the
    API token (project creation and import, as a script does them)."""

    def __init__(self, base: str):
        import requests

        self.base = base
        self.api = requests.Session()
        self.api.headers["Authorization"] = f"Token {LS_TOKEN}"
        self.browser = requests.Session()

    def login(self) -> None:
        page = self.browser.get(self.base + "/user/login/")
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
        r = self.browser.post(
            self.base + "/user/login/",
            data={"csrfmiddlewaretoken": token, "email": LS_EMAIL, "password": PASSWORD},
            headers={"Referer": self.base + "/user/login/"},
            allow_redirects=False,
        )
        if r.status_code != 302:
            raise SystemExit(f"Label Studio login: HTTP {r.status_code}")

    def create_project(self, title: str) -> int:
        r = self.api.post(self.base + "/api/projects/",
                          json={"title": title, "label_config": LABEL_CONFIG})  # fmt: skip
        r.raise_for_status()
        return r.json()["id"]

    def task_count(self, project: int) -> int:
        r = self.api.get(f"{self.base}/api/projects/{project}/")
        r.raise_for_status()
        return r.json()["task_number"]

    def import_tasks(self, project: int, tasks: list[dict], chunk: int) -> None:
        """Every chunk posted, then wait until the project counts every task (the Community
        edition imports synchronously; the wait also covers an edition that does not)."""
        for part in chunks(tasks, chunk):
            r = self.api.post(f"{self.base}/api/projects/{project}/import", json=part, timeout=3600)
            if r.status_code >= 300:
                raise SystemExit(f"Label Studio import: HTTP {r.status_code} {r.text[:300]}")
        while self.task_count(project) < len(tasks):
            time.sleep(0.2)

    def task_ids(self, project: int, n: int) -> list[int]:
        r = self.api.get(f"{self.base}/api/tasks/", params={"project": project, "page_size": n})
        r.raise_for_status()
        body = r.json()
        return [t["id"] for t in (body["tasks"] if isinstance(body, dict) else body)][:n]

    def open_task(self, project: int, task: int) -> None:
        """What the data manager requests to show one task (static files aside)."""
        for path in (f"/projects/{project}/data?task={task}", f"/api/projects/{project}/",
                     f"/api/tasks/{task}/?project={project}"):  # fmt: skip
            r = self.browser.get(self.base + path)
            if r.status_code != 200:
                raise SystemExit(f"Label Studio {path}: HTTP {r.status_code}")

    def submit(self, project: int, task: int, rng: random.Random) -> None:
        result = [
            {"from_name": f"medal_{x}", "to_name": f"report_{x}", "type": "choices",
             "value": {"choices": [medal]}}
            for x, medal in zip(LETTERS, rng.sample(MEDALS, 3), strict=True)
        ]  # fmt: skip
        result.append({"from_name": "reasoning", "to_name": "report_a", "type": "textarea",
                       "value": {"text": [_sentence(rng, 12)]}})  # fmt: skip
        r = self.browser.post(
            f"{self.base}/api/tasks/{task}/annotations/?project={project}",
            json={"result": result, "lead_time": 30.0, "project": project},
            headers={"X-CSRFToken": self.browser.cookies.get("csrftoken", ""),
                     "Referer": self.base + f"/projects/{project}/data?task={task}"},
        )  # fmt: skip
        if r.status_code != 201:
            raise SystemExit(f"Label Studio submit: HTTP {r.status_code} {r.text[:300]}")


# --- Concord -----------------------------------------------------------------------------------


class Concord:
    """A logged-in annotator over HTTP, as ``bench/load.py``'s clients are (the server runs
    with DEBUG=0 as behind a TLS proxy, so the Secure cookies are sent by hand)."""

    def __init__(self, base: str):
        import requests

        self.base = base
        self.http = requests.Session()
        self.http.headers.update({"X-Forwarded-Proto": "https",
                                  "Origin": "https://" + urlsplit(base).netloc})  # fmt: skip
        self.pages: dict[int, str] = {}

    def get(self, path: str, **kw):
        cookies = "; ".join(f"{c.name}={c.value}" for c in self.http.cookies)
        return self.http.get(self.base + path, headers={"Cookie": cookies},
                             allow_redirects=False, **kw)  # fmt: skip

    def post(self, path: str, data, headers=None):
        cookies = "; ".join(f"{c.name}={c.value}" for c in self.http.cookies)
        return self.http.post(self.base + path, data=data, allow_redirects=False,
                              headers={**(headers or {}), "Cookie": cookies})  # fmt: skip

    def login(self, username: str) -> None:
        page = self.get("/accounts/login/")
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
        r = self.post("/accounts/login/",
                      {"csrfmiddlewaretoken": token, "username": username, "password": PASSWORD,
                       "next": ""},
                      {"Referer": self.base.replace("http:", "https:") + "/accounts/login/"})  # fmt: skip
        if r.status_code != 302:
            raise SystemExit(f"Concord login: HTTP {r.status_code}")

    def open_task(self, pk: int) -> None:
        r = self.get(f"/annotate/{pk}/")
        if r.status_code != 200:
            raise SystemExit(f"Concord /annotate/{pk}/: HTTP {r.status_code}")
        self.pages[pk] = r.text

    def submit(self, pk: int, rng: random.Random) -> None:
        from load import TaskForm, plan_answers, version_in

        html = self.pages[pk]
        form = TaskForm.read(html)
        kept = [
            (k, v) for k, v in form.hidden.items() if k not in ("csrfmiddlewaretoken", "version")
        ]
        body = [("csrfmiddlewaretoken", form.hidden["csrfmiddlewaretoken"]),
                ("version", str(version_in(html))), *kept, *plan_answers(form, rng)]  # fmt: skip
        path = f"/annotate/{pk}/"
        r = self.post(path + "submit/", body,
                      {"HX-Request": "true", "HX-Current-URL": self.base + path,
                       "HX-Trigger": "submit-btn", "Referer": self.base + path})  # fmt: skip
        if r.status_code != 204:
            raise SystemExit(f"Concord submit {pk}: HTTP {r.status_code} {r.text[:300]}")


def concord_env(db_url: str) -> dict:
    env = {**os.environ, "DATABASE_URL": db_url, "DEBUG": "0",
           "SECRET_KEY": secrets.token_urlsafe(40), "ALLOWED_HOSTS": "127.0.0.1",
           "LOG_LEVEL": "ERROR"}  # fmt: skip
    env.pop("CELERY_BROKER_URL", None)
    return env


def start_concord(db_url: str, port: int, log: Path, workers=3, threads=4) -> subprocess.Popen:
    """gunicorn as ``make serve`` starts it (by default its worker and thread counts)."""
    env = concord_env(db_url)
    subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"],
                   cwd=ROOT, env=env, check=True)  # fmt: skip
    proc = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "concord.wsgi:application",
         "--bind", f"127.0.0.1:{port}", "--worker-class", "gthread", "--workers", str(workers),
         "--threads", str(threads), "--timeout", "600", "--error-logfile", str(log)],
        cwd=ROOT, env=env,
    )  # fmt: skip
    wait_for(f"http://127.0.0.1:{port}/accounts/login/", proc, 120, log,
             headers={"X-Forwarded-Proto": "https"})  # fmt: skip
    return proc


def concord_import(files: dict[str, Path], study: str) -> None:
    """``import_reports`` of each system's file, in this process (Django set up on the
    bench database), so no process start is counted."""
    from django.core.management import call_command

    for system, path in files.items():
        call_command("import_reports", str(path), study=study, system=system,
                     format="scholarqa", stdout=open(os.devnull, "w"))  # noqa: SIM115  # fmt: skip


def concord_annotator(username: str):
    from django.contrib.auth.models import Group, User

    from annotation.models import Annotator

    user = User.objects.create_user(username, password=PASSWORD)
    Group.objects.get_or_create(name="annotator")[0].user_set.add(user)
    return Annotator.objects.create(user=user, pseudonym=f"Bench {username}")


def concord_assign(annotator, study_name: str, n: int) -> list[int]:
    """Medal-ranking assignments of the study's first ``n`` questions (set-up, not timed)."""
    from annotation.models import Assignment, Question, Study

    study = Study.objects.get(name=study_name)
    if "medal_ranking" not in study.tasks:
        raise SystemExit(
            f"{study_name}: medal ranking not enabled after the import ({study.tasks})"
        )
    out = []
    for position, question in enumerate(Question.objects.filter(study=study).order_by("pk")[:n]):
        reports = list(question.reports.values_list("pk", flat=True))
        out.append(
            Assignment.objects.create(
                study=study, annotator=annotator, question=question, task="medal_ranking",
                position=position, report_order=Assignment.shuffled(reports),
            ).pk
        )  # fmt: skip
    return out


# --- databases ---------------------------------------------------------------------------------


def pg_url(base: str, name: str) -> str:
    return urlunsplit(urlsplit(base)._replace(path=f"/{name}"))


def pg_parts(url: str) -> dict:
    p = urlsplit(url)
    return {"name": p.path.lstrip("/"), "user": p.username or "postgres",
            "password": p.password or "postgres", "host": p.hostname or "127.0.0.1",
            "port": p.port or 5432}  # fmt: skip


# --- the run -----------------------------------------------------------------------------------


def measure(label: str, product: str, cpu, fn, figures: Figures, unit: float = 1000) -> None:
    """Run ``fn`` once: wall time seen by the client and the CPU time ``cpu()`` counts (the
    server's process tree), both in seconds × ``unit`` (1000: milliseconds)."""
    cpu0, t0 = cpu(), time.perf_counter()
    fn()
    wall, used = time.perf_counter() - t0, cpu() - cpu0
    figures.add(label, product, wall * unit, used * unit)


def own_cpu() -> float:
    """This process's CPU and that of its children once ended: the import's own helper
    processes (``annotation.importers.parallel``, ended before it returns). The two
    servers are children too, but still running: counted by neither until they end."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def run_rounds(args, work: Path, ls_binary: Path, figures: Figures) -> None:
    import django

    data = generate_reports(args.questions, args.seed)
    files = {}
    for system, records in data.items():
        files[system] = work / f"{system}.json"
        files[system].write_text(json.dumps(records))
    tasks = ls_tasks(data)
    size = sum(p.stat().st_size for p in files.values()) / 2**20
    print(f"{args.questions} questions × {len(SYSTEMS)} reports: Concord files {size:.0f} MB, "
          f"Label Studio tasks {len(json.dumps(tasks)) / 2**20:.0f} MB")  # fmt: skip
    del data

    from load import drop_database, free_port, recreate_database

    if args.backend == "postgres":
        concord_db = pg_url(args.postgres_url, f"{args.database_prefix}_concord")
        ls_db = pg_url(args.postgres_url, f"{args.database_prefix}_labelstudio")
        recreate_database(concord_db)
        recreate_database(ls_db)
    else:
        concord_db, ls_db = f"sqlite:///{work / 'concord.sqlite3'}", None
    os.environ["DATABASE_URL"] = concord_db
    # Concord refuses a file above UPLOAD_MAX_BYTES (64 MiB by default) as Label Studio does
    # above its DATA_UPLOAD_MAX_MEMORY_SIZE (250 MiB): the operator's setting, raised here
    # to the largest system file (one file per system, as the format has it; at 40,000
    # questions each is ~156 MB).
    largest = max(p.stat().st_size for p in files.values())
    os.environ["UPLOAD_MAX_BYTES"] = str(max(largest + 1, 64 * 2**20))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "concord.settings")
    # The import in this process runs as the server beside it does (DEBUG off: no record
    # of every query), like Label Studio's own start (its DEBUG is off by default).
    os.environ["DEBUG"] = "0"
    os.environ.setdefault("SECRET_KEY", secrets.token_urlsafe(40))
    django.setup()
    logging.getLogger("concord").setLevel(logging.WARNING)  # no line per import started
    from django.core.management import call_command
    from django.db import connections

    concord = ls = None
    try:
        call_command("migrate", verbosity=0)
        annotator = concord_annotator("bench-annotator")
        connections.close_all()
        port = free_port()
        t0 = time.perf_counter()
        ls = start_labelstudio(ls_binary,
                               labelstudio_env(args.backend, work / "ls-data", ls_db and pg_parts(ls_db)),
                               port, work / "labelstudio.log")  # fmt: skip
        print(f"Label Studio up on :{port} in {time.perf_counter() - t0:.0f} s (migrations)")
        c_port = free_port()
        concord = start_concord(concord_db, c_port, work / "gunicorn.log", args.workers,
                                args.threads)  # fmt: skip
        c_client = Concord(f"http://127.0.0.1:{c_port}")
        c_client.login("bench-annotator")
        l_client = LabelStudio(f"http://127.0.0.1:{port}")
        l_client.login()
        c_cpu, l_cpu = (lambda: tree_cpu(concord.pid)), (lambda: tree_cpu(ls.pid))
        sides = Sides(c_client, l_client, c_cpu, l_cpu, lambda: tree_cpu(ls.pid))
        rng = random.Random(args.seed)
        for r in range(args.rounds):
            one_round(r, args, sides, annotator, files, tasks, rng, figures)
            connections.close_all()
        memory = {"concord": tree_memory_mb(concord.pid), "labelstudio": tree_memory_mb(ls.pid)}
        for key, label in (("rss", "server memory after the run, RSS of the tree (MB)"),
                           ("pss", "server memory after the run, PSS of the tree (MB)"),
                           ("largest", "largest server process, RSS (MB)")):  # fmt: skip
            figures.single[label] = {product: m[key] for product, m in memory.items()}
    finally:
        stop(concord)
        stop(ls)
        connections.close_all()
        if args.backend == "postgres":
            drop_database(concord_db)
            drop_database(ls_db)


@dataclass
class Sides:
    concord: Concord
    labelstudio: LabelStudio
    concord_cpu: object  # () -> seconds of CPU of each server's process tree
    labelstudio_cpu: object
    labelstudio_import_cpu: object


def one_round(r: int, args, sides: Sides, annotator, files, tasks, rng, figures) -> None:
    """Both imports (who goes first alternates by round), then each page and each submit
    of both products back to back (who goes first alternates by task)."""
    c, ls = sides.concord, sides.labelstudio
    study = f"{STUDY_PREFIX}-{r + 1}"
    project = ls.create_project(study)
    imports = [
        ("concord", own_cpu, lambda: concord_import(files, study)),
        ("labelstudio", sides.labelstudio_cpu,
         lambda: ls.import_tasks(project, tasks, args.ls_chunk)),
    ]  # fmt: skip
    for product, cpu, fn in imports if r % 2 == 0 else imports[::-1]:
        measure("report import (s)", product, cpu, fn, figures, unit=1)
    pairs = list(zip(concord_assign(annotator, study, args.pages),
                     ls.task_ids(project, args.pages), strict=False))  # fmt: skip
    for label, concord_fn, ls_fn in (
        ("task page (ms)", c.open_task, lambda t: ls.open_task(project, t)),
        ("submit (ms)", lambda pk: c.submit(pk, rng), lambda t: ls.submit(project, t, rng)),
    ):
        for n, (pk, tid) in enumerate(pairs):
            both = [("concord", sides.concord_cpu, lambda pk=pk, f=concord_fn: f(pk)),
                    ("labelstudio", sides.labelstudio_cpu, lambda tid=tid, f=ls_fn: f(tid))]  # fmt: skip
            for product, cpu, fn in both if n % 2 else both[::-1]:
                measure(label, product, cpu, fn, figures)
    print(f"round {r + 1}: {_round_line(figures, r)}  [{load_average()}]", flush=True)


def _round_line(figures: Figures, r: int) -> str:
    imp = figures.wall["report import (s)"]
    c, ls = imp["concord"][r], imp["labelstudio"][r]
    return f"import Concord {c:.1f} s, Label Studio {ls:.1f} s"


# --- setup: fresh clone / fresh venv to a served login -------------------------------------------


def setup_concord(work: Path) -> float:
    """``git clone`` of this checkout's HEAD, then ``make run``'s steps in it (install the
    runtime, migrate, the demo, runserver) until the login page answers."""
    from load import free_port

    clone = work / "concord-clone"
    port = free_port()
    log = work / "concord-setup.log"
    t0 = time.perf_counter()
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    proc = subprocess.Popen(["make", "run", f"PORT={port}"], cwd=clone,
                            env={k: v for k, v in os.environ.items()
                                 if k not in ("DATABASE_URL", "DJANGO_SETTINGS_MODULE",
                                              "VIRTUAL_ENV")},
                            stdout=log.open("w"), stderr=subprocess.STDOUT)  # fmt: skip
    try:
        wait_for(f"http://127.0.0.1:{port}/accounts/login/", proc, 900, log)
        return time.perf_counter() - t0
    finally:
        stop(proc)


def setup_labelstudio(work: Path) -> float:
    """A fresh venv, ``label-studio==1.23.*`` installed, ``label-studio start`` until its
    login page answers (its migrations on a new SQLite database included)."""
    from load import free_port

    venv = work / "ls-venv"
    t0 = time.perf_counter()
    install_labelstudio(venv)
    proc = start_labelstudio(venv / "bin" / "label-studio",
                             labelstudio_env("sqlite", work / "ls-setup-data", None),
                             free_port(), work / "labelstudio-setup.log", seconds=900)  # fmt: skip
    try:
        return time.perf_counter() - t0
    finally:
        stop(proc)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--questions", type=int, default=1000,
                        help="questions × 3 reports (the issue's size: 40000)")  # fmt: skip
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--pages", type=int, default=20,
                        help="tasks opened and submitted on each side per round")  # fmt: skip
    parser.add_argument("--ls-chunk", type=int, default=10_000,
                        help="Label Studio tasks per import request")  # fmt: skip
    parser.add_argument("--seed", type=int, default=29)
    parser.add_argument("--workers", type=int, default=3,
                        help="Concord's gunicorn workers (3, as `make serve`)")  # fmt: skip
    parser.add_argument("--threads", type=int, default=4, help="threads per gunicorn worker")
    parser.add_argument("--venv", type=Path, default=DEFAULT_VENV,
                        help="Label Studio's own venv, outside the repository")  # fmt: skip
    parser.add_argument("--install", action="store_true",
                        help="(re)install Label Studio into --venv first")  # fmt: skip
    parser.add_argument("--setup", action="store_true",
                        help="also time a fresh clone / fresh venv to a served login")  # fmt: skip
    parser.add_argument("--postgres-url", default="postgres://postgres@127.0.0.1:5432")
    parser.add_argument("--database-prefix", default="bench_ls",
                        help="PostgreSQL: the two databases are PREFIX_concord and "
                        "PREFIX_labelstudio")  # fmt: skip
    parser.add_argument("--keep", action="store_true", help="keep the work folder (logs)")
    args = parser.parse_args()

    # a stopped run still stops both servers and drops its databases (the finally blocks)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    ls_binary = ensure_labelstudio(args.venv, args.install)
    work = Path(tempfile.mkdtemp(prefix="concord-bench-ls-"))
    print(f"backend {args.backend}; {load_average()}; work folder {work}", flush=True)
    figures = Figures()
    try:
        run_rounds(args, work, ls_binary, figures)
        if args.setup:
            # alternated like the rounds: Label Studio first, then Concord (the uv cache is
            # warm for both: the rounds' venvs are installed already)
            figures.single["setup: fresh install to a served login (s)"] = {
                "labelstudio": setup_labelstudio(work), "concord": setup_concord(work)}  # fmt: skip
        print()
        print(table(figures.rows()))
        print(f"\n{load_average()}")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
