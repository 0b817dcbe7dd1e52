"""The folder layouts DeepScholar-Bench's baseline systems write, read as released (issue 25).

Each paper's folder (``<system>/<n>/``, ``n`` the paper's row in the release's test split)
is recognised by what it holds, never by the system's name, so a system of the same
family reads the same way. Every layout gives the report's markdown, its references from
where that system puts them, and what the system's files say about the paper:

=================  ===========================================  ==============================
family             files                                        references
=================  ===========================================  ==============================
concord            ``output.md`` (Concord's own export)         the markdown's "References"
paper-table        ``intro.md`` + ``paper.csv`` (+              ``paper.csv`` rows by URL / id
                   ``result.json``) — deepscholar-base          (title, url, snippet)
article-index      ``[<run>/]storm_gen_article_polished.md``    ``url_to_info.json``: marker
                   (or ``storm_gen_article.md``) +              ``[n]`` is the URL whose
                   ``url_to_info.json`` — STORM                 ``url_to_unified_index`` is n
markdown+json      ``<name>.md`` + ``<name>.json`` holding      the markdown's numbered list
                   ``output`` / ``ctxs`` — OpenScholar,         where it has URLs, else
                   search_ai                                    ``ctxs[n]`` (0-based, as the
                                                                release's parsers read them)
markdown           one ``<name>.md`` alone                      the markdown's own links and
                                                                "References" list
=================  ===========================================  ==============================

A passage is never a title: a reference's title is its source's ``title`` field (empty
when the source has none); the passage it was retrieved for is its snippet.
"""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from .structure import ParsedCitation

POLISHED = ("storm_gen_article_polished.md", "storm_gen_article.md")
#: What a paper folder may hold besides a layout's files (never read as the report).
SKIP = re.compile(r"^(\.|__MACOSX$)")
#: deepscholar-base's marker: ``\[[Stephan Zheng' 2021-08-05](http://arxiv.org/abs/…)\]``
#: (escaped brackets optional), and a plain ``[Author' date](url)`` link.
_BASE_MARKER = re.compile(r"\\?\[?\[([^\[\]\n]+?)\]\((https?://[^)\s]+)\)\\?\]?")
_AUTHOR_DATE = re.compile(r"^.+'\s*\d{4}(?:-\d{2}(?:-\d{2})?)?$")
_ABSTRACT_AFTER = re.compile(r"here is the paper(?:'s)? abstract\s*:\s*", re.I)
_ARXIV = re.compile(r"arxiv\.org/(?:abs|pdf|html)/([^\s?#)]+?)(?:\.pdf)?(?:[?#)\s]|$)")

#: The nuggetizer's query of a paper (its ``res.json`` ``query``): the question's text.
QUERY_TEMPLATE = (
    "Write a Related Works section for an academic paper given the paper's abstract. "
    "Here is the paper abstract:\n{abstract}"
)


@dataclass
class PaperOutput:
    """One system's output for one paper, as its layout gives it."""

    folder: str  # the paper folder's name (the release's row id)
    layout: str
    markdown: str
    #: Marker key -> the reference the system's own files give for it.
    references: dict[str, ParsedCitation] = field(default_factory=dict)
    #: The system's own prompt (it holds the paper's abstract), when its files keep it.
    query: str = ""
    arxiv_id: str = ""
    title: str = ""
    abstract: str = ""
    files: list[str] = field(default_factory=list)  # what was read (relative paths)
    #: The question's id as Concord's export wrote it (``query.json``).
    question_id: str = ""


class LayoutProblem(Exception):
    """A paper folder that no layout reads, or a file of it that cannot be read."""


def abstract_of(query: str) -> str:
    """The paper's abstract inside a system's prompt ("… Here is the paper abstract: …")."""
    parts = _ABSTRACT_AFTER.split(query or "", maxsplit=1)
    if len(parts) < 2:
        return ""
    text = parts[1].replace("\\n", "\n").strip().lstrip("{")
    text = re.split(r"\n\s*Question you want to answer", text, maxsplit=1)[0]
    text = text.strip().rstrip(".}").strip()
    return text + "." if text else ""


def words(text: str) -> str:
    """Whitespace-normalised text, for matching an abstract or title across files."""
    return " ".join((text or "").replace("\\n", " ").split()).casefold()


def abstract_key(abstract: str) -> str:
    """What identifies a paper by its abstract: its first 200 characters, normalised
    (the systems wrap it differently: braces, a doubled final period, escaped newlines and
    dollars): letters and digits only."""
    return re.sub(r"[^0-9a-z]+", " ", words(abstract)).strip()[:200]


