"""The judgment export as XLSX beside CSV: rows per second of ``export_judgments``.

The study is the ScholarQA-CS2 release (its six pairwise files imported as
``tests/builders/scholarqa`` does: 5,745 judgments, the download a tester found taking 10 s
as XLSX against 0.5-0.9 s as CSV). The records are read once; each format is then written
``--repeat`` times and the best pass is printed (CPU seconds of this process, so other
sessions on the machine move the figure less), with the load average.

Run: ``.venv/bin/python bench/spreadsheet_export.py [--repeat 3]``. Uses DATABASE_URL if set (the
study is left in it), else a fresh SQLite file in a temp folder. Needs ``../shared/data/scholarqa-cs2``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "scholarqa-cs2"
FORMATS = ("csv", "xlsx", "parquet")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    tmp = Path(tempfile.mkdtemp(prefix="concord-xlsx-bench-"))
    os.environ.setdefault("DATABASE_URL", f"sqlite:///{tmp / 'bench.sqlite3'}")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "concord.settings")
    import django

    django.setup()
    from django.core.management import call_command

    from annotation.exporters import export_judgments, judgment_records
    from annotation.models import Study
    from tests.builders.scholarqa import import_release

    call_command("migrate", verbosity=0)
    name = f"xlsx bench {int(time.time())}"  # a study of its own in a DATABASE_URL's database
    import_release(args.data, name)
    study = Study.objects.get(name=name)
    records = judgment_records(study)
    print(f"database: {os.environ['DATABASE_URL'].split('://')[0]}; {len(records)} judgments")
    print("| format | best CPU s | rows/s | size |\n| --- | ---: | ---: | ---: |")
    for fmt in FORMATS:
        best, size = min(_pass(export_judgments, study, fmt, records) for _ in range(args.repeat))
        print(f"| {fmt} | {best:.3f} | {len(records) / best:,.0f} | {size / 1024:,.0f} KiB |")
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"(best of {args.repeat}; load {load})")


def _pass(export, study, fmt, records) -> tuple[float, int]:
    start = time.process_time()
    out = export(study, fmt, records=records)
    return time.process_time() - start, len(out)


if __name__ == "__main__":
    main()
