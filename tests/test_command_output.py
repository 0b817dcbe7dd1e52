"""Commands are quiet by default (issue 28): every command printed ``INFO concord.*`` lines
on stderr around its results, and a judge run without a broker warned kombu's "No hostname
was supplied". ``-v 2`` brings the INFO lines back; a server logs as configured.

Run as a person runs them: ``manage.py`` in a process of its own, on a SQLite file.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from concord.cli import log_level

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"


@pytest.mark.parametrize(
    "argv, level",
    [
        (["import_reports", "f.json"], "WARNING"),
        (["import_reports", "f.json", "-v", "2"], "INFO"),
        (["import_reports", "f.json", "--verbosity=3"], "DEBUG"),
        (["import_reports", "-v0", "f.json"], "ERROR"),
        (["runserver", "127.0.0.1:8000"], "INFO"),
    ],
)
def test_the_log_level_follows_the_verbosity(argv, level, monkeypatch):
    monkeypatch.delenv("CONCORD_LOG_LEVEL", raising=False)
    assert log_level(argv) == level


def test_an_explicit_log_level_wins(monkeypatch):
    monkeypatch.setenv("CONCORD_LOG_LEVEL", "DEBUG")
    assert log_level(["import_reports", "f.json"]) == "DEBUG"


def manage(tmp_path: Path, *argv: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("CONCORD_LOG_LEVEL", "DATABASE_URL")}
    env["DATABASE_URL"] = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    env.pop("CELERY_BROKER_URL", None)
    return subprocess.run([sys.executable, "manage.py", *argv], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)  # fmt: skip


def test_an_import_prints_its_summary_and_nothing_else_unless_asked(tmp_path):
    assert manage(tmp_path, "migrate", "--noinput").returncode == 0
    args = ["import_reports", str(DATA / "scholarqa_reports.json"), "--study", "S",
            "--format", "scholarqa", "--system", "sqa"]  # fmt: skip
    quiet = manage(tmp_path, *args)
    assert quiet.returncode == 0, quiet.stderr
    assert "Report" in quiet.stdout  # the summary
    assert "INFO" not in quiet.stderr and "concord.imports" not in quiet.stderr, quiet.stderr
    loud = manage(tmp_path, *args, "--dry-run", "-v", "2")
    assert loud.returncode == 0, loud.stderr
    assert "INFO concord.imports" in loud.stderr