def arxiv_id_of(url: str) -> str:
    m = _ARXIV.search(url or "")
    return m.group(1) if m else ""


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise LayoutProblem(f"{path.name}: not UTF-8 text") from exc


def _json(path: Path):
    try:
        return json.loads(_read(path))
    except ValueError as exc:
        raise LayoutProblem(f"{path.name}: not JSON ({exc})") from exc


def _csv(path: Path) -> list[dict]:
    csv.field_size_limit(1 << 28)
    return list(csv.DictReader(io.StringIO(_read(path))))


def _str(value) -> str:
    return value.strip() if isinstance(value, str) else ""


# --- The layouts ----------------------------------------------------------------------------


def read_paper_folder(folder: Path) -> PaperOutput:
    """The layout of ``folder`` detected from its files, and its output read."""
    names = {p.name for p in folder.iterdir() if not SKIP.match(p.name)}
    if "output.md" in names:
        return _concord(folder, names)
    if "intro.md" in names and "paper.csv" in names:
        return _paper_table(folder)
    storm = _article_index_dir(folder)
    if storm is not None:
        return _article_index(folder, storm)
    mds = sorted(p for p in folder.iterdir() if p.is_file() and p.suffix.lower() == ".md")
    if len(mds) == 1:
        return _markdown_json(folder, mds[0])
    if not mds:
        jsons = [p for p in folder.glob("*.json") if p.is_file()]
        for path in jsons:
            data = _json(path)
            if isinstance(data, dict) and isinstance(data.get("output"), str):
                return _markdown_json(folder, None, path, data)
        subs = [p for p in folder.iterdir() if p.is_dir() and not SKIP.match(p.name)]
        if len(subs) == 1 and not jsons:  # one run folder inside (as STORM writes)
            inner = read_paper_folder(subs[0])
            inner.folder = folder.name
            inner.files = [f"{subs[0].name}/{f}" for f in inner.files]
            return inner
    found = ", ".join(sorted(names)[:8]) or "nothing"
    raise LayoutProblem(
        "no DeepScholar layout: expected output.md, intro.md + paper.csv, "
        "storm_gen_article_polished.md + url_to_info.json, or one <name>.md (with "
        f"<name>.json); found {found}"
    )


def _concord(folder: Path, names: set[str]) -> PaperOutput:
    """Concord's export: ``output.md``, and (written since issue 25) ``query.json``
    (``{"question_id", "query"}``, and the paper's ``title`` when the question has one) and ``references.json`` (``[{"id", "title", "url",
    "snippets"}]``: what a markdown list cannot carry, the snippets)."""
    out = PaperOutput(folder.name, "concord", _read(folder / "output.md"), files=["output.md"])
    if "query.json" in names:
        meta = _json(folder / "query.json")
        if isinstance(meta, dict):
            out.question_id = _str(meta.get("question_id"))
            out.title = _str(meta.get("title"))
    if "references.json" in names:
        refs = _json(folder / "references.json")
        if not isinstance(refs, list):
            raise LayoutProblem("references.json: expected a list of references")
        for i, ref in enumerate(refs):
            if not isinstance(ref, dict) or not isinstance(ref.get("id"), str):
                raise LayoutProblem(f"references.json[{i}]: expected an object with an id")
            snippets = ref.get("snippets") or []
            if not isinstance(snippets, list) or not all(isinstance(x, str) for x in snippets):
                raise LayoutProblem(f"references.json[{i}].snippets: expected a list of text")
            out.references[ref["id"]] = ParsedCitation(
                key=ref["id"], title=_str(ref.get("title")), url=_str(ref.get("url")),
                snippets=list(snippets),
                metadata=ref["metadata"] if isinstance(ref.get("metadata"), dict) else {},
            )  # fmt: skip
        out.files.append("references.json")
    return out


def _article_index_dir(folder: Path) -> Path | None:
    for where in [folder, *sorted(p for p in folder.iterdir() if p.is_dir())]:
        if (where / "url_to_info.json").is_file() and any((where / n).is_file() for n in POLISHED):
            return where
    return None


