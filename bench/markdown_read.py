"""Reading and normalising the released ResearcherBench responses, no database: the CPU
the markdown reader (``annotation.importers.markdown``) and the normaliser
(``annotation.normalise``) spend on the six systems' 390 responses, as an import spends it
before writing.

Why a benchmark of its own: both run on every imported report (issue 29 made them cheap),
and each blinding rule added to them (bold lines read as headings, the space a removed
marker left closed up) costs a scan of every line or paragraph. Prints the best of
``--repeat`` passes per round (CPU seconds of this process) and the load average.

Run: ``.venv/bin/python bench/markdown_read.py [--rounds 3] [--repeat 3]``; compare two
checkouts by running it from each, alternately, on the same machine.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "researcherbench" / "user_data"
SYSTEMS = ["Claude", "OpenAI", "Perplexity", "Mita", "Doubao", "gpt-4o-search-preview"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "concord.settings")
    import django

    django.setup()
    from annotation.importers.structure import parse_markdown
    from annotation.normalise import normalise_report

    texts = [
        r["response"]
        for s in SYSTEMS
        for r in json.loads((args.data / f"{s}.json").read_text(encoding="utf-8"))
    ]
    for n in range(1, args.rounds + 1):
        best = min(_pass(texts, parse_markdown, normalise_report) for _ in range(args.repeat))
        load = " ".join(f"{x:.1f}" for x in os.getloadavg())
        print(f"round {n}: {len(texts)} responses read and normalised in {best:.3f} s CPU "
              f"(best of {args.repeat}; load {load})")  # fmt: skip


def _pass(texts, parse, normalise) -> float:
    start = time.process_time()
    for text in texts:
        normalise(parse(text))
    return time.process_time() - start


if __name__ == "__main__":
    main()
