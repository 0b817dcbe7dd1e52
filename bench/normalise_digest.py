"""One digest of what the report import parses and normalises (issue 29, session 11).

The parse and normalise phases are optimised for speed with the promise that their output
does not change by a byte. This script is that promise's check: it imports (as a dry run,
the write replaced by a capture) every released report file under ``../shared/data``
(ScholarQA-CS2 reports, ResearcherBench responses, DeepScholar system folders), the test
and example fixtures of every report format, a few malformed files (their problems'
messages), and the report benchmark's generated files (``bench/report_import.py``
``generate``), and prints a sha256 per input and one over all of them of the ``repr`` of:

* what the format's parser handed to the write (every ``ReportInput``: record, question,
  parsed report with anchors, the released record kept for export), before and after
  normalisation (a normaliser that mutated its input would show);
* :func:`annotation.normalise.normalise_reports` of it (normalised report and original);
* the ``ImportReport``'s records and warnings, or the problems of a refused file.

Run it before a change and after: the digests must be identical.

Run: ``.venv/bin/python bench/normalise_digest.py [--questions 5000] [--folder /tmp/fp]
[--no-bench]``.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
SHARED = ROOT.parent / "shared" / "data"
FIXTURES = ROOT / "tests" / "data"
EXAMPLES = ROOT / "annotation" / "importers" / "examples"

#: Malformed or odd files (ScholarQA format): the messages of what is refused, the reading
#: of what is accepted (numbers beyond 64 bits, duplicate keys, escapes, JSON lines).
ODD = {
    "truncated": b'[{"question": "q", "response": {"sections": [',
    "bad-line": b'{"question": "a", "response": {"sections": []}}\n{"question": "b", "resp\n',
    "nan": b'[{"question": "q", "response": {"sections": [{"title": "t", "text": "x",'
    b' "citations": [{"id": "1", "title": "t", "snippets": [], "metadata": {"s": NaN}}]}]}}]',
    "big-int": b'[{"question": "q", "response": {"sections": [{"title": "t", "text": "x [1]",'
    b' "citations": [{"id": "1", "title": "t", "snippets": [], "metadata": '
    b'{"n": 123456789012345678901234567890, "m": -9223372036854775809, "f": 1.5e300}}]}]}}]',
    "dup-keys": b'[{"question": "q", "question": "r", "response": {"sections": [{"text": "a",'
    b' "title": "t", "text": "b [1]", "citations": [{"id": "1", "title": "t"}]}]}}]',
    "surrogate": b'[{"question": "q \\ud800", "response": {"sections": []}}]',
    "nul": b'[{"question": "q \\u0000", "response": {"sections": []}}]',
    "jsonl": b'{"question": "a", "response": {"sections": [{"title": "t", "text": "x"}]}}\n\n'
    b'{"question": "b", "response": {"sections": [{"title": "u", "text": "y (Li, 2020)"}]}}\n',
    "not-a-list": b'"just a string"',
    "deep": b"[" * 5000 + b"]" * 5000,
    "long-number": b'[{"question": "q", "n": ' + b"9" * 5000 + b"}]",
    "bom": b'\xef\xbb\xbf[{"question": "q", "response": {"sections": []}}]',
    "bad-utf8": b'[{"question": "q\xff"}]',
    "wrong-types": b'[{"question": 3, "response": {"sections": [{"title": 1, "text": null,'
    b' "citations": [{"id": "", "title": "", "snippets": "x"}]}]}}, {"response": []}]',
}


def inputs(questions: int, folder: Path | None, bench: bool) -> list[tuple[str, str, object, dict]]:
    """(label, format, source, options) of everything digested, in a fixed order."""
    out = []
    for p in sorted((SHARED / "scholarqa-cs2" / "reports").glob("*/*.json*")):
        out.append((f"shared/{p.relative_to(SHARED)}", "scholarqa", p, {}))
    for p in sorted((SHARED / "researcherbench" / "user_data").glob("*.json")):
        out.append((f"shared/{p.relative_to(SHARED)}", "researcherbench", p, {}))
    papers = SHARED / "deepscholar" / "test_dataset" / "related_works_combined.csv"
    for p in sorted((SHARED / "deepscholar" / "baselines_results").iterdir()):
        if p.is_dir():
            out.append((f"shared/{p.relative_to(SHARED)}", "deepscholar", p, {"papers": papers}))
    for name, fmt in (
        ("scholarqa_reports.json", "scholarqa"),
        ("scholarqa_reports.jsonl", "scholarqa"),
        ("researcherbench_responses.json", "researcherbench"),
        ("researchqa_responses.json", "researchqa"),
        ("researchqa_responses_listed.json", "researchqa"),
    ):
        out.append((f"tests/data/{name}", fmt, FIXTURES / name, {}))
    for p in sorted((FIXTURES / "deepscholar").iterdir()):
        if p.is_dir():
            out.append((f"tests/data/deepscholar/{p.name}", "deepscholar", p, {}))
    for name, fmt in (
        ("scholarqa_reports.json", "scholarqa"),
        ("researcherbench_responses.json", "researcherbench"),
        ("researchqa_responses.json", "researchqa"),
        ("researchqa_responses_list.json", "researchqa"),
    ):
        out.append((f"examples/{name}", fmt, EXAMPLES / name, {}))
    out.append(("examples/deepscholar", "deepscholar", EXAMPLES / "deepscholar" /
                "example-system", {}))  # fmt: skip
    for name, data in ODD.items():
        out.append((f"odd/{name}", "scholarqa", data, {}))
    if bench:
        from report_import import generate

        paths = generate(questions, folder=folder)
        for system, files in paths.items():
            for p in files:
                out.append((f"bench/{system}/{p.name}", "scholarqa", p, {}))
    return out


def digest_one(fmt: str, source, options: dict) -> tuple[str, float]:
    """sha256 of the import's parse and normalisation of ``source`` (module doc), and the
    seconds it took (parse and normalise, and a dry run's bookkeeping)."""
    from annotation.importers import ImportFailed, run, structure
    from annotation.normalise import normalise_reports

    h = hashlib.sha256()

    def capture(study, system_name, got, source_format, rep, file="upload"):
        h.update(f"write {system_name!r} {source_format!r} {file!r}\n".encode())
        h.update(repr(got).encode("utf-8", "surrogatepass"))
        normalised = normalise_reports([i.parsed for i in got])
        h.update(repr(normalised).encode("utf-8", "surrogatepass"))
        h.update(repr(got).encode("utf-8", "surrogatepass"))
        h.update(f"records {rep.records!r} warnings {rep.warnings!r}\n".encode())

    original = structure.write_reports
    structure.write_reports = capture
    start = time.perf_counter()
    try:
        rep = run("reports", source, study="digest", format=fmt, system="sys", dry_run=True,
                  **options)  # fmt: skip
        h.update(f"done records {rep.records!r} warnings {rep.warnings!r}\n".encode())
    except ImportFailed as failed:
        h.update(f"refused {failed.problems!r}\n".encode("utf-8", "surrogatepass"))
    except Exception as crash:  # noqa: BLE001 - a crash is output too (it must stay the same)
        h.update(f"crashed {type(crash).__name__} {crash}\n".encode("utf-8", "surrogatepass"))
    finally:
        structure.write_reports = original
    return h.hexdigest(), time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=5000, help="bench files' questions")
    parser.add_argument("--folder", type=Path, help="the bench files' folder (reused)")
    parser.add_argument("--no-bench", action="store_true", help="released and fixtures only")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="concord-normalise-digest-"))
    os.environ["DATABASE_URL"] = f"sqlite:///{tmp / 'digest.sqlite3'}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "concord.settings")
    os.environ.setdefault("DEBUG", "0")
    os.environ.setdefault("SECRET_KEY", "normalise-digest-" + os.urandom(16).hex())
    import logging

    import django

    django.setup()
    from django.core.management import call_command

    logging.getLogger("concord.imports").setLevel(logging.ERROR)
    call_command("migrate", verbosity=0)
    total = hashlib.sha256()
    for label, fmt, source, options in inputs(args.questions, args.folder, not args.no_bench):
        digest, seconds = digest_one(fmt, source, options)
        total.update(f"{label} {digest}\n".encode())
        print(f"{digest[:16]}  {seconds:6.2f} s  {label}", flush=True)
    print(f"all: {total.hexdigest()}")


if __name__ == "__main__":
    main()
