"""What operators rely on: /healthz for load balancers, content-hashed static files in
production, JSON logs of imports and judge runs, the optional Sentry hook, throttles on the
expensive endpoints."""

from __future__ import annotations

import io
import json
import logging
import os
import re
import secrets
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client
from rest_framework.test import APIClient
from rest_framework.throttling import ScopedRateThrottle

from concord.throttles import forget_counts
from tests.builders.users import make_user
from tests.judges.fake_llm import FakeLLM
from tests.outage import database_outage

ROOT = Path(__file__).resolve().parents[2]
PRODUCTION = {"DEBUG": "0", "ALLOWED_HOSTS": "concord.example.org",
              "SECRET_KEY": secrets.token_urlsafe(50)}  # fmt: skip


def manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    """``manage.py`` in a fresh process (settings are read once, at start-up)."""
    dropped = ("DEBUG", "SECRET_KEY", "DJANGO_SETTINGS_MODULE", "DJANGO_ALLOW_ASYNC_UNSAFE",
               "SENTRY_DSN", "LOG_FORMAT", "STATIC_ROOT")  # fmt: skip
    base = {k: v for k, v in os.environ.items() if k not in dropped}
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env={**base, **env},
                          capture_output=True, text=True, timeout=180)  # fmt: skip


def dead_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --- /healthz --------------------------------------------------------------------------------


def test_healthz_is_200_with_the_checks_when_everything_answers(db, settings):
    settings.CELERY_BROKER_URL = ""
    response = Client().get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["checks"]["database"]["ok"] is True
    assert body["checks"]["broker"] == {
        "ok": True,
        "mode": "eager",
        "ms": body["checks"]["broker"]["ms"],
    }
    assert "no-cache" in response["Cache-Control"]


def test_healthz_checks_a_real_broker(db, settings):
    broker = os.environ.get("CONCORD_TEST_BROKER_URL")
    if not broker:
        pytest.skip("set CONCORD_TEST_BROKER_URL to check against a real Redis")
    settings.CELERY_BROKER_URL = broker
    response = Client().get("/healthz")
    assert response.status_code == 200, response.json()
    assert response.json()["checks"]["broker"]["mode"] == "broker"


def test_healthz_is_503_naming_the_broker_when_it_does_not_answer(db, settings):
    settings.CELERY_BROKER_URL = f"redis://127.0.0.1:{dead_port()}/0"
    response = Client().get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable"
    assert body["checks"]["database"]["ok"] is True
    assert body["checks"]["broker"]["ok"] is False
    text = response.content.decode()  # the reason is logged, not shown
    assert "Error" not in text and "127.0.0.1" not in text


def test_healthz_is_503_naming_the_database_when_it_does_not_answer(
    transactional_db, settings, caplog
):
    """Which check failed, never why: the exception's text (a path, a host, a database
    name) is logged, not shown to the anonymous caller (issue 24)."""
    settings.CELERY_BROKER_URL = ""
    with caplog.at_level(logging.ERROR, logger="concord.health"), database_outage():
        response = Client().get("/healthz")
    assert response.status_code == 503
    checks = response.json()["checks"]
    assert checks["database"]["ok"] is False and checks["broker"]["ok"] is True
    text = response.content.decode()
    assert "Error" not in text and "sqlite" not in text.lower() and "127.0.0.1" not in text
    assert "no-such-dir" not in text and "connection" not in text.lower()
    logged = [r for r in caplog.records if r.name == "concord.health" and r.exc_info]
    assert logged and "database" in logged[0].getMessage()


# --- static files ----------------------------------------------------------------------------


@pytest.mark.backend_independent("a process of its own that makes no query")
def test_production_collects_hashed_compressed_static_files(tmp_path):
    env = {**PRODUCTION, "STATIC_ROOT": str(tmp_path)}
    collected = manage("collectstatic", "--noinput", **env)
    assert collected.returncode == 0, collected.stderr
    code = "from django.templatetags.static import static; print('URL', static('js/annotate.js'))"
    out = manage("shell", "-c", code, **env)
    assert out.returncode == 0, out.stderr
    url = next(line.split()[1] for line in out.stdout.splitlines() if line.startswith("URL"))
    match = re.fullmatch(r"/static/js/annotate\.([0-9a-f]{12})\.js", url)
    assert match, url
    hashed = tmp_path / "js" / f"annotate.{match[1]}.js"
    assert hashed.read_bytes() == (ROOT / "static" / "js" / "annotate.js").read_bytes()
    assert (tmp_path / "js" / f"annotate.{match[1]}.js.gz").is_file()  # pre-compressed
    assert "js/annotate.js" in json.loads((tmp_path / "staticfiles.json").read_text())["paths"]


# --- logs ------------------------------------------------------------------------------------


