"""One format for every report: what blinding requires (seed 003 §4, issue 12).

Experts must not be able to tell systems apart by their formatting: "we convert all reports
presented to annotators in the same format in order to minimize potential stylistic bias
towards any particular agent's report" (Hwang et al. 2026, §4). Every report importer and
the API's report write path pass a parsed report through :func:`normalise_report`, which

* removes system-identifying markup: ``<Model name=… version=…>`` tags (sqa, qwen), the
  "TLDR;" label and "(N sources)" count of ScholarQA section summaries, the notices some
  vendors close every report with saying AI wrote it (``AI_NOTICES``: Doubao's, Mita's),
  and the boilerplate one system writes in many of its reports (STORM's "Here is a
  potential lead section…", OpenScholar's ``[abstract]`` tag, Mita's memo header: declared
  once in :data:`annotation.boilerplate.BOILERPLATE`, phrases and labels only, never a
  sentence that carries content or a citation); a section it leaves with no paragraph
  goes at import (the first keeps a title with words: the report's title);
* gives every citation one marker style, ``[n]``, numbered by first appearance in the
  report, whatever the system wrote (``[1]``, ``[^1]``, ``¹``, ``(Author et al., 2022)``,
  ``(Title)``, ``(chen2023x pages 1-2)``, ``[[1]](url)``,
  ``[corpusId | Author | year | Citations: N]``); a parenthesised author-year marker that
  cites no listed source becomes a citation, as the Markdown importers already do, whose
  source is titled with the marker's words ("Ouyang et al., 2022": :func:`marker_title`);
* leaves what is not a citation as written: nothing is found inside math or code (code
  spans, fenced code blocks), an exponent is not a footnote (``(∇L(θₜ))²``, ``∂θ_i)²]``,
  ``pass^1 to pass^8``: ``NUMBERED``), and a parenthesised phrase ending in a year is a
  citation only if it names authors (not ``BLIP (Bootstrapping Language-Image
  Pre-training, 2022)``; "introduced by" stays in ``(introduced by Vaswani et al., 2017)``),
  and one name and a year only where a citation stands, not right after a name it
  attributes (``**CLIP (OpenAI, 2021)**``: :func:`_author_year_start`);
* keeps a marker the importer anchored to a key no listed source has (ScholarQA's ``[3]``
  in a report that lists no source 3) as a plain ``[n]``, linked to nothing: it is
  numbered after every listed source (in order of first appearance), so it never points at
  a source the system did not cite and re-normalising never renumbers it; the original
  records which marker became which number (``unlisted_markers``);
* removes bidi and zero-width control characters (text, titles, snippets), which can
  reorder or hide what an expert reads;
* closes up the space a removed citation marker leaves before punctuation ("in 2017 , has"
  -> "in 2017, has") and removes the empty brackets one leaves (``(e.g., [1] ())``;
  :func:`close_up`), outside math and code;
* shows titles without BibTeX's braces (``{GPT-4} Technical Report``:
  :func:`annotation.links.unbraced_title`).

Normalising a normalised report changes nothing (every released report: a test holds the
ones that once changed).

Section titles are read by the importers (a bold line standing alone is a heading, its
title plain words: :mod:`annotation.importers.markdown`), not here: which lines are headings
is a reading of the markdown, and a re-normalisation keeps every stored paragraph.

The words of the report are kept: a report that discusses "Anthropic's Claude 3" keeps
saying so (that is content, not the report's author). The text as imported is kept in
:func:`original_of` form for researchers (``Report.original``).

Pure: plain data in, plain data out; no database.
"""

from __future__ import annotations

import re

from annotation.boilerplate import strip_boilerplate, strip_boilerplate_title
from annotation.importers.markdown import LINK as MARKDOWN_LINK
from annotation.importers.markdown import LINK_URL, MATH, attributes_a_name
from annotation.importers.markdown import ONE_AUTHOR_YEAR as _ONE_AUTHOR_YEAR
from annotation.importers.structure import (
    ParsedCitation,
    ParsedParagraph,
    ParsedReport,
    ParsedSection,
)
from annotation.links import LISTED_AS, clean_url, shown_snippet, shown_text, shown_title

#: Bidi embeddings, overrides, isolates and marks; zero-width spaces, joiners, word joiner,
#: BOM, Mongolian vowel separator.
CONTROL_CHARS = re.compile(
    "[\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]"
)

