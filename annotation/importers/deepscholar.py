"""DeepScholar-Bench (002): one system's folder of paper folders, ``<system>/<n>/…``.

FILE is the system folder (or a ``.zip`` of it; its name is the system unless
``--system`` is given). Each paper folder is read in the layout its files show
(:mod:`.deepscholar_layouts`: Concord's ``output.md``; deepscholar-base's ``intro.md`` +
``paper.csv``; STORM's ``<run>/storm_gen_article_polished.md`` + ``url_to_info.json``;
``<name>.md`` + ``<name>.json`` as OpenScholar and search_ai write them; one ``<name>.md``),
with each reference taken from where that system puts it. Example (deepscholar-base)::

    deepscholar-base/0/intro.md    ## Related Works … \\[[Stephan Zheng' 2021-08-05](http://arxiv.org/abs/2108.02755v1)\\]
    deepscholar-base/0/paper.csv   id,title,url,snippet,…  (2108.02755v1,The AI Economist…,http://arxiv.org/abs/2108.02755v1,…)

The question is the *paper* (002 §3), keyed by its arXiv id and worded as the
nuggetizer's query ("Write a Related Works section … Here is the paper abstract:\n…"),
found, first match wins, in the ``--papers`` table (the release's
``test_dataset/related_works_combined.csv``: by arXiv id, abstract, title, then the row
``id`` the folder is named after, as the release's evaluation does), the arXiv id the
system's own files carry, or a question of the study whose query holds the same abstract.
Only when none names the paper does the folder name stand in (with a warning). For
Concord's own ``output.md`` the query is found, first match wins, in

1. ``<paper_id>/query.txt`` (or ``query.md``);
2. ``<paper_id>/query.json`` / ``meta.json`` / ``metadata.json``: the ``query`` field;
3. ``queries.jsonl`` / ``queries.csv`` beside the paper folders: the record whose
   ``paper_id`` (or ``id`` / ``arxiv_id``) is the folder name, its ``query`` field;
4. a front matter at the top of ``output.md`` (``---`` / ``query: …`` / ``---``) or a first
   line ``Query: …``, which is then not part of the report.

A question created earlier with a stand-in text gets the query when one turns up; a real
text is never replaced. References in the markdown are read wherever the report puts them:
under a "References" heading (also numbered, "## 5 References"), under a bold or plain
"References:" line, as markdown footnotes (``[^1]`` / ``[^1]: …``), or as a trailing list of
``[n] …`` lines with no heading at all: the one markdown reader of every format reads them
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

from .common import Problems, Source, fail, read_source
from .deepscholar_layouts import (
    QUERY_TEMPLATE,
    LayoutProblem,
    PaperOutput,
    abstract_key,
    abstract_of,
    read_paper_folder,
    words,
)
from .registry import Example, Format, Option, register
from .released import with_text
from .structure import (
    ParsedCitation,
    ParsedReport,
    ReportInput,
    parse_markdown,
    report_loader,
    to_markdown,
)

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


def _paper_folders(folder: Path) -> tuple[Path, list[Path]]:
    """The folder holding the paper folders: ``folder`` itself, or its one sub-folder
    when it only wraps one (a zip of ``<system>/``)."""
    subs = sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith((".", "__")))
    files = [p for p in folder.iterdir() if p.is_file() and not p.name.startswith(".")]
    if len(subs) == 1 and not files and _is_system_folder(subs[0]):
        inner = sorted(
            p for p in subs[0].iterdir() if p.is_dir() and not p.name.startswith((".", "__"))
        )
        return subs[0], inner
    return folder, subs


def _is_system_folder(folder: Path) -> bool:
    """Whether ``folder`` is a system's folder (its sub-folders are papers) rather than a
    paper's: it has no layout of its own and its first sub-folder has one."""
    try:
        read_paper_folder(folder)
        return False
    except LayoutProblem:
        pass
    subs = sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith((".", "__")))
    try:
        return bool(subs) and bool(read_paper_folder(subs[0]))
    except LayoutProblem:
        return False