def _paper_table(folder: Path) -> PaperOutput:
    """deepscholar-base: the report is ``intro.md``; each marker links a ``paper.csv`` row."""
    text = _read(folder / "intro.md")
    rows = _csv(folder / "paper.csv")
    by_url = {_str(r.get("url")): r for r in rows if _str(r.get("url"))}
    by_id = {_str(r.get("id")): r for r in rows if _str(r.get("id"))}
    out = PaperOutput(folder.name, "paper-table", "", files=["intro.md", "paper.csv"])
    numbers: dict[str, str] = {}

    def marker(m: re.Match) -> str:
        visible, url = m.group(1), m.group(2)
        row = by_url.get(url) or by_id.get(arxiv_id_of(url))
        if row is None and not _AUTHOR_DATE.match(visible.strip()):
            return m.group(0)  # an ordinary link: the markdown reader keeps it
        key = numbers.setdefault(url, str(len(numbers) + 1))
        if key not in out.references:
            row = row or {}
            out.references[key] = ParsedCitation(
                key=key,
                title=_str(row.get("title")),
                url=url,
                snippets=[s for s in [_str(row.get("snippet"))] if s],
                metadata={k: _str(row.get(k)) for k in ("authors", "date") if _str(row.get(k))},
            )
        return f"[{key}]"

    out.markdown = _BASE_MARKER.sub(marker, text)
    if (folder / "result.json").is_file():
        data = _json(folder / "result.json")
        if isinstance(data, dict):
            out.query = _str(data.get("query"))
            out.files.append("result.json")
    return out


def _article_index(folder: Path, where: Path) -> PaperOutput:
    """STORM: ``[n]`` is the URL whose unified index is n in ``url_to_info.json``."""
    name = next(n for n in POLISHED if (where / n).is_file())
    rel = "" if where == folder else f"{where.name}/"
    # STORM writes one paragraph a line.
    text = re.sub(r"(?<=\S)[ \t]*\n(?=[ \t]*[^\s#])", "\n\n", _read(where / name))
    out = PaperOutput(folder.name, "article-index", text,
                      files=[rel + name, rel + "url_to_info.json"])  # fmt: skip
    data = _json(where / "url_to_info.json")
    if not isinstance(data, dict):
        raise LayoutProblem("url_to_info.json: expected an object")
    index = data.get("url_to_unified_index") or {}
    info = data.get("url_to_info") or {}
    for url, n in index.items() if isinstance(index, dict) else ():
        entry = info.get(url) if isinstance(info, dict) else None
        entry = entry if isinstance(entry, dict) else {}
        snippets = [
            s.strip() for s in entry.get("snippets") or [] if isinstance(s, str) and s.strip()
        ]
        out.references[str(n)] = ParsedCitation(
            key=str(n), title=_str(entry.get("title")), url=_str(entry.get("url")) or url,
            snippets=snippets or [d for d in [_str(entry.get("description"))] if d],
        )  # fmt: skip
    out.query = _storm_topic(where)
    return out


def _storm_topic(where: Path) -> str:
    """STORM keeps the topic (the system's prompt) in its LLM call history only."""
    path = where / "llm_call_history.jsonl"
    if not path.is_file():
        return ""
    for line in _read(path).splitlines():
        try:
            call = json.loads(line) if line.strip() else {}
        except ValueError:
            continue
        prompt = call.get("prompt") if isinstance(call, dict) else None
        m = re.search(r"Topic you are discussing about:\s*(.*?)\n\n", prompt or "", re.S)
        if m:
            return m.group(1).strip()
    return ""


_XML_REFERENCES = re.compile(r"^[ \t]*<(/?)references>[ \t]*$", re.M | re.I)
_TITLE_LINE = re.compile(r"\A\s*(?:\*\*)?(related works?)(?:\*\*)?:?[ \t]*\n(?=[ \t]*\n)", re.I)
_BRACKETED_ARXIV = re.compile(r"(?<![\]\w])\[(?:arXiv:)?(\d{4}\.\d{4,5}(?:v\d+)?)\](?!\()")


def _markdown_markers(text: str) -> str:
    """What some systems write that a markdown reader does not know: a ``<references>``
    block (a reference list), and a bare arXiv id in brackets as the citation marker
    (``[2204.06547v2]``), which becomes a link to the paper."""
    text = _XML_REFERENCES.sub(lambda m: "" if m.group(1) else "## References", text)
    # A first line "Related Works" is the section's title, as the other systems mark it
    # (a paragraph of two words would tell the systems apart, seed 003 §4).
    text = _TITLE_LINE.sub(lambda m: f"## {m.group(1)}\n", text, count=1)
    return _BRACKETED_ARXIV.sub(
        lambda m: f"[arXiv:{m.group(1)}](https://arxiv.org/abs/{m.group(1)})", text
    )


