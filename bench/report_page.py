"""The report page after a selector change against the command, on the released data (issue 14).

Imports the released ScholarQA-CS2 annotation files (``../shared/data/scholarqa-cs2``, as
the tests do: :mod:`tests.builders.scholarqa`) into a fresh database, then for each selection:

* the uncached report page as a browser gets it after a selector change: the htmx GET of
  the report body for a selection never computed (the selections are visited in turn, the
  cache emptied at the start of each round, as a researcher changes one selector after
  another);
* the same selection's ``manage.py agreement --json`` as a new process (end to end, as a
  user runs it).

The target (issue 14, item 6): page ≤ command. Prints one table row per selection.

Run: ``.venv/bin/python bench/report_page.py [--rounds 3]``. Uses DATABASE_URL if set
(e.g. PostgreSQL), else a fresh SQLite file in a temp folder.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SHARED = ROOT.parent / "shared" / "data" / "scholarqa-cs2"

#: (page query string, the command's arguments for the same selection)
SELECTIONS = [
    ("settings=assigned", ["--setting", "assigned"]),
    ("settings=near_expert", ["--setting", "near_expert"]),
    ("ties=partial", ["--ties", "partial"]),
    ("settings=assigned&compat=scholarqa-cs2", ["--setting", "assigned", "--compat", "scholarqa-cs2"]),
]  # fmt: skip


def best_of(rounds: int, fn) -> float:
    """The fastest of ``rounds`` runs (the others measure the machine's other load)."""
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="concord-bench-page-"))
    os.environ.setdefault("DATABASE_URL", f"sqlite:///{tmp / 'bench.sqlite3'}")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "concord.settings")
    import django

    django.setup()
    from django.conf import settings
    from django.core.cache import cache
    from django.core.management import call_command
    from django.test import Client

    from annotation.models import Study
    from tests.builders.scholarqa import import_release

    settings.ALLOWED_HOSTS = ["*"]
    call_command("migrate", verbosity=0)
    Study.objects.filter(name="bench-page").delete()
    start = time.perf_counter()
    import_release(SHARED, "bench-page")
    print(f"import of the released files: {time.perf_counter() - start:.1f} s", flush=True)
    study = Study.objects.get(name="bench-page")
    from django.contrib.auth import get_user_model

    user, _ = get_user_model().objects.get_or_create(
        username="bench-researcher", defaults={"is_staff": True, "is_superuser": True}
    )
    client = Client()
    client.force_login(user)
    url = f"/reports/{study.pk}/"
    client.get(url)  # the first page load (imports, templates): not a selector change

    from metaeval import plots

    drawing = [0.0]  # seconds spent in matplotlib (build + render) during the page
    real_build, real_render = plots.build, plots.render

    def timed(fn):
        def wrapper(*a, **k):
            start = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                drawing[0] += time.perf_counter() - start

        return wrapper

    plots.build, plots.render = timed(real_build), timed(real_render)

    def page(query):
        response = client.get(f"{url}?{query}", headers={"HX-Request": "true"})
        assert response.status_code == 200 and b"report-body" in response.content, response

    def command(argv):
        subprocess.run(
            [sys.executable, "manage.py", "agreement", "--study", "bench-page", "--json", *argv],
            cwd=ROOT, env=os.environ, check=True, stdout=subprocess.DEVNULL,
        )  # fmt: skip

    pages: dict[str, list[tuple[float, float]]] = {q: [] for q, _ in SELECTIONS}
    for _ in range(args.rounds):
        cache.clear()
        client.get(url)  # the page as first opened (default selection)
        for query, _argv in SELECTIONS:
            drawing[0], start = 0.0, time.perf_counter()
            page(query)
            pages[query].append((time.perf_counter() - start, drawing[0]))
    print(f"database: {os.environ['DATABASE_URL'].split('://')[0]}; best of {args.rounds}")
    print("\n| selection | page after the change (s) | of which drawing figures (s) "
          "| `agreement --json` (s) |\n| --- | ---: | ---: | ---: |")  # fmt: skip
    for query, argv in SELECTIONS:
        command_s = best_of(args.rounds, lambda a=argv: command(a))
        page_s, drawing_s = min(pages[query])
        print(f"| `{query}` | {page_s:.2f} | {drawing_s:.2f} | {command_s:.2f} |", flush=True)


if __name__ == "__main__":
    main()