def _papers_table(source) -> list[dict]:
    """The ``--papers`` table (the release's ``test_dataset/related_works_combined.csv`` or
    ``dataset/papers.csv``): rows with ``arxiv_id``, ``title``, ``abstract`` (and the row
    ``id`` the baseline folders are named after)."""
    if not source:
        return []
    src = read_source(source)
    csv.field_size_limit(1 << 28)
    rows = list(csv.DictReader(io.StringIO(src.text or "")))
    if rows and "arxiv_id" not in rows[0]:
        fail(src.name, "the papers table needs an arxiv_id column (and title, abstract)")
    return rows


class _Papers:
    """Which paper a folder's output answers: the paper table given, then the study's
    questions (by arXiv id, then by the abstract inside their query), then the system's
    own files; only when nothing names the paper does the folder's name stand in."""

    def __init__(self, rows: list[dict], study):
        self.rows = rows
        self.by_arxiv = {
            r["arxiv_id"].strip(): r for r in rows if (r.get("arxiv_id") or "").strip()
        }
        self.by_abstract = {
            abstract_key(r.get("abstract", "")): r for r in rows if r.get("abstract")
        }
        self.by_title = {words(r.get("title", "")): r for r in rows if r.get("title")}
        self.by_row = {str(r.get("id")).strip(): r for r in rows if str(r.get("id") or "").strip()}
        self.questions = dict(
            Question.objects.filter(study=study).values_list("external_id", "text")
        )
        self.by_query: dict[str, str] = {}
        # A question named by an arXiv id wins over one a folder's name stands in for.
        for key, text in sorted(self.questions.items(), key=lambda kv: not kv[0].isdecimal()):
            if abstract_of(text):
                self.by_query[abstract_key(abstract_of(text))] = key

    def identify(self, out: PaperOutput) -> tuple[str, str, str]:
        """(question key, question text, the paper's title) of one paper's output: the
        title the paper table gives, else the one the system's own files carry (OpenScholar's
        JSON), else none (:attr:`Question.title`: the question's label)."""
        abstract = out.abstract or abstract_of(out.query)
        row = (
            self.by_arxiv.get(out.arxiv_id)
            or self.by_abstract.get(abstract_key(abstract))
            or self.by_title.get(words(out.title))
            or self.by_row.get(out.folder)
        )
        title = ((row or {}).get("title") or "").strip() or out.title.strip()
        if row:
            key, abstract = row["arxiv_id"].strip(), (row.get("abstract") or abstract).strip()
        elif out.arxiv_id:
            key = out.arxiv_id
        else:
            key = self.by_query.get(abstract_key(abstract)) or out.folder
        if key in self.questions and self.questions[key] != key:
            return key, self.questions[key], title
        text = QUERY_TEMPLATE.format(abstract=abstract) if abstract else out.query
        return key, text or key, title


def _with_references(out: PaperOutput, parsed: ParsedReport) -> ParsedReport:
    """The system's own reference source over what its markdown lists."""
    for key, cit in out.references.items():
        listed = parsed.citations.get(key)
        if listed is not None and not cit.title and not cit.snippets:
            cit = ParsedCitation(key, listed.title, list(listed.snippets), cit.url or listed.url)
        parsed.citations[key] = cit
    return parsed