MODEL_TAG = re.compile(r"[ \t]*<\s*/?\s*Model\b[^>]*>", re.I)
TLDR_LABEL = re.compile(r"^\s*TLDR\s*[;:]\s*", re.I)
SOURCES_COUNT = re.compile(r"[ \t]*\(\d+ sources?\)[ \t]*(?=\n|$)", re.I)
#: Notices a vendor puts in every report saying it was written by AI: shown as written
#: they tell annotators which system wrote a report. One pattern per notice, each with
#: where it was seen; every one holds "AI" (the cheap test before the pattern is tried).
AI_NOTICES = (
    # Doubao, ResearcherBench user_data/Doubao.json: every report's closing blockquote,
    # "> （注：文档部分内容可能由 AI 生成）"
    r"（注：文档部分内容可能由\s*AI\s*生成）",
    # Mita, ResearcherBench user_data/Mita.json: every report, before its references,
    # "\[AI生成\]" (markdown-escaped brackets)
    r"\\?\[AI生成\\?\]",
)
AI_NOTICE = re.compile("|".join(AI_NOTICES))
#: What is left of a paragraph that held only a notice: blockquote markers and spaces.
_NOTICE_LEFTOVER = re.compile(r"[\s>]*")
#: ScholarQA's corpus-id marker: ``[247722574 | Carmesin | 2022 | Citations: 1]``.
PIPE_MARKER = re.compile(
    r"\[\s*\d+[^\[\]|]*\|\s*((?:\[[^\]|]*\]\([^)|]*\)|[^\[\]|])*?)\s*\|"
    r"\s*([^\[\]|]*?)\s*\|\s*Citations:[^\[\]]*\]"
)
#: Placeholder and decoration some systems put in citation titles.
TITLE_UNKNOWN = re.compile(r"^\s*Title unknown for\s*", re.I)
TITLE_SUFFIX = re.compile(r"\s+[–—-]\s+Abstract\s*$")
#: FutureHouse-style paper keys: ``(chen2023aifairnessin pages 11-12)``.
PAPER_KEY = re.compile(
    r"\b[^\W\d_][\w()\-]*?(?:\d{4}|unknownyear)[\w()\-]*\s+pages\s+\d+(?:\s*-\s*\d+)?",
    re.I,
)
#: Page ranges a FutureHouse marker carries after its key: ``[3] pages 4-5``.
#: Every range goes at once: ``(yu2023x pages 1-2, pages 2-3, pages 4-6)`` (FutureHouse's
#: falcon) lost one a normalisation, so normalising the result again changed it.
PAGES_AFTER = re.compile(r"^(?:(?:\s*,?\s+pages\s+\d+(?:\s*-\s*\d+)?)+|\(#[\w\-]*\))")
_SUP = "⁰¹²³⁴⁵⁶⁷⁸⁹"
#: Numbered markers in footnote or superscript style: ``[^3]``, ``^3^``, ``word^3^``,
#: ``word^3.``, ``practice⁵.``, ``quoted"¹``, ``(Li et al., 2019)¹``, ``(2024)³``.
#: Not ``O(n^2)``, ``10¹⁹``, ``cm²`` (a short word, a digit or a variable before it; a
#: letter or digit after it); not ``∂θ_i)²]`` (after a closing parenthesis, a number
#: followed by a closing bracket or an operator is the exponent of a formula), nor
#: ``O(*n*^2)`` (a caret after emphasis: an italic variable's exponent); not ``pass^1 to
#: pass^8,``: a caret number glued to a word is a marker only where a footnote stands,
#: closing a sentence, a clause in brackets or a line (before ``. ! ? ; : )``, a line
#: break, the two spaces ScholarQA's release put for one, or the end); an exponent, or
#: the pass^k notation, runs on into its sentence (before a word or a comma). Superscript
#: digits glued to a word stay markers wherever they stand: ScholarQA-CS2's claude
#: reports put them mid-sentence ("continuously¹, and"), and no released report writes
#: an exponent so after a word of four letters.
#: Code and math are skipped (:func:`_mark_unlisted`). A marker's digits are in the group
#: whose name starts with "n", superscript digits in the one whose name starts with "s"
#: (:func:`_numbered_key`).
_CLAUSE_END = r"(?=[.!?;:)]|[ \t]*(?:\n|$)|  )"
NUMBERED = re.compile(
    rf"\[\^(?P<na>\d+)\]"
    rf"|(?<=\s)\^(?P<nb>\d+)\^"
    rf"|(?<=[^\W\d_]{{4}})(?:\^(?P<nc>\d+)\^(?![\w(])|\^(?P<nd>\d+){_CLAUSE_END}|(?P<sd>[{_SUP}]+)(?![\w(]))"
    rf"|(?<=[.,;:\"'”’])(?:\^(?P<ne>\d+)\^?|(?P<se>[{_SUP}]+))(?![\w(])"
    rf"|(?<=\))(?:\^(?P<nf>\d+)\^?|(?P<sf>[{_SUP}]+))(?![\w(\])}}+*/=^_|])"
    rf"|(?<=\*)(?P<sg>[{_SUP}]+)(?![\w(])"
)
_NAME = r"[^\W\d_][\w'’.\-]*(?:\s+(?:[^\W\d_][\w'’.\-]*|&|and)){0,4}?"
_ONE = rf"{_NAME}(?:\s*,\s*(?:&\s*|and\s+)?{_NAME})*(?:\s+\*?et\s+al\.?\*?)?,\s*\d{{4}}[a-z]?"
#: A parenthesised author-year citation: ``(Smith et al., 2020; Doe & Roe, 2019)``.
AUTHOR_YEAR = re.compile(rf"\(\s*{_ONE}(?:\s*;\s*{_ONE})*\s*\)")
#: A title ending in a parenthesised author-year (or venue-year) group.
AUTHOR_YEAR_END = re.compile(r"\s*\(([^()]*?,\s*\d{4}[a-z]?)\)\s*$")
#: What may be one author-year item of a parenthesised group, e.g. in
#: ``([1]; Bird et al., 2020)``: a candidate, a citation as :func:`_author_year_start` says.
AUTHOR_YEAR_ITEM = re.compile(rf"(?:(?<=\()|(?<=;)|(?<=; )|(?<=,)|(?<=, ))\s*{_ONE}(?=\s*[;)])")
#: "et al." closing an item's names: ``Gu et al.``, ``Liu *et al.*``, ``Wang et al._1``
#: (ScholarQA-CS2 qwen's keys number an author's papers of one year).
_ET_AL = re.compile(r"\s+[*_]{0,2}et\s+al\b\.?[*_]{0,2}(?:_\d+)?$")
#: Between the authors of a list: ``Doan, Halevy, & Ives``, ``Doe and Roe``.
_AUTHOR_SEPARATOR = re.compile(r"\s*,\s*(?:&\s*|and\s+)?|\s+(?:&|and)\s+")
#: Lower-case words a surname may open with (``von Oswald``, ``van der Maaten``).
_PARTICLE = r"(?:van|von|de|der|den|del|della|di|da|du|dos|das|le|la|ten|ter|bin|ibn|al|el)"
_PARTICLES = frozenset(_PARTICLE[3:-1].split("|"))
#: Prose opening an item: lower-case words, a surname's particles aside ("introduced by",
#: "e.g. by"; not "von" in "von Oswald").
_PROSE_BEFORE_NAMES = re.compile(rf"\s*(?:(?!{_PARTICLE}\s)[a-z]\S*\s+)+")
#: An acronym (two capitals or more) closing the text before a group: ``**RETRO** (``,
#: ``DeiT (``: an expansion may follow.
_ACRONYM_BEFORE = re.compile(r"(?<![\w-])([A-Z][\w-]*[A-Z][\w-]*)[*_]*\s*\(\s*$")