_LIST_ENTRY = re.compile(r"^\s*\\?\[(\d+)\\?\]\s*(.*?)\s*$")
_NUMBERED_ENTRY = re.compile(r"^\s*(\d+)[.)]\s+(.*?)\s*$")
_REFERENCES_LINE = re.compile(r"^\s*(?:#{1,6}\s*)?(?:\*\*)?references?(?:\*\*)?:?\s*$", re.I)


def _listed(text: str) -> dict[str, str]:
    """The markdown's own numbered references: ``[n] …`` lines anywhere, and ``n. …`` lines
    after a "References" line (search_ai writes ``1. Title (Oct 2024), url``); a numbered
    list in the body is not a reference list."""
    lines = text.split("\n")
    start = max((i for i, line in enumerate(lines) if _REFERENCES_LINE.match(line)), default=None)
    out = {}
    for i, line in enumerate(lines):
        m = _LIST_ENTRY.match(line) or (
            _NUMBERED_ENTRY.match(line) if start is not None and i > start else None
        )
        if m:
            out.setdefault(m.group(1), m.group(2))
    return out


_URL = re.compile(r"https?://[^\s)\]>]+")


def _markdown_json(
    folder: Path, md: Path | None, path: Path | None = None, data=None
) -> PaperOutput:
    """``<name>.md`` (+ ``<name>.json``): the markdown as written; a numbered reference
    that gives no URL takes its source from the JSON's ``ctxs`` (``[n]`` is ``ctxs[n]``,
    as the release's parsers read it), one that does is matched to its context by URL."""
    if path is None and md is not None:
        twin = md.with_suffix(".json")
        others = [p for p in folder.glob("*.json") if p.is_file()]
        path = twin if twin.is_file() else (others[0] if len(others) == 1 else None)
        data = _json(path) if path else None
    text = _markdown_markers(_read(md) if md is not None else _str(data.get("output")))
    files = [p.name for p in (md, path) if p is not None]
    layout = "markdown+json" if isinstance(data, dict) else "markdown"
    out = PaperOutput(folder.name, layout, text, files=files)
    if not isinstance(data, dict):
        return out
    out.query = _str(data.get("query")) or _str(data.get("raw_query")) or _str(data.get("input"))
    out.arxiv_id = _str(data.get("arxiv_id"))
    out.title = _str(data.get("title"))
    out.abstract = _str(data.get("abstract"))
    ctxs = [c if isinstance(c, dict) else {} for c in data.get("ctxs") or []]
    listed = _listed(text)
    by_url = {_str(c.get("url")): i for i, c in enumerate(ctxs) if _str(c.get("url"))}
    for key, rest in listed.items():
        url_m = _URL.search(rest)
        url = url_m.group().rstrip(".,;") if url_m else ""
        i = by_url.get(url) if url else int(key) if int(key) < len(ctxs) else None
        ctx = ctxs[i] if i is not None else {}
        passage = _str(ctx.get("text")) or _str(ctx.get("abstract"))
        if url:
            title = _str(ctx.get("title")) or _URL.sub("", rest).strip(" .,;-")
        else:
            title = _str(ctx.get("title"))
        out.references[key] = ParsedCitation(
            key=key, title=title, url=url or _str(ctx.get("url")),
            snippets=[passage] if passage else ([rest] if not url and not ctx else []),
            metadata=_ctx_fields(ctx),
        )  # fmt: skip
    # Markers no list names: ctxs[n], as the release's parsers read them.
    for m in _MARKER.finditer(text):
        for key in re.findall(r"\d+", m.group(1)):
            if key in out.references or int(key) >= len(ctxs):
                continue
            ctx = ctxs[int(key)]
            passage = _str(ctx.get("text")) or _str(ctx.get("abstract"))
            out.references[key] = ParsedCitation(
                key=key, title=_str(ctx.get("title")), url=_str(ctx.get("url")),
                snippets=[passage] if passage else [], metadata=_ctx_fields(ctx),
            )  # fmt: skip
    return out


def _ctx_fields(ctx: dict) -> dict:
    """What identifies a retrieved passage's paper besides its title (OpenScholar's peS2o
    corpus id, a Semantic Scholar ``paperId``, the year): kept, never turned into a URL."""
    keys = ("id", "paperId", "source", "year", "date")
    return {k: str(ctx[k]) for k in keys if ctx.get(k) not in (None, "")}


_MARKER = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\](?!\()")