def parse_folder(src: Source, papers=None, study=None, rep=None) -> list[ReportInput]:
    problems = Problems(src.name)
    folder, paper_dirs = _paper_folders(src.directory)  # type: ignore[arg-type]
    if not paper_dirs:
        problems.file_level(
            "no paper folders in this folder (expected <system>/<n>/ with a report in one of "
            "the DeepScholar layouts; see the format's help)"
        )
        problems.raise_if_any()
    total = sum(p.stat().st_size for d in paper_dirs for p in d.rglob("*") if p.is_file())
    if total > settings.IMPORT_MAX_BYTES * 20:
        problems.file_level(
            f"the folder is larger than 20 x IMPORT_MAX_BYTES ({settings.IMPORT_MAX_BYTES})"
        )
        problems.raise_if_any()
    systems = [d.name for d in paper_dirs if _is_system_folder(d)]
    if systems and len(systems) == len(paper_dirs):
        problems.file_level(
            "this folder holds several systems' folders (" + ", ".join(systems) + "): "
            "import each system's folder on its own (its name names the system)"
        )
        problems.raise_if_any()
    out, seen = [], {}
    queries = _folder_queries(folder)
    table = _Papers(papers or [], study)
    for n, paper in enumerate(paper_dirs, start=1):
        try:
            output = read_paper_folder(paper)
        except LayoutProblem as exc:
            problems.add(n, paper.name, str(exc))
            continue
        body = output.markdown
        if output.layout == "concord":
            inline, body = split_query(body)
            output.query = _paper_query(paper) or queries.get(paper.name) or inline
        if not body.strip():
            problems.add(n, f"{paper.name}/{output.files[0]}", "empty report")
            continue
        title = ""
        if output.layout == "concord" and output.question_id:
            key, text = output.question_id, output.query or output.question_id
            title = output.title  # query.json's "title" (Concord's export writes it)
        elif output.layout == "concord":
            key, text, title = paper.name, output.query or paper.name, output.title
            if table.rows or not output.query:
                key, text, title = table.identify(output)
            if output.query and key == paper.name:
                text = output.query
        else:
            key, text, title = table.identify(output)
            if key == paper.name and rep is not None:
                rep.warn(src.name, n, paper.name, "no paper table, arXiv id or question of the "
                         f"study names this paper: its question is {key!r} (give --papers)")  # fmt: skip
        if key in seen:
            problems.add(n, paper.name, f"paper {key!r} again (first in folder {seen[key]!r})")
            continue
        seen[key] = paper.name
        parsed = _with_references(output, parse_markdown(body))
        extra = {"deepscholar": {"folder": paper.name, "layout": output.layout,
                                 "files": output.files}}  # fmt: skip
        fields = {"title": title} if title else {}  # a stored title is never blanked
        out.append(ReportInput(n, key, text, parsed, question_fields=fields, original_extra=extra))
    problems.raise_if_any()
    return out


def load_folder(source, study, rep, system: str | None = None, papers=None) -> None:
    """The shared report loader, then the query as the text of questions that only had
    their id as a stand-in (a question's real text is never replaced)."""
    found: dict[str, str] = {}
    rows = _papers_table(papers)

    def parse(src, rep):
        inputs = parse_folder(src, rows, study, rep)
        found.update({i.question_key: i.question_text for i in inputs})
        return inputs

    report_loader(parse, source_format="deepscholar", directory=True,
                  folder_hint=FOLDER_HINT)(source, study, rep, system)  # fmt: skip
    for key, query in found.items():
        if query != key:
            Question.objects.filter(study=study, external_id=key, text=key).update(text=query)


def dump_folder(study, *, system: str) -> dict[str, str]:
    """One system's reports as its DeepScholar folder, which :func:`load_folder` reads back
    to the same content: ``<system>/<question>/output.md`` (the report, its numbered
    sources listed), ``query.json`` (``{"question_id", "query", "title"}``: the question as
    it is named, not the folder's name, and its paper's title when it has one, the field
    OpenScholar's JSON names it by) and ``references.json`` (every source with its title,
    URL, snippets and fields: what a markdown list cannot carry). Textless placeholder
    reports are not written (:func:`.released.with_text`), as no other report writer
    writes them: their empty ``output.md`` is refused by the import."""
    out = {}
    for r in with_text(study, system):
        folder = f"{system}/{_folder_name(r.question_id)}"
        out[f"{folder}/output.md"] = to_markdown(r)
        meta = {"question_id": r.question_id, "query": r.question_text}
        if r.question_title:  # the paper's title, where OpenScholar's JSON has it too
            meta["title"] = r.question_title
        out[f"{folder}/query.json"] = json.dumps(meta, indent=1) + "\n"
        refs = [
            {"id": c.key, "title": c.title, "url": c.url, "snippets": list(c.snippets),
             **({"metadata": c.metadata} if c.metadata else {})}
            for c in r.citations
        ]  # fmt: skip
        out[f"{folder}/references.json"] = json.dumps(refs, indent=1, ensure_ascii=False) + "\n"
    return out