def _author_year_start(item: str, before: str, after: str = "") -> int:
    """Where the author-year citation in ``item`` (an ``AUTHOR_YEAR_ITEM`` match: words, a
    comma, a year) starts, ``before`` and ``after`` the text around it; -1 when it is none.

    The rule: the words before the year name authors, as a reference list writes them:
    one name followed by "et al." (``Rego et al., 2022``, ``Liu *et al.*, 2025``), names
    joined by commas, "and" or "&" (``Doan, Halevy, & Ives, 2012``), or one name alone
    (``Li, 2020``, ``American Bar Association, 2024``). One name alone is a citation
    where a citation stands, closing a clause (``… selection (Gutenko, 2020).``) or in a
    group separated by ";", not right after a name it attributes
    (:func:`~annotation.importers.markdown.attributes_a_name`): ``**CLIP (OpenAI, 2021)**``, ``the **KILT benchmark** (Facebook AI,
    2021)``, ``*RLHF Handbook* (Nathan Lambert, 2023)`` say who made what the name names
    (~20 in OpenAI's ResearcherBench reports, whose words became a ``[n]`` citing a source
    the system never listed). A name
    opens with a capital letter or a surname's particle (``von Oswald``) and has at most
    four words. Lower-case words before the names are prose and stay words of the text:
    ``(introduced by Vaswani et al., 2017)`` cites Vaswani et al. after "introduced by"
    (the citation starts there); with no name after them (``(a procedural multi-agent
    world, 2021)``) there is no citation. A name alone of two words or more right after
    an acronym beginning with its letter is that acronym's expansion, not a citation:
    ``BLIP (Bootstrapping Language-Image Pre-training, 2022)``, ``RETRO
    (Retrieval-Enhanced Transformer, 2022)``, ``DeiT (Data-Efficient Image Transformer,
    2021)``.

    Why: made a citation, such a phrase's words were replaced by a bare ``[n]`` (Claude's
    and OpenAI's ResearcherBench reports); left as they are, they are words the
    annotator reads. An expansion is recognised by the acronym it expands, not by its
    length or capitals, which organisations' names share (``Facebook AI, 2021``)."""
    start = 0
    names = item.rpartition(",")[0]
    if names[:1].isspace() or names[:1].islower():
        prose = _PROSE_BEFORE_NAMES.match(names)
        start = prose.end() if prose else 0
        names = names[start:]
    names = names.strip()
    et_al = _ET_AL.search(names)
    authors = [names[: et_al.start()]] if et_al else _AUTHOR_SEPARATOR.split(names)
    for author in authors:
        words = author.split()
        if not 1 <= len(words) <= 4:
            return -1
        if not (words[0][:1].isupper() or (words[0] in _PARTICLES and len(words) > 1)):
            return -1
    if et_al or len(authors) > 1:
        return start
    grouped = before.rstrip().endswith(";") or after.lstrip().startswith(";")
    if not grouped and not start and attributes_a_name(names, before.rstrip().removesuffix("(")):
        return -1  # "**CLIP (OpenAI, 2021)**": who made what the name names, and when
    if len(authors[0].split()) < 2:
        return start
    acronym = _ACRONYM_BEFORE.search(before[-60:]) if not start else None
    return -1 if acronym and acronym.group(1)[0] == names[0] else start


#: What may stand between two markers of one group: "[1], [2]", "(A, 2020; B, 2021)".
_BETWEEN = re.compile(r"\s*(?:[,;]|and)?\s*")


def clean_text(text: str) -> str:
    """Bidi and zero-width control characters removed (question, rubric, report text).
    None of them is ASCII, and ``isascii`` is a flag CPython keeps: no scan of most text."""
    return text if not text or text.isascii() else CONTROL_CHARS.sub("", text)


def strip_system_markup(text: str) -> str:
    """Model tags, ScholarQA's "TLDR;" label and "(N sources)" count, and vendors' AI
    notices (``AI_NOTICES``; a text left with only the blockquote markers around one is
    left empty) removed."""
    if "<" in text:  # a model tag's first character (one scan in C, no regex)
        text = MODEL_TAG.sub("", text)
    if "AI" in text and AI_NOTICE.search(text):
        text = AI_NOTICE.sub("", text)
        if _NOTICE_LEFTOVER.fullmatch(text):
            text = ""
    if TLDR_LABEL.match(text):
        text = SOURCES_COUNT.sub("", TLDR_LABEL.sub("", text, count=1), count=1)
    return text


def _pipe_fields(title: str) -> tuple[str, str] | None:
    """(author, year) of a title that is a whole corpus-id marker (``PIPE_MARKER``), the
    author's links as their words; else None.

    A marker with no bracket inside is read by splitting it at its first three "|" (what
    the pattern does: no field before the fourth may hold one), 7 times faster than the
    pattern (a title per citation, issue 29); any other by the pattern."""
    if title[:1] == "[" and title[-1:] == "]" and title.count("[") == title.count("]") == 1:
        parts = title[1:-1].split("|", 3)
        if (
            len(parts) == 4
            and parts[0].lstrip()[:1].isdecimal()  # \s*\d+ (\d: the decimal digits)
            and parts[3].lstrip().startswith("Citations:")
        ):
            return parts[1].strip(), parts[2].strip()
        return None
    m = PIPE_MARKER.fullmatch(title)
    if m is None:
        return None
    author = m.group(1)
    if "](" in author:  # a link's words (MARKDOWN_LINK needs its "](")
        author = MARKDOWN_LINK.sub(lambda link: link.group("words"), author)
    return author, m.group(2)


