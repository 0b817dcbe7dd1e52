"""A web worker that has served annotators has not imported the analysis libraries (issue 29).

Django imports the whole URL configuration at a process's first request; when the report
views, the study planner and the judge client were imported with it, every gunicorn worker
carried numpy, scipy and the OpenAI SDK (~190 MB instead of ~95 MB) after its first task
page. The views that need them are now imported when they are requested
(``concord.lazy_views``, imports inside the functions that use them). This test serves an
annotator's task page, queue and autosave in a fresh interpreter, as a worker would after
``concord.wsgi`` is loaded, and lists what it imported.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.backend_independent(
    "processes of their own on a SQLite database of their own"
)
ROOT = Path(__file__).resolve().parents[2]
#: What an annotator's pages never need; each costs 15-95 MB of a process.
HEAVY = ("numpy", "scipy", "pandas", "openai", "matplotlib", "krippendorff")

#: A fresh database with one annotator and one medal-ranking task.
SETUP = """
import django
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)
from tests.builders.content import make_assignment, make_question, make_study
from tests.builders.users import make_user
user = make_user("annotator_w", "annotator", annotator=True)
question = make_question(make_study("Worker imports"), n_reports=3, paragraphs=4)
print(make_assignment(user.annotator, question, "medal_ranking").pk)
"""

#: What a worker does: load the WSGI application, then serve an annotator.
SERVE = """
import json, sys
import concord.wsgi
from django.contrib.auth.models import User
from django.test import Client
pk = int(sys.argv[1])
client = Client()
client.force_login(User.objects.get(username="annotator_w"))
status = {
    "page": client.get(f"/annotate/{pk}/").status_code,
    "queue": client.get("/annotate/").status_code,
    "autosave": client.post(
        f"/annotate/{pk}/save/", {"version": "0", "reasoning": "First thoughts."}
    ).status_code,
}
heavy = sorted(m for m in sys.modules if m.split(".")[0] in sys.argv[2].split(","))
print(json.dumps({"status": status, "heavy": heavy}))
"""


def python(code: str, database: Path, *args: str) -> str:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "concord.settings",
        "DATABASE_URL": f"sqlite:///{database}",
    }
    result = subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout.strip().splitlines()[-1]


def test_an_annotators_pages_import_no_analysis_library(tmp_path):
    database = tmp_path / "worker.sqlite3"
    assignment = python(SETUP, database)
    served = json.loads(python(SERVE, database, assignment, ",".join(HEAVY)))
    assert served["status"] == {"page": 200, "queue": 200, "autosave": 200}
    assert served["heavy"] == []
