"""CPU of ``import_reports`` split between the importing process and its forked helpers
(issue 29, "report import").

Wall time on a shared two-core machine says little; CPU time much more. This imports the
three systems' report files of ``labelstudio.py`` (the same generated ScholarQA-CS2 records
Label Studio is compared on) into a new study, ``--rounds`` times, and prints per round
the wall time, this process's CPU and its children's CPU (``getrusage``), so a change to
the import can be compared before/after on the same machine, alternated.

Runs on a new SQLite database in a temporary folder, or on ``--database-url`` (a scratch
database: migrated first, written to). ``CONCORD_IMPORT_PROCESSES=1`` runs the import in
one process.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]


def cpu(who) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--database-url", help="a scratch database (default: a new SQLite file)")
    args = parser.parse_args()
    folder = tempfile.TemporaryDirectory()
    os.environ["DATABASE_URL"] = args.database_url or f"sqlite:///{folder.name}/bench.sqlite3"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "concord.settings")
    os.environ.setdefault("DEBUG", "0")
    os.environ.setdefault("LOG_LEVEL", "ERROR")
    if os.environ["DEBUG"] == "0":
        os.environ.setdefault("SECRET_KEY", "import-cpu-bench-" + "x" * 40)
        os.environ.setdefault("ALLOWED_HOSTS", "127.0.0.1")
    import django

    django.setup()
    import labelstudio
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    with folder:
        files = {}
        for system, records in labelstudio.generate_reports(args.questions).items():
            files[system] = Path(folder.name) / f"{system}.json"
            files[system].write_text(json.dumps(records))
        print("round  wall (s)  process CPU (s)  helpers CPU (s)")
        for r in range(args.rounds):
            wall = time.perf_counter()
            own, kids = cpu(resource.RUSAGE_SELF), cpu(resource.RUSAGE_CHILDREN)
            labelstudio.concord_import(files, f"import-cpu-{r}-{time.time():.0f}")
            print(f"{r + 1:>5}  {time.perf_counter() - wall:8.2f}  "
                  f"{cpu(resource.RUSAGE_SELF) - own:15.2f}  "
                  f"{cpu(resource.RUSAGE_CHILDREN) - kids:15.2f}", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