def neutral_title(title: str) -> str:
    """A citation "title" in a system's own style, as plain words: the corpus-id marker
    becomes "Author et al., 2022"; "Title unknown for (A, 2018)" becomes "A, 2018"; a
    trailing "(Author, 2013)" or "– Abstract" loses its brackets / goes."""
    # each pattern tried only when the character it needs is there (issue 29: a title per
    # citation, ten per report)
    title = title.strip()
    if title[:1] in ("T", "t"):  # the placeholder's first letter (re.I folds no other to it)
        title = TITLE_UNKNOWN.sub("", title)
    if "Abstract" in title:
        title = TITLE_SUFFIX.sub("", title)
    if "|" in title:
        fields = _pipe_fields(title)
        if fields is not None:
            return f"{fields[0]}, {fields[1]}".strip(", ")
    if title[:1] == "(" and AUTHOR_YEAR.fullmatch(title):
        return title[1:-1].strip()
    if title.rstrip()[-1:] == ")":
        # the group opens at the last "(" (none inside it, only spaces after its ")"):
        # matched there, not searched for from every position; the same group, and the
        # same text before it once its spaces are stripped
        opening = title.rfind("(")
        m = AUTHOR_YEAR_END.match(title, opening) if opening != -1 else None
        if m:
            return f"{title[: m.start()].rstrip()} — {m.group(1).strip()}"
    return title


_LINK = re.compile(r"\[(\[?(?:\\.|[^\[\]\\\n]|\[[^\[\]\n]*\])*)\]\((?:https?://[^\n]*)\)")
#: Link words that are a marker, not prose: ``[1]``, ``[^1]``, ``(1)``, ``1``.
_NUMBER_WORDS = re.compile(r"[\[(]?\^?\d+[\])]?")


def _link_words(text: str, start: int, end: int) -> str:
    """The words a marker ``text[start:end]`` that is a whole Markdown link ``[words](url)``
    leaves in running text (joined to the text before it), else "": one in parentheses,
    ``([Title](url))``, is a citation whose words are its source's title (kept there), and
    a number's words are the marker itself."""
    link = _LINK.fullmatch(text, start, end)
    if not link:
        return ""
    words = link.group(1).strip()
    cited = text[:start].rstrip().endswith("(") and text[end:].lstrip().startswith(")")
    if cited or _NUMBER_WORDS.fullmatch(words):
        return ""
    return re.sub(r"\\([\[\]])", r"\1", link.group(1))


_SUP_DIGITS = str.maketrans(_SUP, "0123456789")


def _numbered_key(m: re.Match, citations: dict) -> str:
    """The listed citation a footnote / superscript marker means, else the marker itself."""
    name = m.lastgroup  # the one group an alternative has
    digits = m[name] if name[0] == "n" else str(int(m[name].translate(_SUP_DIGITS)))
    for key in (digits, f"[{digits}]", f"^{digits}", m.group()):
        if key in citations:
            return key
    return m.group()


_YEAR = re.compile(r"\d{4}")  # an author-year marker has a year
_PAGES = re.compile("pages", re.I)  # a paper key has its pages
_SUPERSCRIPT = re.compile(rf"\^|[{_SUP}]")  # a footnote or superscript number
#: What every one of the four markers holds: a "|", a digit or a superscript digit.
_MAY_MARK = re.compile(rf"[|\d{_SUP}]")
_MARK_CHARS = "|0123456789"


def _may_mark(text: str) -> bool:
    """Whether ``text`` holds a character every marker :func:`_mark_unlisted` looks for
    has (``_MAY_MARK``): most text has none. ASCII text by one ``in`` per character, a
    C scan each: ``re`` scans for a character class a character at a time, 25 times
    slower (5 µs for a 600-character paragraph; issue 29)."""
    if text.isascii():
        for c in _MARK_CHARS:  # noqa: SIM110 - a loop, no generator per call
            if c in text:
                return True
        return False
    return _MAY_MARK.search(text) is not None


def _may_have_pages(text: str) -> bool:
    """``_PAGES.search(text)`` (case-insensitive "pages"), by a C scan for ASCII text."""
    return "pages" in text.lower() if text.isascii() else _PAGES.search(text) is not None


def _code_spans(text: str, fenced: bool | None) -> tuple[list[tuple[int, int]], bool | None]:
    """The spans of ``text`` that are code: inline code spans, and fenced code (from a
    fence line to the next, or to the end) when ``fenced`` is not None (True: ``text``
    opens inside a fence); and whether its end is inside a fence (None as given)."""
    spans = [m.span() for m in _CODE_SPAN.finditer(text)] if "`" in text else []
    if fenced is None:
        return spans, None
    start = 0 if fenced else -1
    for m in _FENCE_LINE.finditer(text):
        if start < 0:
            start = m.start()
        else:
            spans.append((start, m.end()))
            start = -1
    if start >= 0:
        spans.append((start, len(text)))
    return spans, start >= 0


