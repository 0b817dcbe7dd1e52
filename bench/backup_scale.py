"""Backup and restore of a large study (issue 8): export, restore as a copy, restore fresh.

The study of ``agreement_scale.py``: 40,000 questions × 3 of 8 systems × 2 annotators =
240,000 pairwise records (80,000 assignments and medal rankings, 240,000 medals, 120,000
reports, 720,000 judge scores). Prints the time of ``export_study``, the file size, the
time of ``import_study --as`` next to the original (every public id clashes and is
replaced) and of ``import_study`` into an emptied database, and checks that the agreement
report of the restored study equals the original's.

Run: ``.venv/bin/python bench/backup_scale.py [--questions N]``. Uses DATABASE_URL if set
(e.g. PostgreSQL; the database is flushed), else a fresh SQLite file in a temp folder.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--questions", type=int, default=40_000)
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="concord-backup-bench-"))
    os.environ.setdefault("DATABASE_URL", f"sqlite:///{tmp / 'bench.sqlite3'}")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "concord.settings")
    import django

    django.setup()
    from agreement_scale import generate, import_files, timed
    from django.core.management import call_command

    from studio.backup import graph

    def rows() -> int:
        return sum(t.model.objects.count() for t in graph.tables())

    def report(name: str) -> dict:
        out = io.StringIO()
        call_command("agreement", "--study", name, "--json", stdout=out)
        report = json.loads(out.getvalue())
        report["selection"].pop("study_id")
        return report

    results: list[tuple[str, float]] = []
    print(f"database: {os.environ['DATABASE_URL'].split('://')[0]}")
    call_command("migrate", verbosity=0)
    call_command("flush", interactive=False, verbosity=0)
    paths = generate(args.questions, tmp)
    import_files(paths, "bench")
    n_rows = rows()
    print(f"{args.questions} questions, {n_rows} rows in the study's tables")
    original = report("bench")
    backup = tmp / "bench.zip"
    timed("export_study", lambda: call_command(
        "export_study", "--study", "bench", "--out", str(backup), stdout=io.StringIO()
    ), results)  # fmt: skip
    size = backup.stat().st_size
    print(f"{'file size':58s} {size / 2**20:8.1f} MiB", flush=True)
    timed("import_study --as copy (same database, ids replaced)", lambda: call_command(
        "import_study", str(backup), "--as", "copy", stdout=io.StringIO()
    ), results)  # fmt: skip
    assert report("copy") == original
    call_command("flush", interactive=False, verbosity=0)
    timed("import_study into an empty database", lambda: call_command(
        "import_study", str(backup), stdout=io.StringIO()
    ), results)  # fmt: skip
    assert rows() == n_rows
    assert report("bench") == original
    print("restored: same row count and the same agreement report")
    print(f"\n{n_rows} rows, file {size / 2**20:.1f} MiB\n| step | seconds |\n| --- | ---: |")
    for label, seconds in results:
        print(f"| {label} | {seconds:.2f} |")


if __name__ == "__main__":
    main()