@pytest.fixture
def json_log():
    """The concord loggers through the production JSON formatter, into a buffer."""
    from django.conf import settings

    spec = dict(settings.LOGGING["formatters"]["json"])
    factory = spec.pop("()")
    module, name = factory.rsplit(".", 1)
    formatter = getattr(__import__(module, fromlist=[name]), name)(**spec)
    buffer = io.StringIO()
    handler = logging.StreamHandler(buffer)
    handler.setFormatter(formatter)
    logger = logging.getLogger("concord")
    logger.addHandler(handler)
    old_level = logger.level
    logger.setLevel(logging.INFO)
    try:
        yield lambda: [json.loads(line) for line in buffer.getvalue().splitlines()]
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old_level)


def test_imports_log_json_records_with_their_fields(db, json_log):
    from annotation.importers import ImportFailed, run

    good = io.BytesIO(json.dumps({"id": "q1", "question": "Why?"}).encode() + b"\n")
    good.name = "questions.jsonl"
    run("questions", good, study="Logged study", format="jsonl")
    bad = io.BytesIO(b"{not json")
    bad.name = "broken.json"
    with pytest.raises(ImportFailed):
        run("questions", bad, study="Logged study", format="jsonl")
    records = json_log()
    events = [r["event"] for r in records]
    assert events == ["import_started", "import_finished", "import_started", "import_refused"]
    finished = records[1]
    assert finished["logger"] == "concord.imports" and finished["level"] == "INFO"
    assert finished["kind"] == "questions" and finished["file"] == "questions.jsonl"
    assert finished["study"] == "Logged study" and finished["records"] == 1
    assert isinstance(finished["seconds"], float) and "time" in finished
    assert records[3]["file"] == "broken.json" and records[3]["problems"] >= 1


@pytest.fixture
def llm_server():
    server = FakeLLM().start()
    try:
        yield server
    finally:
        server.stop()


def test_judge_runs_log_their_start_and_end(db, json_log, llm_server):
    from judges import runs
    from tests.builders.judged import build_study, make_judge

    study = build_study(questions=1)
    judge = make_judge(llm_server)
    run = runs.start_run(judge, study, ["coverage"])
    records = [r for r in json_log() if r["logger"] == "concord.judge_runs"]
    assert [r["event"] for r in records] == ["judge_run_started", "judge_run_finished"]
    assert records[0]["run"] == run.pk and records[0]["judge"] == judge.name
    assert records[0]["tasks"] == ["coverage"]
    assert records[1]["status"] == "done" and records[1]["seconds"] >= 0


@pytest.mark.backend_independent("a process of its own that makes no query")
def test_production_logs_are_json_lines():
    code = "import logging; logging.getLogger('concord.demo').warning('hello', extra={'n': 3})"
    out = manage("shell", "-c", code, **PRODUCTION)
    assert out.returncode == 0, out.stderr
    record = json.loads(out.stderr.strip().splitlines()[-1])
    assert record["message"] == "hello" and record["n"] == 3 and record["level"] == "WARNING"


# --- error tracking --------------------------------------------------------------------------


@pytest.mark.backend_independent("a process of its own that makes no query")
def test_sentry_is_off_unless_configured_and_refused_when_it_cannot_be_honoured():
    code = "import sys; print('SENTRY', 'sentry_sdk' in sys.modules)"
    out = manage("shell", "-c", code)
    assert out.returncode == 0 and "SENTRY False" in out.stdout, out.stderr
    try:
        import sentry_sdk  # noqa: F401
    except ImportError:
        refused = manage("check", SENTRY_DSN="https://key@sentry.example.org/1")
        assert refused.returncode != 0
        assert "SENTRY_DSN is set but sentry-sdk is not installed" in refused.stderr
    else:
        on = manage("shell", "-c", code, SENTRY_DSN="https://key@sentry.example.org/1")
        assert "SENTRY True" in on.stdout


# --- throttles -------------------------------------------------------------------------------


@pytest.fixture
def tight_throttles(monkeypatch):
    monkeypatch.setattr(
        ScopedRateThrottle, "THROTTLE_RATES", {"reports": "2/min", "imports": "1/min"}
    )
    forget_counts()
    yield
    forget_counts()


def test_expensive_endpoints_are_throttled_per_user(db, tight_throttles):
    from annotation.models import Study

    study = Study.objects.create(name="Throttled")
    researcher = make_user("throttled_researcher", "researcher")
    study.researchers.add(researcher)
    admin = make_user("throttled_admin", "admin")
    client = APIClient()
    client.force_authenticate(researcher)
    for url in (f"/api/studies/{study.pk}/agreement/", f"/api/studies/{study.pk}/judge-alignment/"):
        forget_counts()
        statuses = [client.get(url).status_code for _ in range(3)]
        assert statuses[:2] != [429, 429] and statuses[2] == 429, (url, statuses)
    other = APIClient()
    other.force_authenticate(admin)  # another user has their own budget
    assert other.get(f"/api/studies/{study.pk}/agreement/").status_code != 429
    upload = f"/api/studies/{study.pk}/import/"
    first = other.post(upload, {"kind": "questions"}, format="multipart")
    second = other.post(upload, {"kind": "questions"}, format="multipart")
    assert first.status_code == 400 and second.status_code == 429
    assert "throttled" in second.json()["detail"].lower() or "available" in second.json()["detail"]