def _mark_unlisted(
    tokens: list,
    citations: dict[str, ParsedCitation],
    originals: dict,
    fenced: bool | None = None,
) -> list:
    """Identifying markers that cite no listed source (a parenthesised author-year, a
    corpus-id marker, a paper key with pages, a footnote or superscript number) become
    citations: the listed one they name, else a bare one keyed verbatim. ``tokens``
    alternate text and markers (:func:`_normalised_tokens`), and so does what is returned.

    Nothing is found inside math (``$…$``, ``\\(…\\)``) or code: inline code spans, and
    fenced code blocks when ``fenced`` is not None (the paragraph has a fence line, or
    opens inside a fence: True). Code is what a program or formula says, not a citation
    (``(1-β₂)(∇L(θₜ))²`` in Claude's ResearcherBench report 58)."""
    out = []
    for k, tok in enumerate(tokens):
        if k % 2:
            out.append(tok)
            continue
        if fenced is not None or "`" in tok:
            code, fenced = _code_spans(tok, fenced)
        else:
            code = []
        if not _may_mark(tok):
            out.append(tok)
            continue
        cursor = 0
        math = [m.span() for m in MATH.finditer(tok)] if "$" in tok or "\\" in tok else []
        math += code
        ascii_ = tok.isascii()
        # each scan only where its marker can be: a cheap test first (issue 29: these
        # scans were half the import time); the same markers are found
        found = sorted(
            ([(m.start(), m.end(), m.group()) for m in PIPE_MARKER.finditer(tok)]
             if "|" in tok else [])
            + ([(m.start() + i, m.end(), m.group()[i:].strip())
                for m in AUTHOR_YEAR_ITEM.finditer(tok)
                if (i := _author_year_start(m.group(), tok[: m.start()], tok[m.end() :])) >= 0]
               if _YEAR.search(tok) else [])
            + ([(m.start(), m.end(), m.group()) for m in PAPER_KEY.finditer(tok)]
               if _may_have_pages(tok) else [])
            + ([(m.start(), m.end(), _numbered_key(m, citations)) for m in NUMBERED.finditer(tok)]
               if ("^" in tok if ascii_ else _SUPERSCRIPT.search(tok)) else [])
        )  # fmt: skip
        for start, end, key in found:
            if start < cursor or any(a <= start < b for a, b in math):
                continue
            if key not in citations:
                # a corpus-id marker may name its author as a link: "[id | [Gemini Team](url) …]"
                link = MARKDOWN_LINK.search(key) if "](" in key else None
                url = link.group("url") if link else ""
                citations[key] = ParsedCitation(key=key, url=url)
                originals[key] = ParsedCitation(key=key, url=url)
            out.append(tok[cursor:start])
            out.append(key)
            cursor = end
        out.append(tok[cursor:])
    return out


def _drop_pages(tokens: list) -> list:
    """``[3] pages 4-5`` (FutureHouse): the page range goes with the marker; so does an
    in-page link ``[1](#ref1)`` (Perplexity). ``PAGES_AFTER`` is anchored at the start:
    one match at most, at position 0."""
    for k in range(2, len(tokens), 2):  # the text after each marker
        m = PAGES_AFTER.match(tokens[k])
        if m:
            tokens[k] = tokens[k][m.end() :]
    return tokens


#: What ``_BETWEEN`` (``\s*(?:[,;]|and)?\s*``) leaves once stripped: a text is between two
#: markers of one group when its stripped form is one of these (``str.strip`` and ``\s``
#: are the same Unicode whitespace).
_SEPARATORS = frozenset(("", ",", ";", "and"))


#: The rest of a link whose words are the markers: ``](url)``, or an in-page link,
#: ``](#ref1)`` (Perplexity's ``([Baldi & Sadowski, 2013](#ref1))``, whose ``(#ref1)`` was
#: left after the marker and went only when the result was normalised again).
_LINK_AFTER = re.compile(rf"\s*\]\(\s*<?({LINK_URL}|#[\w\-]*)>?\s*\)")


def _peel(tokens: list, i: int, j: int, citations: dict[str, ParsedCitation]) -> bool:
    """One layer of brackets around the markers ``i``..``j`` removed, if there is one: the
    last character before them (spaces aside) opens, the first after them closes. A
    citation that gets a link's url is replaced by a copy (the parse stays as read)."""
    before = tokens[i - 1]
    opener = before[-1:]
    if opener.isspace():
        before = before.rstrip()
        opener = before[-1:]
    if opener != "(" and opener != "[":
        return False
    after = tokens[j + 1]
    closer = after[:1]
    if closer.isspace():
        closer = after.lstrip()[:1]
    if closer != (")" if opener == "(" else "]"):
        return False  # (a link after "[" opens with "]" too)
    link = _LINK_AFTER.match(after) if opener == "[" else None
    tokens[i - 1] = before[:-1]
    if link:
        tokens[j + 1] = after[link.end() :]
        key = tokens[i]
        cited = citations.get(key)  # None: an unlisted marker
        if i == j and cited is not None and not cited.url and link.group(1)[:1] != "#":
            citations[key] = ParsedCitation(key=cited.key, title=cited.title,
                                            snippets=cited.snippets, url=link.group(1),
                                            metadata=cited.metadata)  # fmt: skip
    else:
        tokens[j + 1] = after.lstrip()[1:]
    for k in range(i + 1, j, 2):
        tokens[k] = ""  # separators inside the brackets
    return True


def _render(
    tokens: list, marks: dict[str, str], names: dict[str, str], listed
) -> tuple[str, list[tuple[int, int, str]]]:
    """Text with ``[n]`` markers (``marks``: key -> ``"[n]"``, ``names``: key -> ``"n"``),
    each run of markers after one space; only the markers of ``listed`` sources are
    anchors (the others stay plain text)."""
    text, anchors = tokens[0], []
    for k in range(1, len(tokens), 2):
        key = tokens[k]
        if k == 1 or tokens[k - 1]:  # not right after another marker
            stripped = text.rstrip(" \t")
            text = stripped + " " if stripped and stripped[-1] not in "\n([" else stripped
        mark = marks[key]
        if key in listed:
            start = len(text)
            anchors.append((start, start + len(mark), names[key]))
        text += mark
        text += tokens[k + 1]
    return close_up(text, anchors) if _may_close_up(text) else (text, anchors)


