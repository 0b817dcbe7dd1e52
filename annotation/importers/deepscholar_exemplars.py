"""DeepScholar-Bench's human exemplars as released: LaTeX related-work sections with their
``\\cite`` keys resolved (issue 25). Kind ``deepscholar``, format ``exemplar-latex``.

FILE is the release's ``dataset/`` (or ``test_dataset/``) folder, or a ``.zip`` of it:

* the sections: ``related_works_combined.csv`` (else ``papers_with_related_works.csv`` or
  ``paper_content.csv``), one row a paper: ``arxiv_id``, ``abstract``, the LaTeX in
  ``clean_latex_related_works`` (else ``related_works_section`` / ``raw_latex_related_works``);
* the references: ``recovered_citations.csv`` (else ``citations.csv``), one row a cited
  work: ``parent_paper_arxiv_id``, ``citation_shorthand`` (the ``\\cite`` key),
  ``cited_paper_title``, ``cited_paper_arxiv_link`` / ``bib_paper_url`` /
  ``search_res_url`` / ``bib_paper_doi``.

FILE may also be the sections CSV alone with ``--citations`` naming the references CSV.
Example rows::

    arxiv_id,title,abstract,clean_latex_related_works
    2506.02838v1,TaxAgent: …,Economic inequality is …,"\\subsection{Traditional Tax Systems} … \\cite{NBERw21340} …"

    parent_paper_arxiv_id,citation_shorthand,cited_paper_title,cited_paper_arxiv_link,bib_paper_url
    2506.02838v1,NBERw21340,Effective Policy for Reducing Inequality? …,,http://www.nber.org/papers/w21340

Each paper's exemplar is stored as text (:mod:`.latex_exemplar`: headings, ``[n]`` markers
numbered by first citation) and its references as the exemplar's references, keyed by
their ``\\cite`` key, in citation order (then the listed ones the text never cites), each
with its title and URL (the arXiv link first). A key the references file lacks stays a
reference with its key only, and the import says how many. A re-import never blanks what
it has no value for: a stored reference the references file lacks (or whose row has no
title / URL) keeps its title and URL, one it neither cites nor lists stays after the others;
a change of a reference experts labelled is refused, and every change is listed
(:func:`.deepscholar_units.sync_units`). The question is the paper:
its arXiv id, created when missing with the nuggetizer's query (``Write a Related Works
section … Here is the paper abstract:\\n…``), as the system folders and the nuggetizer
output name it.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from annotation.links import clean_url, unbraced_title
from annotation.models import Exemplar, ExemplarReference, Question

from .base import ImportReport
from .common import Problems, fail, read_source
from .deepscholar_layouts import QUERY_TEMPLATE
from .deepscholar_units import UnitsInput, sync_units
from .latex_exemplar import latex_to_text
from .registry import Example, Format, Option, register
from .structure import ensure_question_ids

SECTION_FILES = ("related_works_combined.csv", "papers_with_related_works.csv", "paper_content.csv")
CITATION_FILES = ("recovered_citations.csv", "citations.csv")
LATEX_COLUMNS = ("clean_latex_related_works", "related_works_section", "raw_latex_related_works")
URL_COLUMNS = ("cited_paper_arxiv_link", "bib_paper_url", "search_res_url")


def _rows(source, name: str | None = None) -> tuple[str, list[dict]]:
    """(the file's name in problems and warnings, its rows). ``name``: how to call a file
    found in an imported folder (:func:`_in_folder`), not its path on the server."""
    src = read_source(source)
    csv.field_size_limit(1 << 28)
    return name or src.name, list(csv.DictReader(io.StringIO(src.text or "")))


def _in_folder(src, path: Path) -> str:
    """A file of the imported folder named as the user knows it: the folder (or the zip it
    came in) and the file's place in it, ``dataset.zip/related_works_combined.csv``; never
    the temporary folder a zip was unpacked into."""
    return f"{src.name.rstrip('/')}/{path.relative_to(src.directory).as_posix()}"


def _find(folder: Path, names: tuple[str, ...]) -> Path | None:
    for where in [folder, *sorted(p for p in folder.iterdir() if p.is_dir())]:
        for name in names:
            if (where / name).is_file():
                return where / name
    return None


def _reference(row: dict, key: str, position: int) -> dict:
    """The reference of ``key`` from its row of the references file (``{}``: none), and the
    columns its title and URL came from (named when a re-import is refused)."""
    url_column = next((c for c in URL_COLUMNS if (row.get(c) or "").strip()), URL_COLUMNS[0])
    url = (row.get(url_column) or "").strip()
    if not url and (row.get("bib_paper_doi") or "").strip():
        url, url_column = "https://doi.org/" + row["bib_paper_doi"].strip(), "bib_paper_doi"
    if not url.startswith(("http://", "https://")):
        url = ""
    url = clean_url(url)  # stored as shown: no tracking parameter (annotation.links)
    title_column = "cited_paper_title"
    if not (row.get(title_column) or "").strip() and (row.get("original_title") or "").strip():
        title_column = "original_title"
    title = unbraced_title((row.get(title_column) or "").strip())  # "{GPT-4} Technical Report"
    columns = {"key": "citation_shorthand", "position": "citation_shorthand",
               "title": title_column, "url": url_column}  # fmt: skip
    return {"key": key, "position": position, "title": title, "url": url, "columns": columns}


def _tables(source, citations) -> tuple[str, list[dict], str, list[dict]]:
    """(sections' name, their rows, citations' name, their rows) of a dataset folder (its
    files found in it) or of a sections file given with ``citations``."""
    src = read_source(source, allow_directory=True)
    if src.directory is None:
        name, sections = _rows(source)
        if not citations:
            fail(src.name, "give --citations (the release's recovered_citations.csv or "
                 "citations.csv), or import the dataset folder holding both")  # fmt: skip
        return (name, sections, *_rows(citations))
    sections_path = _find(src.directory, SECTION_FILES)
    if sections_path is None:
        fail(src.name, "no " + " / ".join(SECTION_FILES) + " in this folder")
    name, sections = _rows(sections_path, _in_folder(src, sections_path))
    if citations:
        return (name, sections, *_rows(citations))
    cited_path = _find(src.directory, CITATION_FILES)
    if cited_path is None:
        return name, sections, "", []
    return (name, sections, *_rows(cited_path, _in_folder(src, cited_path)))


def load(source, study, rep: ImportReport, *, citations=None, **_) -> None:
    name, sections, cites_name, cites = _tables(source, citations)
    problems = Problems(name)
    if sections and "arxiv_id" not in sections[0]:
        problems.file_level("the sections table needs an arxiv_id column")
    column = next((c for c in LATEX_COLUMNS if sections and c in sections[0]), None)
    if sections and column is None:
        problems.file_level("no LaTeX column: expected one of " + ", ".join(LATEX_COLUMNS))
    if cites and not {"parent_paper_arxiv_id", "citation_shorthand"} <= set(cites[0]):
        problems.add(
            None, None, f"{cites_name}: needs parent_paper_arxiv_id and citation_shorthand"
        )
    problems.raise_if_any()
    by_paper: dict[str, dict[str, tuple[int, dict]]] = {}  # paper -> key -> (line, row)
    for line, row in enumerate(cites, start=2):
        paper, key = row["parent_paper_arxiv_id"].strip(), row["citation_shorthand"].strip()
        if paper and key:
            by_paper.setdefault(paper, {}).setdefault(key, (line, row))
    papers, seen, titles = [], {}, {}
    for n, row in enumerate(sections, start=2):  # CSV line numbers (after the header)
        paper = (row.get("arxiv_id") or "").strip()
        if not paper:
            problems.add(n, "arxiv_id", "missing")
            continue
        if paper in seen:
            problems.add(n, "arxiv_id", f"paper {paper!r} again (first on line {seen[paper]})")
            continue
        seen[paper] = n
        text, keys, unknown = latex_to_text(row.get(column) or "")
        titles[paper] = (row.get("title") or "").strip()
        papers.append((paper, (row.get("abstract") or "").strip(), text, keys, n))
        if unknown:
            rep.warn(name, n, column,
                     f"paper {paper!r}: " + ", ".join("\\" + m for m in unknown)
                     + " defined in the paper's preamble, which the release does not hold: "
                     "kept as written (pages show the name), or, written with an argument, "
                     "read as its argument (a title or header's as a run-in heading; a "
                     "label's not at all)")  # fmt: skip
    problems.raise_if_any()
    rep.records = len(papers)
    existing = set(Question.objects.filter(study=study).values_list("external_id", flat=True))
    # a question is named by its paper's title (Question.label); a stored one is kept when
    # the table gives none, and an existing question's text is never replaced
    wanted = {p: {**({} if p in existing else {"text": QUERY_TEMPLATE.format(abstract=a) if a else p}),
                  **({"title": titles[p]} if titles[p] else {})}
              for p, a, _, _, _ in papers}  # fmt: skip
    wanted = {p: fields for p, fields in wanted.items() if fields}
    ids = ensure_question_ids(study, wanted, rep) if wanted else {}
    ids.update(
        Question.objects.filter(study=study, external_id__in=list(seen)).values_list(
            "external_id", "id"
        )
    )
    questions = Question.objects.in_bulk(list(ids.values()))
    units, unresolved = [], 0
    for paper, _abstract, text, keys, line in papers:
        listed = by_paper.get(paper, {})
        order = keys + [k for k in listed if k not in keys]
        item = UnitsInput(questions[ids[paper]], exemplar=text, file=name, record=line,
                          field=column)  # fmt: skip
        for position, key in enumerate(order):
            if key not in listed:
                unresolved += 1
                item.rows.append(
                    {
                        **_reference({}, key, position),
                        "columns": {"key": column, "position": column},
                    }
                )
                continue
            at, row = listed[key]
            item.rows.append({**_reference(row, key, position), "file": cites_name, "record": at})
        units.append(item)
    # a reference the references file lacks (or gives no title / URL) keeps what is stored
    kept = sync_units(ExemplarReference, units, rep, ("position", "title", "url"),
                      keep_stored=("title", "url"))  # fmt: skip
    if kept:
        rep.warn(cites_name or name, None, "cited_paper_title",
                 f"{kept} stored titles / URLs of references have none in this file (the "
                 "reference has no row, or its row no title / URL; a reference neither "
                 "cited nor listed stays, after the others): kept as stored, not blanked")  # fmt: skip
    for item in units:
        obj, created = Exemplar.objects.get_or_create(
            question=item.question, defaults={"text": item.exemplar}
        )
        if created:
            rep.count("created", "Exemplar")
        elif obj.text != item.exemplar:
            rep.warn(item.file, item.record, item.field,
                     f"question {item.question.external_id!r}: the exemplar's text changed")  # fmt: skip
            obj.text = item.exemplar
            obj.save(update_fields=["text"])
            rep.count("updated", "Exemplar")
        else:
            rep.count("unchanged", "Exemplar")
    if unresolved:
        rep.warn(cites_name or name, None, "citation_shorthand",
                 f"{unresolved} \\cite keys have no row in the references file: kept by key only")  # fmt: skip


register(
    Format(
        "deepscholar",
        "exemplar-latex",
        "the DeepScholar-Bench dataset folder as released (related_works_combined.csv with the "
        "LaTeX related-work sections, recovered_citations.csv / citations.csv resolving their "
        "\\cite keys): exemplars and their references (annotation/importers/deepscholar_exemplars.py)",
        load=load,
        options=(
            Option(
                "citations",
                "DeepScholar: the references CSV (recovered_citations.csv) "
                "when FILE is the sections CSV alone",
                type="file",
            ),
        ),  # fmt: skip
        directory=True,
        shape=(
            "The release's dataset/ folder (or a .zip of it), or related_works_combined.csv "
            "with --citations recovered_citations.csv. Example rows:\n"
            "  related_works_combined.csv  arxiv_id,title,abstract,clean_latex_related_works\n"
            '    2506.02838v1,TaxAgent: ...,Economic inequality ...,"\\subsection{Traditional '
            'Tax Systems} ... \\cite{NBERw21340} ..."\n'
            "  recovered_citations.csv     parent_paper_arxiv_id,citation_shorthand,"
            "cited_paper_title,cited_paper_arxiv_link,bib_paper_url\n"
            "    2506.02838v1,NBERw21340,Effective Policy for Reducing Inequality? ...,,"
            "http://www.nber.org/papers/w21340"
        ),
        label="DeepScholar-Bench exemplars (LaTeX)",
        read_only="each exemplar is stored as the text read from its LaTeX, which is not kept",
        written_as=(("deepscholar", "exemplar-references"),),
        example=Example(
            Path(__file__).resolve().parent / "examples",
            "deepscholar_exemplars",
            needs=(("reports", "deepscholar", {}),),
        ),  # fmt: skip
    )
)
