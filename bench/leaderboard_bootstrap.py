"""The bootstrapped leaderboard on the released ScholarQA-CS2 study (issue 29).

Issue 29: ``analysis --kind leaderboard --bootstrap 500`` took 26 s on 14 questions × 4
systems (1,000 rounds: 140 s on a loaded machine); target: 1,000 rounds under 1 s. Two
studies: 14 questions × 4 systems with three annotators' preferences on every pair, built
by ``tests/builders/leaderboard.py``, and the released ScholarQA-CS2 agreement-only files
imported as pairwise preferences (``import_pairwise --consensus``: 174 questions of six
systems; the medal rankings of the other released files make no pairwise board). For
each, alternately in every round:

* ``analysis --kind leaderboard --json`` in this process with ``--bootstrap 0`` and with
  ``--bootstrap 1000``: their difference is what the 1,000 rounds cost;
* the same command with ``--bootstrap 1000`` as a new process (``manage.py analysis``): its
  wall time minus the in-process time is the command's own overhead (interpreter and
  Django start-up, imports), reported apart.

Medians of ``--rounds`` rounds (default 5); wall and this process's CPU (``getrusage``),
with the load average. Uses a fresh SQLite file in a temporary folder.

Run: ``.venv/bin/python bench/leaderboard_bootstrap.py [--rounds N]``.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from proc_cpu import measure  # noqa: E402  (bench/ is the script's folder)

DATA = ROOT.parent / "shared" / "data" / "scholarqa-cs2"
TARGET = 1.0  # seconds for 1,000 rounds (issue 29)
#: (label, study): the issue's size, and the released pairwise preferences.
SELECTIONS = [
    ("14 questions x 4 systems, 3 annotators", "lb14"),
    ("released agreement-only files as preferences", "released"),
]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--bootstrap", type=int, default=1000)
    args = parser.parse_args()
    if not DATA.is_dir():
        sys.exit(f"the released ScholarQA-CS2 data is not at {DATA}")
    tmp = Path(tempfile.mkdtemp(prefix="concord-leaderboard-"))
    os.environ["DATABASE_URL"] = f"sqlite:///{tmp / 'bench.sqlite3'}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "concord.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from tests.builders.leaderboard import leaderboard_study

    leaderboard_study("lb14")
    for name in ("pairwise_dev_assigned_agreement_only.json",
                 "pairwise_test_assigned_agreement_only.json"):  # fmt: skip
        call_command("import_pairwise", str(DATA / "annotation" / name), study="released",
                     annotator="agreed", setting="assigned", judge="gemini-2.5-flash",
                     consensus=True, stdout=io.StringIO())  # fmt: skip

    def in_process(rounds: int, study: str):
        def run():
            out = io.StringIO()
            call_command("analysis", "--study", study, "--kind", "leaderboard", "--json",
                         "--bootstrap", str(rounds), stdout=out)  # fmt: skip
            return json.loads(out.getvalue())

        return run

    def new_process(rounds: int, study: str):
        def run():
            subprocess.run(
                [sys.executable, "manage.py", "analysis", "--study", study, "--kind",
                 "leaderboard", "--json", "--bootstrap", str(rounds)],
                cwd=ROOT, env=os.environ, check=True, stdout=subprocess.DEVNULL,
            )  # fmt: skip

        return run

    n = args.bootstrap
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; "
          f"medians of {args.rounds} rounds")  # fmt: skip
    print(f"\n| selection | board | with {n} rounds, in process s (CPU s) | "
          f"without rounds s | the {n} rounds s | new process s | command overhead s | "
          f"vs {TARGET:.0f} s |\n| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")  # fmt: skip
    for label, study in SELECTIONS:
        in_process(n, study)()  # warm up (imports, caches)
        timings = {"boot": [], "boot_cpu": [], "none": [], "process": []}
        result = None
        for _ in range(args.rounds):
            wall, used, result = measure(in_process(n, study))
            timings["boot"].append(wall)
            timings["boot_cpu"].append(used)
            timings["none"].append(measure(in_process(0, study))[0])
            timings["process"].append(measure(new_process(n, study))[0])
        med = {k: statistics.median(v) for k, v in timings.items()}
        boards = (result.get("leaderboard") or {}).get("boards") or []
        human = next((b for b in boards if b.get("source") == "human"), boards[0] if boards else {})
        size = f"{len(human.get('rows', []))} systems, {human.get('rounds', 0)} rounds"
        print(f"| {label} | {size} | {med['boot']:.3f} ({med['boot_cpu']:.3f}) | "
              f"{med['none']:.3f} | {med['boot'] - med['none']:.3f} | {med['process']:.2f} | "
              f"{med['process'] - med['boot']:.2f} | {med['boot'] / TARGET:.2f}x |")  # fmt: skip
    print(f"\nload average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