#: Spaces between a word (or a marker) and the closing punctuation after it: "2017 , has",
#: "attention ." — what a citation marker removed from between them leaves.
_SPACE_BEFORE_PUNCTUATION = re.compile(r"(?<=[^\s(\[,.;:!?])[ \t]+(?=[,.;:!?)](?:\s|$))")
#: A cheap first look (no lookbehind at every position: a third of the time; issue 29).
_MAY_CLOSE_UP = re.compile(r"[ \t][,.;:!?)]")
#: The same without a tab: a pattern that opens with a literal is searched for that
#: character first (6 times faster than one that opens with a character class).
_MAY_CLOSE_UP_SPACE = re.compile(r" [,.;:!?)]")
_CODE_SPAN = re.compile(r"(`+)[^`]+?\1")
#: Empty brackets standing alone, with the spaces before them: ``x ()``, ``(e.g., [1] ())``,
#: ``() ()`` (one pair inside another too); not a call, ``f()``.
_EMPTY_BRACKETS = re.compile(r"(?:[ \t]+|(?<=[\n(\[])|^)\((?:[ \t]*\([ \t]*\))*[ \t]*\)")
#: A code fence's line (``` or ~~~, indented three spaces at most).
_FENCE_LINE = re.compile(r"^ {0,3}(?:```|~~~)[^\n]*", re.M)


def _may_close_up(text: str) -> bool:
    """``_MAY_CLOSE_UP.search(text)``, by the faster pattern when there is no tab, or empty
    brackets (:func:`close_up`)."""
    if "()" in text or "( )" in text:
        return True
    return (_MAY_CLOSE_UP if "\t" in text else _MAY_CLOSE_UP_SPACE).search(text) is not None


def close_up(text: str, anchors=()) -> tuple[str, list[tuple[int, int, str]]]:
    """``text`` without empty brackets standing alone, ``()`` after a space (the spaces go
    with them), and without the spaces before closing punctuation (``, . ; : ! ? )``
    followed by a space or the end); ``anchors`` moved with the text; math and code spans
    as written.

    Why: a citation marker removed from between a word and its punctuation leaves the
    space that preceded it, "in 2017 , has" (Doubao's and Mita's released ResearcherBench
    responses, whose markers their release removed). Left there, such spaces are a
    system's trace that annotators would learn to recognise; no prose needs them
    ("value .5" and "..." are not matched: a digit or a dot follows). So are the empty
    brackets a removed citation leaves: OpenAI's released reports hold 65, ``(e.g., [1]
    [4] ())``, ``in early RL experiments () ().``; none says anything. A call,
    ``facet_wrap()``, ``MATH()``, is not alone (a word before it) and stays."""
    if ("()" in text or "( )" in text) and _EMPTY_BRACKETS.search(text):
        text, anchors = _cut(text, anchors, _EMPTY_BRACKETS)
    if not _may_close_up(text) or not _SPACE_BEFORE_PUNCTUATION.search(text):
        return text, list(anchors)
    return _cut(text, anchors, _SPACE_BEFORE_PUNCTUATION)


def _cut(text: str, anchors, pattern: re.Pattern) -> tuple[str, list[tuple[int, int, str]]]:
    """``text`` without what ``pattern`` matches outside math and code spans, and
    ``anchors`` moved with the text."""
    kept = []
    if "$" in text or "\\" in text:
        kept += [m.span() for m in MATH.finditer(text)]
    if "`" in text:
        kept += [m.span() for m in _CODE_SPAN.finditer(text)]
    gaps = [
        m.span() for m in pattern.finditer(text) if not any(a <= m.start() < b for a, b in kept)
    ]
    if not gaps:
        return text, list(anchors)
    out, cursor = [], 0
    for start, end in gaps:
        out.append(text[cursor:start])
        cursor = end

    def moved(position: int) -> int:
        return position - sum(end - start for start, end in gaps if end <= position)

    out.append(text[cursor:])
    return "".join(out), [(moved(a), moved(b), k) for a, b, k in anchors]


#: What a text that ``TLDR_LABEL`` matches opens with, but for a space ("" included: the
#: regex is asked then). ``re.I`` folds no other character to "T".
_TLDR_FIRST = "Tt"


def _normalised_tokens(
    text: str, anchors, citations: dict, originals: dict, fenced: bool | None = None
) -> list:
    """One paragraph as a list of its text and its citation markers' keys, alternating
    (text at even positions, a marker's key at odd ones: every step relies on it), with system
    markup and control characters removed, unlisted markers made citations, page ranges
    dropped and brackets peeled.

    Each step is skipped when one look at the paragraph says it has nothing to do: a
    model tag needs "<", an AI notice "AI" (and a non-ASCII character), a control
    character a non-ASCII character, an unlisted marker a "|" or a digit
    (:func:`_may_mark`), a page range "pages" or "(#", a bracket to peel a "(" or "["
    before the markers (issue 29). ``fenced``: as :func:`_mark_unlisted`."""
    # a text token is part of the text (a link's words too): no "<" or non-ASCII
    # character in the text, none in a token
    ascii_ = text.isascii()
    # a model tag needs "<", a vendor's AI notice "AI" and a non-ASCII character
    markup = "<" in text or (not ascii_ and "AI" in text)
    tokens, cursor = [], 0
    for start, end, key in sorted(anchors):
        if start < cursor:
            continue
        tok = text[cursor:start]
        if text.find("](", start, end) != -1:  # "](" in the marker, not sliced out
            tok += _link_words(text, start, end)
        if markup or ((tok[:1] in _TLDR_FIRST or tok[:1].isspace()) and TLDR_LABEL.match(tok)):
            tok = strip_system_markup(tok)
        tokens.append(tok if ascii_ else clean_text(tok))
        tokens.append(key)
        cursor = end
    tok = text[cursor:]
    if markup or ((tok[:1] in _TLDR_FIRST or tok[:1].isspace()) and TLDR_LABEL.match(tok)):
        tok = strip_system_markup(tok)
    tokens.append(tok if ascii_ else clean_text(tok))
    words = "".join(tokens[::2]) if len(tokens) > 1 else tokens[0]
    digits = _may_mark(words)
    if digits:
        tokens = _mark_unlisted(tokens, citations, originals, fenced)
    n = len(tokens)
    if n == 1:
        return tokens
    # a page range has a digit, an in-page link a "#" (the words after _mark_unlisted are
    # parts of these)
    if "#" in words or (digits and "pages" in words):
        _drop_pages(tokens)
    # Brackets around a group of markers go: ``(A; B)`` / ``[[1]]`` -> the markers;
    # ``[[1]](url)`` -> the marker (its url kept on the citation when it has none). Layers
    # are peeled one by one: ``([A](url))`` (:func:`_peel`).
    if _peel_groups(tokens, citations):
        # a link peeled off one marker may have made a group of several: ``([A](#ref1);
        # [B](#ref2))`` (Perplexity), whose "( ; )" went only when normalised again
        _peel_groups(tokens, citations)
    return tokens


