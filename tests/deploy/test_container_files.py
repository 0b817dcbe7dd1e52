"""The Dockerfile and compose.yaml, checked without a Docker engine (none runs here): the
compose file parses and wires PostgreSQL, Redis, web, worker and beat to each other with
commands that exist in this code base; the Dockerfile's instructions are well-formed and copy
what the installed package needs. The non-Docker path (make run / make serve) is the one the
rest of the suite exercises.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

import pytest
import yaml
from dockerfile_parse import DockerfileParser

ROOT = Path(__file__).resolve().parents[2]
INSTRUCTIONS = {
    "FROM", "RUN", "CMD", "LABEL", "EXPOSE", "ENV", "ADD", "COPY", "ENTRYPOINT", "VOLUME",
    "USER", "WORKDIR", "ARG", "ONBUILD", "STOPSIGNAL", "HEALTHCHECK", "SHELL", "COMMENT",
}  # fmt: skip


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load((ROOT / "compose.yaml").read_text())


@pytest.fixture(scope="module")
def dockerfile() -> list[dict]:
    parser = DockerfileParser(path=str(ROOT / "Dockerfile"))
    return parser.structure


def command_of(service: dict) -> list[str]:
    command = service["command"]
    return command if isinstance(command, list) else shlex.split(command)


def test_compose_runs_postgres_redis_web_worker_and_one_beat(compose):
    services = compose["services"]
    assert set(services) == {"db", "redis", "web", "worker", "beat"}
    assert services["db"]["image"].startswith("postgres:")
    assert services["redis"]["image"].startswith("redis:")
    app_services = ("web", "worker", "beat")
    images = {services[name]["image"] for name in app_services}
    assert len(images) == 1, "web, worker and beat run the same image"
    for name in app_services:
        service = services[name]
        assert service["build"] == "."
        assert set(service["depends_on"]) == {"db", "redis"}
        assert all(c["condition"] == "service_healthy" for c in service["depends_on"].values())
        env = service["environment"]
        assert env["DEBUG"] == "0"
        assert re.fullmatch(r"postgres://concord:\$\{POSTGRES_PASSWORD:\?[^}]+\}@db:5432/concord",
                            env["DATABASE_URL"]), env["DATABASE_URL"]  # fmt: skip
        assert env["CELERY_BROKER_URL"].startswith("redis://redis:6379/")
        assert env["SECRET_KEY"].startswith("${SECRET_KEY:?"), "no default secret key"
    for dependency in ("db", "redis"):
        assert services[dependency]["healthcheck"]["test"][0] == "CMD"


def test_compose_commands_name_things_that_exist(compose):
    services = compose["services"]
    web = " ".join(command_of(services["web"]))
    assert "concord migrate --noinput" in web
    target = re.search(r"gunicorn (\S+):(\S+)", web)
    assert target, web
    assert callable(getattr(importlib.import_module(target[1]), target[2]))
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["concord"] == "concord.cli:main"
    for name, sub in (("worker", "worker"), ("beat", "beat")):
        command = command_of(services[name])
        assert command[:4] == ["celery", "-A", "concord", sub], command
    from concord.celery import app

    assert app.main == "concord"
    assert "healthz" in " ".join(services["web"]["healthcheck"]["test"])


def test_dockerfile_instructions_are_well_formed(dockerfile):
    kinds = [i["instruction"] for i in dockerfile if i["instruction"] != "COMMENT"]
    assert kinds[0] == "FROM" and re.fullmatch(
        r"python:3\.1[1-3]-slim", dockerfile_value(dockerfile, "FROM")
    )
    assert set(kinds) <= INSTRUCTIONS, set(kinds) - INSTRUCTIONS
    for instruction in dockerfile:
        if instruction["instruction"] in ("CMD", "ENTRYPOINT"):
            assert isinstance(json.loads(instruction["value"]), list)  # exec form
        if instruction["instruction"] == "HEALTHCHECK":
            exec_part = instruction["value"].split(" CMD ", 1)[1]
            assert "/healthz" in " ".join(json.loads(exec_part))
    cmd = json.loads(dockerfile_value(dockerfile, "CMD"))
    assert cmd[:2] == ["gunicorn", "concord.wsgi:application"]
    assert "USER" in kinds, "the image does not run as root"


def dockerfile_value(dockerfile: list[dict], kind: str) -> str:
    return next(i["value"] for i in dockerfile if i["instruction"] == kind)


def test_dockerfile_copies_what_the_package_needs(dockerfile):
    copied = set()
    for instruction in dockerfile:
        if instruction["instruction"] == "COPY":
            *sources, _dest = instruction["value"].split()
            for source in sources:
                assert (ROOT / source).exists(), f"COPY {source}: no such file in the repository"
                copied.add(source.rstrip("/"))
    wheel = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["hatch"]["build"]
    needed = set(wheel["targets"]["wheel"]["packages"])
    needed |= set(wheel["targets"]["wheel"]["force-include"])
    needed |= {"pyproject.toml", "requirements.lock"}
    assert needed <= copied, needed - copied
    runs = " ".join(i["value"] for i in dockerfile if i["instruction"] == "RUN")
    assert "pip install --compile -r requirements.lock" in runs  # .pyc written at build
    assert "collectstatic --noinput" in runs


def test_every_service_has_a_health_check_that_fits_what_it_runs(compose):
    """web, worker and beat run one image whose HEALTHCHECK asks the web server: a worker or
    beat inheriting it would show unhealthy forever (issue 28). Each declares its own."""
    services = compose["services"]
    for name, service in services.items():
        assert "healthcheck" in service, f"{name} inherits the image's web check"
    web = " ".join(services["web"]["healthcheck"]["test"])
    assert "/healthz" in web
    worker = " ".join(services["worker"]["healthcheck"]["test"])
    assert "/healthz" not in worker and "inspect ping" in worker
    # its own node only: celery@ + the container's host name (escaped for compose)
    assert "-d celery@$$HOSTNAME" in worker
    beat = services["beat"]
    schedule = next(a.split("=", 1)[1] for a in command_of(beat) if a.startswith("--schedule="))
    check = " ".join(beat["healthcheck"]["test"])
    assert "/healthz" not in check and schedule in check
    # the check's Python runs and judges a fresh file healthy, a stale one not
    code = beat["healthcheck"]["test"][-1]
    assert beat["healthcheck"]["test"][:2] == ["CMD", "python"]
    for age, healthy in ((10, True), (600, False)):
        with tempfile.NamedTemporaryFile() as f:
            os.utime(f.name, (time.time() - age, time.time() - age))
            run = subprocess.run([sys.executable, "-c", code.replace(schedule, f.name)])
        assert (run.returncode == 0) is healthy, age


def test_the_build_context_leaves_out_local_state_and_secrets():
    """No .dockerignore sent .venv, db.sqlite3 and .env to the Docker daemon (issue 28)."""
    ignored = {
        line.strip()
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    }
    git_ignored = {
        line.strip()
        for line in (ROOT / ".gitignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    }
    assert git_ignored <= ignored, git_ignored - ignored
    assert {".git", ".env", ".venv", "db.sqlite3"} <= ignored
