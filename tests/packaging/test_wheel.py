"""Concord as a package: the wheel carries templates, static files and fixtures, installs in a
clean virtual environment with the pinned runtime dependencies (requirements.lock), and its
``concord`` command migrates, loads the demo and serves it — no checkout involved.

Also: the same wheel installs and passes ``concord check`` under every supported Python this
machine has (3.11-3.13). uv builds and installs (its cache keeps this to about a minute).
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
import requests

pytestmark = pytest.mark.packaging

ROOT = Path(__file__).resolve().parents[2]
UV = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")


def clean_env(home: Path) -> dict:
    """No settings, database or broker of the test run leak into the installed Concord.

    PYTHONDONTWRITEBYTECODE is left out on purpose: the installed Concord's first command
    writes the .pyc files of what it imports into the fresh virtual environment, and the
    commands after it read them instead of compiling Django and its dependencies again
    (about 5 s of CPU per command; issue 14)."""
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")}
    env.update(CONCORD_HOME=str(home), DEBUG="1")
    return env


def sh(*args, cwd=None, env=None, timeout=600) -> str:
    done = subprocess.run(
        [str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )
    assert done.returncode == 0, f"{args}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    if UV is None:
        pytest.skip("uv is not installed (it is in the dev extra)")
    out = tmp_path_factory.mktemp("dist")
    sh(UV, "build", "--wheel", "--out-dir", out, ROOT, cwd=ROOT)
    (found,) = out.glob("concord-*.whl")
    return found


def install(wheel: Path, python: str, where: Path) -> Path:
    """A fresh virtual environment with the locked runtime dependencies and the wheel."""
    venv = where / "venv"
    sh(UV, "venv", "--quiet", "--python", python, venv)
    sh(UV, "pip", "install", "--quiet", "--python", venv / "bin" / "python",
       "-r", ROOT / "requirements.lock", wheel)  # fmt: skip
    return venv


def test_the_wheel_carries_templates_static_files_fixtures_and_the_command(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in (
        "concord/templates/base.html",
        "concord/static/js/annotate.js",
        "concord/fixtures/demo/demo.json",
        "annotation/migrations/0001_initial.py",
    ):
        assert needed in names, needed
    assert not any(n.startswith("tests/") for n in names)
    (entry_points,) = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert re.search(r"^concord = concord\.cli:main$", text, re.M)
    (metadata,) = [n for n in names if n.endswith(".dist-info/METADATA")]
    assert "Requires-Python: <3.14,>=3.11" in zipfile.ZipFile(wheel).read(metadata).decode()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_installed_wheel_serves_the_demo(wheel, tmp_path):
    venv = install(wheel, sys.executable, tmp_path)
    home = tmp_path / "home"
    home.mkdir()
    env = clean_env(home)
    concord = venv / "bin" / "concord"
    sh(concord, "migrate", "--noinput", cwd=home, env=env)
    sh(concord, "manage", "demo", cwd=home, env=env)
    assert (home / "db.sqlite3").is_file()  # the database is in CONCORD_HOME, not site-packages
    port = free_port()
    server = subprocess.Popen(
        [concord, "manage", "runserver", f"127.0.0.1:{port}", "--noreload"],
        cwd=home, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                first = requests.get(f"{base}/", allow_redirects=False, timeout=5)
                break
            except requests.ConnectionError:
                assert server.poll() is None, server.stdout.read().decode()
                assert time.monotonic() < deadline, "the installed Concord did not start"
                time.sleep(0.3)
        assert first.status_code == 302 and "/accounts/login/" in first.headers["Location"]
        client = requests.Session()
        login = client.get(f"{base}/accounts/login/", timeout=10)
        assert login.status_code == 200 and 'name="password"' in login.text  # a template
        answer = client.post(
            f"{base}/accounts/login/",
            data={"username": "admin", "password": "admin",
                  "csrfmiddlewaretoken": client.cookies["csrftoken"]},
            headers={"Referer": f"{base}/accounts/login/"},
            timeout=10,
        )  # fmt: skip
        assert answer.status_code == 200 and answer.url == f"{base}/", answer.url
        studies = client.get(f"{base}/studies/", timeout=30).text
        assert "Demo: deep-research reports" in studies
        # every judgment format the Download panel offers, parquet included, is written by
        # the runtime dependencies alone (pyarrow was a dev-only extra: a 400, issue 28)
        study = re.search(r'href="/studies/(\d+)/"', studies)[1]
        detail = client.get(f"{base}/studies/{study}/", timeout=30).text
        offered = set(re.findall(rf'href="(/studies/{study}/export/judgments\.\w+)"', detail))
        assert f"/studies/{study}/export/judgments.parquet" in offered, offered
        for path in sorted(offered):
            got = client.get(f"{base}{path}", timeout=60)
            assert got.status_code == 200, (path, got.text[:300])
        parquet = client.get(f"{base}/studies/{study}/export/judgments.parquet", timeout=60)
        assert parquet.content[:4] == b"PAR1"
        script = client.get(f"{base}/static/js/annotate.js", timeout=10)
        assert script.status_code == 200 and len(script.content) > 1000
    finally:
        server.terminate()
        server.wait(timeout=10)


SUPPORTED = ("python3.12", "python3.13")


def find_python(name: str) -> str | None:
    """``name`` on the PATH, or installed by pyenv but not selected (its shim then fails)."""
    for candidate in (shutil.which(name), _pyenv_which(name)):
        if candidate and subprocess.run([candidate, "-V"], capture_output=True).returncode == 0:
            return candidate
    return None


def _pyenv_which(name: str) -> str | None:
    if shutil.which("pyenv") is None:
        return None
    version = name.removeprefix("python")
    listed = subprocess.run(["pyenv", "versions", "--bare"], capture_output=True, text=True)
    for line in listed.stdout.split():
        if line == version or line.startswith(version + "."):
            found = subprocess.run(["pyenv", "prefix", line], capture_output=True, text=True)
            path = Path(found.stdout.strip()) / "bin" / name
            if found.returncode == 0 and path.is_file():
                return str(path)
    return None


@pytest.mark.parametrize("python", SUPPORTED)
def test_the_wheel_installs_and_checks_under_every_supported_python(wheel, tmp_path, python):
    interpreter = find_python(python)
    if interpreter is None:
        pytest.skip(f"{python} is not on this machine")
    venv = install(wheel, interpreter, tmp_path)
    env = clean_env(tmp_path)
    version = sh(venv / "bin" / "python", "-c", "import sys; print(sys.version_info[:2])", env=env)
    assert python.removeprefix("python").replace(".", ", ") in version
    assert "no issues" in sh(venv / "bin" / "concord", "check", env=env)
    sh(venv / "bin" / "concord", "migrate", "--noinput", env=env, cwd=tmp_path)


def test_the_python_client_builds_on_its_own(tmp_path):
    """``pip install ./client``: its own project, depending on requests and pandas only."""
    if UV is None:
        pytest.skip("uv is not installed (it is in the dev extra)")
    sh(UV, "build", "--wheel", "--out-dir", tmp_path, ROOT / "client", cwd=ROOT / "client")
    (found,) = tmp_path.glob("concord_client-*.whl")
    names = zipfile.ZipFile(found).namelist()
    assert "concord_client/__init__.py" in names
    (metadata,) = [n for n in names if n.endswith(".dist-info/METADATA")]
    text = zipfile.ZipFile(found).read(metadata).decode()
    required = re.findall(r"^Requires-Dist: ([a-z0-9-]+)[^;\n]*$", text, re.M)
    assert sorted(required) == ["pandas", "requests"], required