def _peel_groups(tokens: list, citations: dict) -> bool:
    """The brackets around each group of markers of ``tokens`` peeled (:func:`_peel`), a
    layer at a time; whether a square bracket (a link's ``[…](…)`` among them) was."""
    n, i, linked = len(tokens), 1, False
    while i < n:
        j = i  # the group: markers separated by _BETWEEN text
        while j + 2 < n and tokens[j + 1].strip() in _SEPARATORS:
            j += 2
        while True:  # a layer at a time, while an opening bracket stands before
            opener = tokens[i - 1][-1:]  # what _peel looks at first, without a call
            if opener.isspace():
                opener = tokens[i - 1].rstrip()[-1:]
            if (opener != "(" and opener != "[") or not _peel(tokens, i, j, citations):
                break
            linked = linked or opener == "["
        i = j + 2
    return linked


def _section_tokens(paragraphs, citations: dict, originals: dict) -> list[list]:
    """:func:`_normalised_tokens` of each of a section's paragraphs. A fenced code block
    may hold blank lines, so a paragraph may open inside one: whether it does is carried
    through the section's paragraphs (a fence line is looked for only in a paragraph with
    three backticks or tildes, a C scan)."""
    out, fenced = [], False
    for p in paragraphs:
        text = p.text
        fences = fenced or "```" in text or "~~~" in text
        out.append(_normalised_tokens(text, p.anchors, citations, originals,
                                      fenced if fences else None))  # fmt: skip
        if fences:
            fenced = fenced != (len(_FENCE_LINE.findall(text)) % 2 == 1)
    return out


#: A source keyed by an author-year marker (the Markdown reader's, in its brackets, or one
#: :func:`_mark_unlisted` found): ``(Ouyang et al., 2022)``, ``Gu et al., 2023``.
_AUTHOR_YEAR_KEY = re.compile(rf"\(?({_ONE_AUTHOR_YEAR}(?:; {_ONE_AUTHOR_YEAR})*|{_ONE})\)?")


#: What :func:`marker_title` removes: emphasis, a key's number after "et al." and the
#: spaces doubled (``Liu *et al.*``, ``Wang et al._1,  2024``).
_KEY_DECORATION = re.compile(r"[*_]+(?!\d)|(?<=al\.)_\d+|(?<= ) +")


def marker_title(key: str) -> str:
    """The words of the author-year or corpus-id marker ``key``, as the title of a source
    that has none (no title, url or snippet: the marker cites no listed source):
    "(Ouyang et al., 2022)" -> "Ouyang et al., 2022",
    "[1 | Menon et al. | 2022 | Citations: 3]" -> "Menon et al., 2022"; else "".

    Why: the marker's ``[n]`` replaces its words in the text; a source with no title
    left the annotator a citation with nothing to say what it cites (Claude's
    ResearcherBench report 13). A numbered marker has no words to keep, a paper key
    (``chen2023x pages 1-2``) is a system's own notation."""
    if "|" in key:
        fields = _pipe_fields(key)
        return f"{fields[0]}, {fields[1]}".strip(", ") if fields else ""
    if not _YEAR.search(key):
        return ""
    m = _AUTHOR_YEAR_KEY.fullmatch(key)
    if m is None or (key[:1] == "(") != (key[-1:] == ")"):
        return ""
    words = m.group(1).strip()
    # a system's decoration goes: "Liu *et al.*", qwen's "Wang et al._1,  2024"
    return (
        _KEY_DECORATION.sub("", words) if ("*" in words or "_" in words or "  " in words) else words
    )


