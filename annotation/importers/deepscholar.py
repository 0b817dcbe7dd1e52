"""DeepScholar-Bench (002): a system's folder ``<system>/<paper_id>/output.md``.

FILE is the system folder (its name is the system unless ``--system`` is given); each
sub-folder holding an ``output.md`` is one report for the question whose id is the folder
name. The question's text is the *query* (002 §3: the paper's description given to every
system), found, first match wins, in

1. ``<paper_id>/query.txt`` (or ``query.md``);
2. ``<paper_id>/query.json`` / ``meta.json`` / ``metadata.json``: the ``query`` field;
3. ``queries.jsonl`` / ``queries.csv`` beside the paper folders: the record whose
   ``paper_id`` (or ``id`` / ``arxiv_id``) is the folder name, its ``query`` field;
4. a front matter at the top of ``output.md`` (``---`` / ``query: …`` / ``---``) or a first
   line ``Query: …``, which is then not part of the report;

and only when there is none the folder name stands in (as before). A question created
earlier with that stand-in gets the query when one turns up; a real text is never replaced.

References are read wherever the report puts them: under a "References" heading (also
numbered, "## 5 References"), under a bold or plain "References:" line, as markdown
footnotes (``[^1]`` / ``[^1]: …``), or as a trailing list of ``[n] …`` lines with no
heading at all: the one markdown reader of every format reads them
(:mod:`annotation.importers.markdown`).
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

from django.conf import settings

from annotation.models import Question

from .common import Problems, Source
from .registry import Example, Format, Option, register
from .structure import ReportInput, parse_markdown, report_loader, stored_reports, to_markdown

_ID_FIELDS = ("paper_id", "id", "arxiv_id")
_META_FILES = ("query.json", "meta.json", "metadata.json")
_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?)\n---[ \t]*(?:\n|\Z)", re.S)
_QUERY_LINE = re.compile(r"\A\s*(?:\*\*)?query(?:\*\*)?\s*:\s*(?:\*\*)?\s*(.+?)\s*\n", re.I)


def split_query(text: str) -> tuple[str, str]:
    """(query from a front matter or a leading "Query:" line, the report without it)."""
    m = _FRONT_MATTER.match(text)
    if m:
        for line in m.group(1).split("\n"):
            key, _, value = line.partition(":")
            if key.strip().lower() == "query" and value.strip():
                return value.strip().strip("\"'"), text[m.end() :]
        return "", text[m.end() :]
    m = _QUERY_LINE.match(text)
    if m:
        return m.group(1).strip(), text[m.end() :]
    return "", text


def _folder_queries(folder: Path) -> dict[str, str]:
    """``queries.jsonl`` / ``queries.csv`` beside the paper folders: {paper id: query}."""
    out: dict[str, str] = {}
    jsonl, table = folder / "queries.jsonl", folder / "queries.csv"
    rows: list = []
    if jsonl.is_file():
        for line in jsonl.read_text(encoding="utf-8").splitlines():
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except ValueError:
                    continue
    if table.is_file():
        rows.extend(csv.DictReader(io.StringIO(table.read_text(encoding="utf-8"))))
    for row in rows:
        if not isinstance(row, dict) or not isinstance(row.get("query"), str):
            continue
        key = next((str(row[f]) for f in _ID_FIELDS if row.get(f) not in (None, "")), "")
        if key and row["query"].strip():
            out.setdefault(key, row["query"].strip())
    return out


def _paper_query(paper: Path) -> str:
    for name in ("query.txt", "query.md"):
        if (paper / name).is_file():
            text = (paper / name).read_text(encoding="utf-8").strip()
            if text:
                return text
    for name in _META_FILES:
        if (paper / name).is_file():
            try:
                data = json.loads((paper / name).read_text(encoding="utf-8"))
            except ValueError:
                continue
            query = data.get("query") if isinstance(data, dict) else None
            if isinstance(query, str) and query.strip():
                return query.strip()
    return ""


def parse_folder(src: Source) -> list[ReportInput]:
    problems = Problems(src.name)
    folder: Path = src.directory  # type: ignore[assignment]
    files = sorted(p for p in folder.glob("*/output.md") if p.is_file())
    if not files:
        problems.file_level("no <paper_id>/output.md files in this folder")
        problems.raise_if_any()
    out, total = [], 0
    queries = _folder_queries(folder)
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
        inline, body = split_query(text)
        query = _paper_query(path.parent) or queries.get(paper_id) or inline
        parsed = parse_markdown(body)
        out.append(ReportInput(n, paper_id, query or paper_id, parsed))
    problems.raise_if_any()
    return out


def load_folder(source, study, rep, system: str | None = None) -> None:
    """The shared report loader, then the query as the text of questions that only had
    their id as a stand-in (a question's real text is never replaced)."""
    found: dict[str, str] = {}

    def parse(src, rep):
        inputs = parse_folder(src)
        found.update({i.question_key: i.question_text for i in inputs})
        return inputs

    report_loader(parse, source_format="deepscholar", directory=True)(source, study, rep, system)
    for key, query in found.items():
        if query != key:
            Question.objects.filter(study=study, external_id=key, text=key).update(text=query)


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
        load=load_folder,
        dump=dump_folder,
        dump_options=(Option("system", "the system whose reports are written", required=True),),
        directory=True,
        label="DeepScholar-Bench system folder",
        extension=".zip",
        shape=(
            "A folder named after the system: <system>/<paper_id>/output.md (markdown,\n"
            "references under a References heading or as footnotes), the query in\n"
            "<paper_id>/query.txt (or query.json, queries.jsonl beside the folders)."
        ),
        example=Example(
            Path(__file__).resolve().parent / "examples" / "deepscholar", "example-system"
        ),  # fmt: skip
    )
)