def _folder_name(question_id: str) -> str:
    """A question id as one folder name (an old arXiv id such as ``math/0511322v1`` has a
    slash); ``query.json`` keeps the id itself."""
    return re.sub(r"[^\w.\-]+", "_", question_id).strip("._") or "question"


#: What one file given alone is told: a system's reports are a folder (one per paper, in
#: the layout that system writes), uploaded as a .zip (tester's LOW defect: a released
#: ``openscholar/0/<title>.md`` was told only of Concord's own export layout).
FOLDER_HINT = (
    "DeepScholar reports are read from a system's whole folder, one folder per paper, not "
    "from one file: upload the folder as a .zip (e.g. the release's "
    "baselines_results/openscholar/ zipped). Layouts read: <system>/<n>/intro.md + "
    "paper.csv (deepscholar-base); <system>/<n>/<run>/storm_gen_article_polished.md + "
    "url_to_info.json (storm); <system>/<n>/<name>.md + <name>.json (openscholar, "
    "search_ai); <system>/<question>/output.md (Concord's own export)"
)

SHAPE = r"""A DeepScholar-Bench system folder (or a .zip of it): one folder per paper, read in the
layout its files show, each reference taken from where that system puts it.
  <system>/<n>/intro.md + paper.csv (+ result.json)     deepscholar-base: markers
      \[[Author' 2021-08-05](http://arxiv.org/abs/2108.02755v1)\] -> paper.csv row (title, url, snippet)
  <system>/<n>/<run>/storm_gen_article_polished.md + url_to_info.json
      STORM: [n] -> the URL whose url_to_unified_index is n (title, snippets)
  <system>/<n>/<name>.md + <name>.json {"output", "ctxs": [{"title", "text", "url"}], "arxiv_id", "query"}
      OpenScholar, search_ai: a listed reference with a URL by URL, else [n] -> ctxs[n]
  <system>/<n>/<name>.md                                markdown links and its References list
  <system>/<question>/output.md (+ query.json or query.txt, references.json)   Concord's export
Questions are the papers: --papers test_dataset/related_works_combined.csv (arxiv_id, title,
abstract, id) names each folder n by its arXiv id; without it, the arXiv id in the system's
files or a study question with the same abstract. Example (a two-paper folder):
  search_ai/0/Your task is ....md      Related Works\n\n... optimal taxation [4] ...\n\nReferences\n\n[4] A new approach ... (2024) http://arxiv.org/abs/2408.14476v1
  search_ai/0/Your task is ....json    {"query": "... Here is the paper abstract:\n{Economic inequality ...}.", "ctxs": [...]}"""


register(
    Format(
        "reports",
        "deepscholar",
        "DeepScholar-Bench system folder as released (deepscholar-base, STORM, OpenScholar, "
        "search_ai layouts) or as Concord exports it (<system>/<paper_id>/output.md)",
        load=load_folder,
        options=(
            Option(
                "papers",
                "DeepScholar: the release's paper table (test_dataset/related_works_combined.csv "
                "or dataset/papers.csv) naming each folder's paper by its arXiv id",
                type="file",
            ),
        ),
        dump=dump_folder,
        dump_options=(Option("system", "the system whose reports are written", required=True),),
        directory=True,
        shape=SHAPE,
        label="DeepScholar-Bench system folder",
        extension=".zip",
        example=Example(
            Path(__file__).resolve().parent / "examples" / "deepscholar", "example-system"
        ),  # fmt: skip
    )
)