def normalise_report(
    parsed: ParsedReport, *, keep_empty: bool = False
) -> tuple[ParsedReport, dict]:
    """The report in the one format annotators read, and its original (see module doc).

    A paragraph left empty (it held only a model tag, or boilerplate) is dropped, and so
    is a section left with no paragraph or table (the first section only when its title
    went too: it is the report's title), unless ``keep_empty`` (re-normalising stored
    reports keeps every paragraph and section row)."""
    # the listed sources, and those normalisation finds (the importer's parse stays as
    # read: a source is replaced, never changed: :func:`_peel`)
    citations = dict(parsed.citations)
    originals = dict(parsed.citations)

    sections = []
    for i, s in enumerate(parsed.sections):
        paragraphs = _section_tokens(
            _without_boilerplate(s.paragraphs, head=i == 0), citations, originals
        )
        table = None
        if isinstance(s.table, dict) and isinstance(s.table.get("text"), str):
            # A ScholarQA table: Markdown text citing sources in the report's style.
            from annotation.importers.structure import find_anchors

            keys = sorted(citations, key=len, reverse=True)
            table = _normalised_tokens(
                s.table["text"], find_anchors(s.table["text"], keys), citations, originals
            )
        sections.append((s, paragraphs, table))
    number: dict[str, int] = {}
    unlisted: list[str] = []
    for _, paragraphs, table in sections:
        for tokens in [*paragraphs, table] if table is not None else paragraphs:
            for k in range(1, len(tokens), 2):
                key = tokens[k]
                if key in number:
                    continue
                if key in citations:
                    number[key] = len(number) + 1
                elif key not in unlisted:
                    unlisted.append(key)
    for key in citations:  # listed but never cited: numbered after the cited ones
        number.setdefault(key, len(number) + 1)
    for key in unlisted:  # citing no listed source: after every listed one (module doc)
        number[key] = len(number) + 1
    names = {key: str(n) for key, n in number.items()}
    marks = {key: f"[{name}]" for key, name in names.items()}
    out_sections = []
    for i, (s, paragraphs, table_tokens) in enumerate(sections):
        paras = _rendered(paragraphs, marks, names, citations, keep_empty)
        # a section's title is read as a paragraph is: its addresses cleaned, a system's
        # boilerplate removed (blinding)
        title = shown_text(clean_text(strip_system_markup(s.title or ""))).strip()
        if title:
            title = strip_boilerplate_title(title, first=i == 0)
        table = s.table
        if table_tokens is not None:
            # the table's own citation list goes (its sources are the report's, numbered)
            table = {
                "title": clean_text(str(s.table.get("title") or "")),
                "text": shown_text(_render(table_tokens, marks, names, citations)[0]).strip(),
            }
        if (
            not keep_empty and s.paragraphs and not paras and table is None
            and (not title or i > 0)
        ):  # fmt: skip
            # every paragraph was a system's boilerplate (STORM's lead section titled
            # "summary", its sign-off under "References"): the section goes with them, as
            # an empty paragraph does; the first section's title stays when it has words
            # (the report's title: Mita's "Research Report: <its subject>")
            continue
        out_sections.append(ParsedSection(title, paras, table))
    out_citations = {}
    for key, c in citations.items():
        n = names[key]
        if c.title:
            title = shown_title(neutral_title(c.title))
        else:  # a marker citing no listed source: its words (:func:`marker_title`)
            title = "" if c.url or c.snippets else marker_title(key)
        url = clean_url(c.url)
        snippets = c.snippets
        try:  # ASCII snippets (most) have nothing to clean: copied as they are
            plain = "".join(snippets).isascii()
        except TypeError:  # not all text: each as clean_text treats it
            plain = False
        out_citations[n] = ParsedCitation(
            n,
            title if title.isascii() else clean_text(title).strip(),
            [shown_snippet(x) for x in snippets]
            if plain
            else [
                shown_snippet(clean_text(x)) if isinstance(x, str) else clean_text(x)
                for x in snippets
            ],  # fmt: skip
            url or "",
            _shown_metadata(c.metadata),
        )
    normalised = ParsedReport(out_sections, out_citations)
    return normalised, _original(parsed, originals, names)


def _shown_metadata(metadata: dict) -> dict:
    """A source's metadata, the words of its reference entry (``LISTED_AS``, which the
    report's references show) read as its title is: control characters removed, addresses
    cleaned (blinding)."""
    out = dict(metadata)
    entry = out.get(LISTED_AS)
    if isinstance(entry, str):
        out[LISTED_AS] = shown_title(clean_text(entry).strip())
    return out


def _rendered(paragraphs, marks, names, citations, keep_empty: bool) -> list[ParsedParagraph]:
    """A section's paragraphs (their tokens) as text with ``[n]`` markers, addresses
    cleaned, stripped; an empty one dropped unless ``keep_empty``."""
    paras = []
    for tokens in paragraphs:
        text, anchors = _render(tokens, marks, names, citations)
        if "=" in text:  # an address in the text: cleaned as a citation's (blinding)
            text, anchors = shown_text(text, anchors)
        stripped = text.lstrip()
        lead = len(text) - len(stripped)
        text = stripped.rstrip()
        if not text and not keep_empty:
            continue
        if lead:
            anchors = [(a - lead, b - lead, k) for a, b, k in anchors]
        paras.append(ParsedParagraph(text, anchors))
    return paras


def _without_boilerplate(paragraphs, *, head: bool) -> list[ParsedParagraph]:
    """``paragraphs`` without a system's boilerplate (:mod:`annotation.boilerplate`;
    ``head``: the report's first section); a paragraph without any is the one given."""
    out = []
    for p in paragraphs:
        text, anchors = strip_boilerplate(p.text, p.anchors, head=head)
        out.append(p if text == p.text else ParsedParagraph(text, anchors))
    return out


def normalise_reports(reports: list[ParsedReport]) -> list[tuple[ParsedReport, dict]]:
    """:func:`normalise_report` of each report, in order: an import's one call (a
    benchmark times it as one step, not 120,000 steps; issue 29)."""
    return [normalise_report(parsed) for parsed in reports]


#: What normalisation writes of ``Report.original`` (:func:`original_of`); its other keys
#: are the importer's (the records kept as released, a repeated question's set-aside
#: report), which a re-normalisation keeps.
ORIGINAL_KEYS = ("sections", "citations", "unlisted_markers")


def original_of(parsed: ParsedReport, originals: dict, number: dict[str, int]) -> dict:
    """The report as the system wrote it, for researchers: sections, paragraphs, citation
    keys and titles, and which ``[n]`` each original key became (``unlisted_markers``: the
    same for markers citing no listed source)."""
    return _original(parsed, originals, {key: str(n) for key, n in number.items()})


def _original(parsed: ParsedReport, originals: dict, names: dict[str, str]) -> dict:
    """:func:`original_of`, the numbers given as text (``names``: key -> ``"n"``)."""
    sections = []
    for s in parsed.sections:
        section = {"title": s.title, "paragraphs": [p.text for p in s.paragraphs]}
        if s.table is not None:
            section["table"] = s.table
        sections.append(section)
    out = {
        "sections": sections,
        "citations": [
            {"key": c.key, "title": c.title, "url": c.url, "normalised_key": names[key]}
            for key, c in originals.items()
        ],
    }
    if len(names) > len(originals):  # some key is no listed (or found) source's
        out["unlisted_markers"] = [
            {"marker": key, "normalised_key": name}
            for key, name in names.items()
            if key not in originals
        ]
    return out
