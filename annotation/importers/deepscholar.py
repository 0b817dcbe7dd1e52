"""DeepScholar-Bench (002): a system's folder ``<system>/<paper_id>/output.md``.

FILE is the system folder (its name is the system unless ``--system`` is given); each
sub-folder holding an ``output.md`` is one report for the question whose id is the folder
name (created with that id as placeholder text when missing). The markdown is parsed like
the other markdown formats.
"""

from __future__ import annotations

from pathlib import Path

from django.conf import settings

from .common import Problems, Source
from .registry import Format, Option, register
from .structure import ReportInput, parse_markdown, report_loader, stored_reports, to_markdown


def parse_folder(src: Source) -> list[ReportInput]:
    problems = Problems(src.name)
    folder: Path = src.directory  # type: ignore[assignment]
    files = sorted(p for p in folder.glob("*/output.md") if p.is_file())
    if not files:
        problems.file_level("no <paper_id>/output.md files in this folder")
        problems.raise_if_any()
    out, total = [], 0
    for n, path in enumerate(files, start=1):
        total += path.stat().st_size
        if total > settings.IMPORT_MAX_BYTES:
            problems.file_level(
                f"the folder is larger than IMPORT_MAX_BYTES ({settings.IMPORT_MAX_BYTES})"
            )
            break
        paper_id = path.parent.name
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            problems.add(n, f"{paper_id}/output.md", "not UTF-8 text")
            continue
        if not text.strip():
            problems.add(n, f"{paper_id}/output.md", "empty report")
            continue
        out.append(ReportInput(n, paper_id, paper_id, parse_markdown(text)))
    problems.raise_if_any()
    return out


def dump_folder(study, *, system: str) -> dict[str, str]:
    """One system's reports as its DeepScholar folder: ``<system>/<paper_id>/output.md``."""
    return {
        f"{system}/{r.question_id}/output.md": to_markdown(r)
        for r in stored_reports(study, system=system)
    }


register(
    Format(
        "reports",
        "deepscholar",
        "DeepScholar-Bench system folder <system>/<paper_id>/output.md",
        load=report_loader(
            lambda src, rep: parse_folder(src), source_format="deepscholar", directory=True
        ),  # fmt: skip
        dump=dump_folder,
        dump_options=(Option("system", "the system whose reports are written", required=True),),
        directory=True,
    )
)
