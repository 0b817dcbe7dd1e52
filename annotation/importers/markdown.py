"""The one markdown report reader: body, inline citation markers and reference list, for
every markdown report format (ResearcherBench, ResearchQA, DeepScholar; issue 25).

Public entry point: :func:`read_markdown` (``structure.parse_markdown`` calls it), text in,
:class:`~annotation.importers.structure.ParsedReport` out; pure, no database.

Reference styles are *families*, not systems, read wherever a report puts them:

* definitions: footnotes ``[^n]: url-or-title`` and link definitions ``[n]: url`` (anywhere);
* a reference list: lines ``[n] Title url``, ``\\[n] Title [url](url)``, ``[n. Title](url)``,
  ``[n\\. Title](url)``, ``- [n] …``, ``n. …`` or ``- [Title](url)`` under a references
  heading (``## References``, ``## 5 References``, ``### Sources``) or a references line
  (``**References**``, ``Sources:``), or a trailing run of ``[n] …`` lines (or of ``n. url``
  lines, each one address only) with no heading.

Headings: an ATX heading (``## Title``) opens a section, and so does a *bold line*: a
paragraph that is one line of bold text only (``**Title**``, ``__Title__``, optionally with a
colon, ``**Title:**`` / ``**Title**:``), standing alone between blank lines (or a heading, or
the text's start or end). Why: several systems (Mita, gpt-4o-search-preview, Doubao) mark
their sections with bold lines where others write ``##``; read as paragraphs they were
numbered paragraphs beside the other systems' headings, a fingerprint. A bold line is a
heading of the level below the current section (one more ``#`` than the last ATX heading,
``#`` before any), so it is a sub-heading of that section: under ``## References`` it keeps
the list's scope (as ``### Papers`` does). Its title is its words (no ``**``, no final colon,
markdown escapes read). A bold line stays a paragraph when it is a sentence (ends in ``.``:
a bolded summary, Claude's), cites (a marker or link inside: a title carries no citation),
holds math or more emphasis (``**RSSI = A - 10n * log10(d)**``), is a references title
(the list's label, below), or sits inside a code fence. A bold line followed by its text on
the next line (``**Strengths:**`` then a list, with no blank line) is a lead-in, not a
heading: it stays in its paragraph. ATX titles are read the same way: ``## **Title**``
is titled "Title" (the asterisks were shown as written).

An inline link whose address names a work the list lists (the same address, or the same
arXiv id or DOI in both) cites that entry, titled by the entry's title (:func:`_join_listed`,
:func:`listed_title`): gpt-4o-search-preview's ``([arxiv.org](…/2501.06521))`` is its list's
``[5] T. Gao et al., "Fine-tuning …," arXiv:2501.06521``. Every entry is a source, cited or
not: the report's references show them all (:func:`annotation.rendering.references_html`).

Only a reference entry leaves the body: a paragraph under a references heading that is not an
entry stays where it is, with its heading (losing body text is the worst misreading), and a
heading such as "Source-Aware Training" is body (the heading must be the word alone).

Inline markers, found in one pass of one compiled alternation: ``[n]``, ``[n, m]``,
``\\[n\\]``, ``^[n]``, ``[^n]``, ``[^n^]``, ``【n】`` / ``【n†source】``, ``[citation:n]``,
``[(n)](url)`` / ``[[n]](url)`` / ``[n](url)`` (the number, its url kept on the source),
``[words](url)`` (a source keyed by its url, the url's ``#:~:text=`` fragment aside (its
words are the source's snippet), which may contain spaces, and in a link in parentheses unmatched ones, ``#:~:text=on,I) If the``;
the words may hold balanced brackets, ``[[2403.11144] Title](url)``)
and ``(Author et al., 2020)`` (one name and a year, ``(OpenAI, 2021)``, not right after a
name: :func:`follows_a_name`). Nothing is matched inside math (``$…$``, ``$$…$$``,
``\\(…\\)``, ``\\[…\\]``) or code (spans, and fenced blocks: :func:`fenced_lines`).

Paragraphs are split at blank lines, except inside a fenced code block: a block is one
paragraph of its own, its lines as written (no heading, reference entry nor marker read
in it), shown as one ``<pre><code>`` by the renderer.
"""

from __future__ import annotations

import html
import re

from annotation.links import LISTED_AS, clean_url

from .structure import ParsedCitation, ParsedParagraph, ParsedReport, ParsedSection

_REF_WORDS = (
    r"(?:(?:key|cited|selected|further)\s+)?"
    r"(?:references?(?:\s+list)?|sources?(?:\s+cited)?|bibliography|works\s+cited|citations?"
    r"|footnotes|参考文献|参考资料|参考来源|引用(?:文献|来源)?|来源)"
    r"(?:\s+(?:and|&)\s+(?:references|sources|notes|further\s+reading|citations))?"
)
_NUMBERING = r"(?:(?:\d+(?:\.\d+)*\.?|[IVXLC]+\.)\s+)?"
#: A heading whose title is a references title and nothing else ("Source-Aware …" is not),
#: emphasis aside (``#### **Works cited**``).
REFERENCES_TITLE = re.compile(
    rf"^\s*(?:\*\*|__|\*|_)?\s*{_NUMBERING}{_REF_WORDS}\s*[:：]?\s*(?:\*\*|__|\*|_)?\s*[:：]?\s*$",
    re.I,
)
#: A line that only says "References": ``**References**``, ``Sources:``, ``__Sources:__``.
_REF_LABEL = REFERENCES_TITLE
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_URL = re.compile(r"https?://[^\s<>\]\[\"']+")
_LINK_TEXT = r"(?:\\.|[^\[\]\\\n]|\[(?:\\.|[^\[\]\\\n])*\])*"
_LINK_URL = r"https?://(?:[^()]|\([^()]*\))*?"  # a line break too: dev/you
LINK_URL = _LINK_URL  # what a link's url may be, for the normaliser's link peeling
#: The url of a link in parentheses, ``([words](url))``, whose ``#:~:text=`` fragment is
#: quoted page text holding an unmatched parenthesis (OpenAI: ``#:~:text=training on,I) If
#: the))``, ``…fine,tuning (SFT)).``): it runs to the first ``))``, closing the link and the
#: parenthesis around it (a third closes a parenthesis around both: ``(for instance …
#: ([site](url#:~:text=a,b)))``), on one line, with no ``[`` nor ``](`` (a second link
#: stays one; a quoted ``]`` is kept, ``…DISHA] from India7)%2C is``). Why: read as
#: balanced parentheses only, the link ended at the fragment's first ``)`` and scraps of
#: the url (" If the))") stayed in the text annotators read (31 places in OpenAI's
#: released file). Narrow on purpose: a url with spaces is malformed markdown, and only a
#: fragment copied from a page has them.
_FRAGMENT_URL = (
    r"https?://(?:[^\s()\[\]]|\([^\s()\[\]]*\))*#:~:text=(?:[^\[\]\n]|\](?!\())*?(?=\)\))"
)
#: ``[words](url)``: one line of words (after a line break at most), which may open with
#: an unmatched escaped bracket (OpenAI's ``[[2502.03387\] LIMO](url)``); the url may hold
#: spaces and balanced parentheses (``#:~:text=a b (c)``), and, in a link in parentheses,
#: a text fragment's unmatched ones (:data:`_FRAGMENT_URL`; ``wrapped`` is set when a
#: ``(`` stands before the link, ``quoted`` when the url is read so: :func:`_link_end`).
_LINK_PATTERN = (
    rf"(?:(?<=\()(?P<wrapped>))?\[\n?(?P<words>\[?{_LINK_TEXT})\]"
    rf"\(\s*<?(?P<url>(?(wrapped)(?P<quoted>{_FRAGMENT_URL})|(?!))|{_LINK_URL})>?\s*\)"
)
_LINK = re.compile(_LINK_PATTERN)
LINK = _LINK  # a markdown link, groups "words" and "url" (the normaliser's too)

# --- Fenced code -----------------------------------------------------------------------------

#: A fenced code block's fence line (``` or ~~~, indented three spaces at most).
_FENCE = re.compile(r"^ {0,3}(?P<fence>```|~~~)")


def fenced_lines(lines: list[str]) -> list[int]:
    """For each line, the number (from 1) of the fenced code block it belongs to, its two
    fence lines included, else 0. A fence is closed by the next line opening with the same
    marker; one never closed is no block (its lines are read as text, as the renderer
    shows them).

    Why: a fenced block is code shown as written (a prompt, a JSON object). Read as
    markdown, OpenAI's ResearcherBench report 8 had its examples' fences shown as
    literal text, their lines split into numbered paragraphs at each blank line and shown
    as markdown, and ``[4, 5, 5, 3, 4, 4]`` read as citations."""
    out, i, block = [0] * len(lines), 0, 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        end = m and next(
            (j for j in range(i + 1, len(lines)) if lines[j].lstrip().startswith(m["fence"])),
            None,
        )
        if end:
            block += 1
            out[i : end + 1] = [block] * (end + 1 - i)
            i = end
        i += 1
    return out


# --- Reference entries ------------------------------------------------------------------------

#: ``[^n]: …`` / ``[n]: …`` definitions (anywhere in the text).
_DEFINITION = re.compile(r"^\s{0,3}\\?\[\^?(\d+)\^?\\?\]:\s*(.*?)\s*$")
#: ``[n] …``, ``\[n] …``, ``\[n\] …``, ``- [n]. …``: a numbered entry.
_BRACKET_ENTRY = re.compile(r"^\s*(?:[-*+]\s+)?\\?\[\^?(\d+)\\?\][.:)]?\s+(\S.*?)\s*$")
#: ``[n. Title](url)`` / ``[n\. Title](url)`` / ``- [n] Title](url)``: a list of links.
_LINK_ENTRY = re.compile(rf"^\s*(?:[-*+]\s+)?\[\\?\[?(\d+)\\?[.\]):]\s*({_LINK_TEXT})\]\(\s*<?({_LINK_URL})>?\s*\)\s*(.*?)\s*$")  # fmt: skip
#: ``[n. Title …`` / ``\\[n. Title \\](url)``: a numbered entry opening a bracket it may
#: not close (Mita).
_DOT_ENTRY = re.compile(r"^\s*(?:[-*+]\s+)?\\?\[(\d+)\\?\.\s+(\S.*?)\s*$")
_CLOSE_THEN_URL = re.compile(rf"\\?\]\(\s*<?({_LINK_URL})>?\s*\)")
#: ``1. …`` / ``- …`` items: entries only under a references heading or line.
_LIST_ENTRY = re.compile(r"^\s*(?:(\d+)[.)]|[-*+])\s+(\S.*?)\s*$")
#: A line of decoration only (Perplexity's ``<div style=…>⁂</div>``).
_DECORATION = re.compile(r"^\s*(?:<[^>\n]+>\s*)+[⁂*~\-_\s]*(?:</[^>\n]+>\s*)*$")


def _entry(line: str, in_references: bool) -> tuple[str, str] | None:
    """(number or "", rest) when the line is a reference entry of a list."""
    m = _LINK_ENTRY.match(line)
    if m:
        after = f" {m.group(4)}" if m.group(4) else ""
        return m.group(1), f"[{m.group(2)}]({m.group(3)}){after}"
    m = _BRACKET_ENTRY.match(line)
    if m:
        return m.group(1), m.group(2)
    m = _DOT_ENTRY.match(line)
    if m and "](" in m.group(2):
        return m.group(1), _CLOSE_THEN_URL.sub(r" \1 ", m.group(2), count=1)
    if in_references:
        m = _LIST_ENTRY.match(line)
        if m and (m.group(1) or _URL.search(m.group(2))):
            return m.group(1) or "", m.group(2)
    return None


def _numbered_url(line: str) -> tuple[str, str] | None:
    """(number, url) when ``line`` is a numbered item that is one address and nothing
    else, ``12. https://openreview.net/forum?id=tEYskw1VY2``: an entry of a trailing run
    with no heading (:func:`_split_references`). Why: Perplexity's ResearcherBench report
    6 closes with 53 such lines after its ``⁂`` decoration; left in the body, its
    ``[n]`` markers cited sources with no address and the annotator read the list as
    text. A numbered item with words is an entry only under a references heading."""
    m = _LIST_ENTRY.match(line)
    if m and m.group(1) and _URL.fullmatch(m.group(2)):
        return m.group(1), m.group(2)
    return None


def _unescape(text: str) -> str:
    return re.sub(r"\\([\\`*_{}\[\]()#+\-.!|~<>])", r"\1", text)


#: A definition that is one address with spaces: the words after its first space go on
#: with its path (a "/" among them, or a file's extension closing them) and hold no title
#: delimiter (quotes, brackets, a dash between spaces, "|").
_SPACED_PATH = re.compile(r"https?://\S+(?: [^\s\"“”'()\[\]|<>]+)+")
_PATH_GOES_ON = re.compile(r"/|\.[A-Za-z0-9]{2,5}$")


def _spaced_url(rest: str) -> str:
    """``rest`` as one address when it is one with spaces (:data:`_SPACED_PATH`), each
    space percent-encoded; else ``rest``.

    Why: Perplexity's ResearcherBench footnotes give some pages' addresses as the page
    wrote them, ``[^8]: https://e-dorigatti.github.io/development/deep learning/2023/04/10/
    impact-of-llms-on-software-development.html`` (reports 5, 16, 21, 30, 34): read up to
    the first space, the link opened ``…/development/deep`` and the rest of the path was
    shown as the source's title."""
    if not _SPACED_PATH.fullmatch(rest):
        return rest
    after = rest.split(" ", 1)[1]
    if " - " in after or " – " in after or not _PATH_GOES_ON.search(after):
        return rest
    return rest.replace(" ", "%20")


def _without_closing(url: str) -> str:
    """A bare url without the punctuation closing its sentence or a parenthesis around it;
    a ``)`` closing one of its own stays (``…/wiki/Mamba_(deep_learning_architecture)``,
    Perplexity's ResearcherBench report 6, opened a page that does not exist without it)."""
    while True:
        url = url.rstrip(".,;")
        if not url.endswith(")") or url.count(")") <= url.count("("):
            return url
        url = url[:-1]


def reference_of(key: str, rest: str, *, definition: bool = False) -> ParsedCitation:
    """One entry's source: its url (the first link's, else the first bare url) and title
    (the words, links as their words; a link whose words are its url gives no words). A
    ``definition`` (``[^n]: …``) that is one address with spaces is that address
    (:func:`_spaced_url`)."""
    if definition and " " in rest:
        rest = _spaced_url(rest)
    link = _LINK.search(rest)
    url = link.group("url") if link else ""
    if not url:
        bare = _URL.search(rest)
        url = _without_closing(bare.group()) if bare else ""

    def words(m: re.Match) -> str:
        inner = m.group("words").strip()
        return "" if _URL.fullmatch(inner) else inner

    title = _URL.sub("", _LINK.sub(words, rest))
    title = re.sub(r"\[Online\]\.?\s*Available:?", "", title)
    title = _unescape(title).strip(" \t.,;:-–<>()[]|")
    url = _unescape(url.strip())
    return ParsedCitation(key=key or _url_key(url), title=title, url=url)


def _split_references(lines: list[str]) -> tuple[list[str], dict[str, ParsedCitation]]:
    """The body's lines (entries removed) and the sources the entries list, by key."""
    sources: dict[str, ParsedCitation] = {}
    keep = [True] * len(lines)
    code = fenced_lines(lines)  # nothing in a code block is a reference

    def take(i: int, key: str, rest: str, definition: bool = False) -> None:
        keep[i] = False
        j = i + 1  # continuation lines: a bare url or link under the entry, no blank between
        while j < len(lines) and (
            _URL.fullmatch(lines[j].strip()) or _LINK.fullmatch(lines[j].strip())
        ):
            rest, keep[j] = f"{rest} {lines[j].strip()}", False
            j += 1
        c = reference_of(key, rest, definition=definition)
        if c.key and (c.key not in sources or not sources[c.key].url):
            sources[c.key] = c

    # definitions, anywhere
    for i, line in enumerate(lines):
        if code[i]:
            continue
        m = _DEFINITION.match(line)
        if m:
            take(i, m.group(1), m.group(2), definition=True)
        elif _DECORATION.match(line) and "<" in line:
            keep[i] = False
    # lists under a references heading or line: its scope ends at the next heading
    scope, level = None, 0  # the line opening the scope; its heading's level (0: a line)
    for i, line in enumerate(lines):
        if code[i]:
            continue
        heading = _HEADING.match(line)
        if heading:
            depth = len(heading.group(1))
            if REFERENCES_TITLE.match(heading.group(2)):
                scope, level = i, depth
            elif scope is None or not level or depth <= level:
                scope = None  # a sub-heading of a references heading ("### Papers") stays in it
            continue
        if _REF_LABEL.match(line):
            scope, level = i, 0
            continue
        entry = _entry(line, True) if scope is not None and keep[i] else None
        if entry:
            take(i, *entry)
            keep[scope] = bool(_HEADING.match(lines[scope]))  # a label line goes with its list
    # a trailing run of numbered entries with no heading
    end = len(lines)
    while end and (not lines[end - 1].strip() or not keep[end - 1]):
        end -= 1
    start, entries = end, []
    while start:
        line = lines[start - 1]
        if not line.strip() or not keep[start - 1]:
            start -= 1
            continue
        entry = None if code[start - 1] else _entry(line, False) or _numbered_url(line)
        if not entry or not entry[0]:
            break
        entries.append((start - 1, entry))
        start -= 1
    for i, entry in entries:
        take(i, *entry)
    return [line for line, k in zip(lines, keep, strict=True) if k], sources


# --- Inline markers -------------------------------------------------------------------------

_NAME = r"[A-Z][A-Za-z'\-]+"
#: One item of an author-year marker, ``Smith et al., 2020``, ``Smith, 2020``, ``Doe and Roe,
#: 2019``: a name and a comma (or "et al.") before the year, so "(December 2024)" or "(ACL 2023)" are words.
_ONE_AUTHOR_YEAR = rf"{_NAME}(?: et al\.,?| and {_NAME},?| & {_NAME},?|,) \d{{4}}[a-z]?"
ONE_AUTHOR_YEAR = _ONE_AUTHOR_YEAR  # the normaliser's, for the titles of these sources
_AUTHOR_YEAR = rf"\({_ONE_AUTHOR_YEAR}(?:; {_ONE_AUTHOR_YEAR})*\)"
#: The ambiguous author-year marker: one name and a year, ``(OpenAI, 2021)``.
_NAME_YEAR_ALONE = re.compile(rf"\({_NAME}, \d{{4}}[a-z]?\)")
#: A plural acronym, a common noun (``LLMs``, ``GPUs``), not a name.
_PLURAL_ACRONYM = re.compile(r"[A-Z]{2,}s[.,;:]?")
#: Opening punctuation and emphasis around a word (what is not the word's first letter).
_WORD_OPENERS = "*_\"'“‘([{"


def follows_a_name(before: str) -> bool:
    """Whether a parenthesis opening right after ``before`` follows a name: a word with a
    capital letter that does not open with a digit (``CLIP``, ``Kosmos-1``, ``τ-Bench``,
    ``Journals``; not ``selection``, ``230°C``, nor a plural acronym, a common noun:
    ``LLMs``), or emphasis closing (``**Flamingo**``).

    Why: one name and a year in parentheses, ``(OpenAI, 2021)``, is an author citation
    where a citation stands, closing a clause (``… material selection (Gutenko, 2020).``,
    ``… temperatures to 230°C (Dow Inc., 2023)``), but after a name it says who made what
    that name names and when: ``**CLIP (OpenAI, 2021)**``, ``**Flamingo** (DeepMind,
    2022)``, ``Stable Diffusion XL (SDXL, 2023)``, ``Journals (DOAJ, 2024)``. Read as a
    citation there, its words became a ``[n]`` whose source the system never listed
    (~20 in OpenAI's ResearcherBench reports); left as words, it says what it says."""
    stripped = before.rstrip()
    if stripped[-1:] in ("*", "_"):
        return True
    word = stripped.rpartition(" ")[2].rpartition("\n")[2].lstrip(_WORD_OPENERS)
    if not word or word[0].isdigit() or _PLURAL_ACRONYM.fullmatch(word):
        return False
    return word != word.lower()


#: Makers of models that a report names with a model and its year, ``**Kosmos-1
#: (Microsoft, 2023)**``, written as a surname is (OpenAI's ResearcherBench reports).
MODEL_MAKERS = frozenset(
    {
        "Microsoft", "Google", "Amazon", "Anthropic", "Meta", "Facebook", "Apple", "Nvidia",
        "Baidu", "Alibaba", "Tencent", "Huawei", "Samsung", "Intel", "Salesforce", "Adobe",
    }
)  # fmt: skip


def attributes_a_name(name: str, before: str) -> bool:
    """Whether one ``name`` and a year in parentheses after ``before`` say who made what
    the name before them names (words), not whose work is cited: right after a name
    (:func:`follows_a_name`), and ``name`` is not a surname as a person writes one (one
    word, a capital and lower-case letters: ``**Top2Vec** (Angelov, 2020)`` cites
    Angelov's paper) but an organisation's or a model's (``OpenAI``, ``SDXL``, ``Facebook
    AI``, a maker of models: :data:`MODEL_MAKERS`)."""
    if not follows_a_name(before):
        return False
    surname = name[:1].isupper() and name[1:].isalpha() and name[1:].islower()
    return not surname or name in MODEL_MAKERS


def _attributes_a_name(text: str, m: re.Match) -> bool:
    """Whether the author-year match ``m`` is one name and a year (``_NAME_YEAR_ALONE``)
    that attributes the name before it (:func:`attributes_a_name`): words, no citation."""
    marker = m.group("ay")
    return bool(_NAME_YEAR_ALONE.fullmatch(marker)) and attributes_a_name(
        marker[1:].partition(",")[0], text[: m.start()]
    )


#: Math, where no marker is ever read: ``$…$``, ``$$…$$``, ``\(…\)``, ``\[…\]`` (not an
#: escaped marker ``\[12\]``, nor escaped brackets around a link, ``\[[Author' 2021](url)\]``).
#: A ``$`` opens math only before a non-space, and closes it after one: "$5 and $10" is not
#: math.
_MATH = (
    r"\$\$.+?\$\$|(?<![\\\w$])\$(?=\S)[^$\n]+?(?<=\S)\$(?![\w$])|\\\(.+?\\\)"
    r"|\\\[(?![\d,;\s–-]+\\?\])(?:(?!\]\(https?:)[\s\S])+?\\\]"
)
MATH = re.compile(_MATH, re.S)
#: A fenced code block, from its fence line to the closing one (:func:`fenced_lines`).
_FENCED_CODE = r"(?m:^ {0,3}(?P<fq>```|~~~)[\s\S]*?^ {0,3}(?P=fq))"
#: One alternation, scanned once per paragraph; the first alternative matching at a
#: position wins, so math and code are consumed (and skipped) before any marker inside.
_INLINE = re.compile(
    rf"(?P<skip>{_FENCED_CODE}|{_MATH}|`[^`\n]+`)"
    rf"|(?P<link>{_LINK_PATTERN})"
    r"|\[\^(?P<foot>\d+)\^?\]|【(?P<wide>\d+)(?:†[^】\n]*)?】"
    r"|\^?\\?\[(?:citation:\s*)?(?P<nums>\d+(?:\s*[,;]\s*\d+)*)\\?\](?!\()"
    rf"|(?P<ay>{_AUTHOR_YEAR})",
    re.S,
)
_NUMERIC_LINK_TEXT = re.compile(r"\s*[\[(]?\s*\^?(\d+)\s*[\])]?\s*")
_TEXT_FRAGMENT = re.compile(r"#:~:text=.*$", re.S)


def _quote_of(cited: ParsedCitation, url: str) -> None:
    """The words of ``url``'s ``#:~:text=`` fragment added to ``cited``'s snippets (once):
    the passage the system cited, as a reader writes it (start and end joined by an
    elision, :func:`annotation.links.fragment_words`), never part of its url.

    Why: the fragment goes from the url (it is the system's, not the page's), and OpenAI's
    sources have no other snippet: the annotator read "No snippet supplied" for a passage
    the system did quote."""
    at = url.find("#:~:text=")
    if at < 0:
        return
    from annotation.links import fragment_words

    words = fragment_words(url[at + 1 :].strip())
    if words and words not in cited.snippets:
        cited.snippets.append(words)


def _url_key(url: str) -> str:
    """A linked source's key: its url, without the ``#:~:text=`` highlight (one source for
    every passage of one page)."""
    return _TEXT_FRAGMENT.sub("", url.strip())


def _link_end(text: str, m: re.Match) -> int:
    """Where the link ``m`` of ``text`` ends: its match's end, but one ``)`` further for a
    link whose url is a quoted text fragment (:data:`_FRAGMENT_URL`) followed by a third
    ``)`` that closes no parenthesis opened before the link: ``x ([w](url#:~:text=a (b))).``
    holds ``(b)`` whole, while in ``(as shown ([w](url#:~:text=tuning (SFT))).`` the third
    closes "(as shown" (OpenAI's four ``)))``), counting the parentheses of the words
    before the link (earlier links' urls aside). Why: either way the text annotators read
    keeps its parentheses balanced (GPT-4's ``…([The Decoder](url#:~:text=GPT,MoE))).``
    read "[17])." with the first reading only)."""
    end = m.end()
    if m.group("quoted") is None or not text.startswith("))", end):  # the "(…)" and a third
        return end
    prose = _LINK.sub("", text[: m.start() - 1])  # before the "(" around it, links aside
    return end + 1 if prose.count("(") <= prose.count(")") else end


def _first_bracket_closed(words: str) -> bool:
    """Whether the ``[`` opening a link's ``words`` is closed inside them (by ``]`` or by an
    escaped ``\\]``): then it is part of the words (CommonMark allows balanced brackets in
    link text), as in OpenAI's ``([[2403.11144] Is Mamba Effective…](url))`` and
    ``[[2502.03387\\] LIMO](url)``, titled "[2403.11144] Is Mamba Effective…". Unclosed,
    it is a bracket around the link, ``\\[[Author' 2021](url)\\]``, which goes with the
    marker. Why: read as the outer bracket, the annotator saw ``([`` before the marker and
    the source was titled "2403.11144] Is Mamba…" (~520 links of OpenAI's released file)."""
    depth = 0
    for c in words.replace("\\", ""):
        if c == "[":
            depth += 1
        elif c == "]":
            depth -= 1
            if depth == 0:
                return True
    return False


def _anchors(text: str, sources: dict[str, ParsedCitation]) -> list[tuple[int, int, str]]:
    out = []
    for m in _INLINE.finditer(text):
        if m.group("skip") is not None:
            continue
        if m.group("link") is not None:
            start, end, words, url = m.start(), _link_end(text, m), m.group("words"), m.group("url")
            if words.startswith("[") and not _first_bracket_closed(words):  # "\[[words](url)\]"
                start, words = start + 1, words[1:]
            if text[start - 2 : start] == "\\[" and text[end : end + 2] == "\\]":
                start, end = start - 2, end + 2  # the escaped brackets go with the marker
            number = _NUMERIC_LINK_TEXT.fullmatch(_unescape(words))
            if number:
                key = number.group(1)
                cited = sources.setdefault(key, ParsedCitation(key=key))
                cited.url = cited.url or url
            else:
                key = _url_key(url)
                cited = sources.setdefault(
                    key, ParsedCitation(key=key, title=_unescape(words), url=key)
                )
            _quote_of(cited, url)
            out.append((start, end, key))
        elif m.group("foot") is not None or m.group("wide") is not None:
            key = m.group("foot") or m.group("wide")
            sources.setdefault(key, ParsedCitation(key=key))
            out.append((m.start(), m.end(), key))
        elif m.group("nums") is not None:
            numbers = list(re.finditer(r"\d+", m.group("nums")))
            if len(numbers) == 1:
                spans = [(m.start(), m.end(), numbers[0].group())]
            else:
                base = m.start("nums")
                spans = [(base + n.start(), base + n.end(), n.group()) for n in numbers]
            for start, end, key in spans:
                sources.setdefault(key, ParsedCitation(key=key))
                out.append((start, end, key))
        elif m.group("ay") is not None:
            if _attributes_a_name(text, m):
                continue
            key = m.group("ay")
            sources.setdefault(key, ParsedCitation(key=key))
            out.append((m.start(), m.end(), key))
    return out


#: What may stand before a bare ``^n`` marker: a word of four letters or more, closing
#: punctuation or a space ("exponent^1", "2024)^2"); "t^2", "log^2", "10^3" are math.
_CARET_MARKER_BEFORE = re.compile(r"(?:[^\W\d_]{4}|[.,;:\"'”’)*\]\s])$")


def outside_math(text: str, anchors: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """The anchors not inside math: not within ``$…$``, ``\\(…\\)``, ``\\[…\\]``, and a bare
    ``^n`` only where a marker can stand (:data:`_CARET_MARKER_BEFORE`), so a source keyed
    "^2" never turns "O(t^2 log^2 t)" into citations (ScholarQA-CS2 dev/claude)."""
    spans = [m.span() for m in MATH.finditer(text)] if ("$" in text or "\\" in text) else []
    if not spans and "^" not in text:  # nothing to leave out (most text; issue 29)
        return anchors
    out = []
    for start, end, key in anchors:
        if any(a <= start < b for a, b in spans):
            continue
        bare_caret = text.startswith("^", start) and text[start + 1 : start + 2].isdigit()
        if bare_caret and not _CARET_MARKER_BEFORE.search(text[max(0, start - 4) : start]):
            continue
        out.append((start, end, key))
    return out


def link_anchors(
    text: str, sources: dict[str, ParsedCitation], taken: list[tuple[int, int, str]]
) -> list[tuple[int, int, str]]:
    """The markdown links ``[words](url)`` of ``text`` that overlap none of the anchors
    ``taken``, each a source keyed by its url (added to ``sources``): for formats whose
    markers are listed ids (ScholarQA), a link the ids do not cover is still a citation,
    never raw markdown in the text."""
    out = []
    for m in _INLINE.finditer(text):
        if m.group("link") is None:
            continue
        start, end = m.start(), _link_end(text, m)
        if any(a < end and start < b for a, b, _ in taken):
            continue
        key = _url_key(m.group("url"))
        cited = sources.setdefault(
            key, ParsedCitation(key=key, title=_unescape(m.group("words")), url=key)
        )
        _quote_of(cited, m.group("url"))
        out.append((start, end, key))
    return out


# --- Headings -------------------------------------------------------------------------------

#: A line of bold text only, a colon inside or after it allowed: ``**Title**``, ``__Title:__``,
#: ``**Title**:``; no more emphasis inside (``**a * b**`` is not one bold span).
_BOLD_LINE = re.compile(
    r"^ {0,3}(?:\*\*(?P<a>[^*\n]*[^*\s])\*\*|__(?P<b>[^_\n]*[^_\s])__)\s*[:：]?\s*$"
)
#: Emphasis around a title's words: ``**Title**``, ``__Title__``, ``*Title*``, ``_Title_``.
_TITLE_EMPHASIS = re.compile(
    r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1|(?<![\w*])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![\w*])"
)


#: An HTML character reference, as CommonMark reads one in text: ``&#xA;``, ``&#160;``,
#: ``&amp;`` (with its semicolon; ``AT&T`` or ``R&D`` are words).
_CHARACTER_REFERENCE = re.compile(
    r"&(?:#[xX][0-9A-Fa-f]{1,6}|#[0-9]{1,7}|[A-Za-z][A-Za-z0-9]{1,31});"
)


def _characters(text: str) -> str:
    """``text`` with its HTML character references read (:data:`_CHARACTER_REFERENCE`),
    whitespace they stand for (``&#xA;``, a line break) as one space."""
    if "&" not in text:
        return text
    read = _CHARACTER_REFERENCE.sub(lambda m: html.unescape(m.group()), text)
    return re.sub(r"\s+", " ", read) if read != text else text


def heading_title(text: str) -> str:
    """A heading's words as annotators read them: emphasis markers and a final colon gone,
    markdown escapes and HTML character references read (``## **1\\. Intro:**`` ->
    "1. Intro"; ``### 5.2 Enhancing …&#xA;`` -> "5.2 Enhancing …"). A section title is shown
    as plain text, so ``**`` or ``&#xA;`` would be shown as written: Doubao's ResearcherBench
    reports close every ``###`` heading with an encoded line break, which CommonMark reads
    as the character (a space at a heading's end) and annotators read as "&#xA;"."""
    title = _TITLE_EMPHASIS.sub(lambda m: m.group(2) or m.group(3), text.strip())
    return _characters(_unescape(title)).strip().rstrip(":：").strip()


def _bold_title(line: str) -> str | None:
    """The title of a bold line that can be a heading (module doc), else None."""
    m = _BOLD_LINE.match(line)
    if m is None:
        return None
    words = (m.group("a") or m.group("b")).strip()
    if words.endswith((".", "。")) or "$" in words or REFERENCES_TITLE.match(line):
        return None
    if any(x.group("skip") is None for x in _INLINE.finditer(words)):
        return None  # a marker or a link: a section title carries no citation
    return heading_title(words) or None


#: What a line that is a fence, a heading or a bold line starts with ("" never starts one).
_MAY_MATTER = frozenset("#`~ *_")


def bold_headings(lines: list[str]) -> list[str]:
    """``lines`` with every bold line standing alone (module doc) written as the ATX heading
    it is read as: one level below the last ATX heading (``#`` before any), at most six."""
    out, depth = list(lines), 0
    code = fenced_lines(lines)
    for i, line in enumerate(lines):
        if line[:1] not in _MAY_MATTER or code[i]:  # most lines: words, list items, code
            continue
        heading = _HEADING.match(line)
        if heading:
            depth = len(heading.group(1))
            continue
        if "**" not in line and "__" not in line:
            continue
        before = lines[i - 1] if i else ""
        after = lines[i + 1] if i + 1 < len(lines) else ""
        if (before.strip() and not _HEADING.match(before)) or (
            after.strip() and not _HEADING.match(after)
        ):
            continue  # a lead-in of the lines around it
        title = _bold_title(line)
        if title:
            out[i] = f"{'#' * min(depth + 1, 6)} {title}"
    return out


# --- The reader -----------------------------------------------------------------------------

_BLANK_LINE = re.compile(r"\n[ \t]*\n")


def _paragraph_texts(content: list[tuple[str, int]]) -> list[str]:
    """A section's paragraphs: its lines (each with its code block's number,
    :func:`fenced_lines`) split at blank lines, but a fenced code block is one paragraph of
    its own, blank lines and all, so it is shown as one block of code."""
    out: list[str] = []
    run: list[str] = []
    block = 0  # the code block of the lines in ``run``, 0: text
    for line, in_code in content:
        if in_code != block:
            out += ["\n".join(run)] if block else _BLANK_LINE.split("\n".join(run))
            run, block = [], in_code
        run.append(line)
    out += ["\n".join(run)] if block else _BLANK_LINE.split("\n".join(run))
    return out


def read_markdown(text: str) -> ParsedReport:
    """A markdown answer as sections (by heading), paragraphs (by blank line) and sources.

    Numbered markers are keyed by their number (titled and with a url from the reference
    list or definitions when there is one, else bare); a markdown link is a source keyed by
    its url and titled by its words; an author-year marker is a bare source keyed verbatim.
    """
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    body, sources = _split_references(bold_headings(lines))
    listed = list(sources)  # the reference list's and definitions' entries, by key
    code = fenced_lines(body)
    blocks: list[tuple[str, list[tuple[str, int]]]] = [("", [])]
    for line, in_code in zip(body, code, strict=True):
        m = None if in_code else _HEADING.match(line)
        if m:
            blocks.append((heading_title(m.group(2)), []))
        else:
            blocks[-1][1].append((line, in_code))
    sections = []
    for title, content in blocks:
        paragraphs = []
        for ptext in _paragraph_texts(content):
            ptext = ptext.strip()
            if ptext:
                paragraphs.append(ParsedParagraph(ptext, _anchors(ptext, sources)))
        if title and REFERENCES_TITLE.match(title) and not paragraphs:
            continue  # a references heading whose list left the body
        if title or paragraphs:
            sections.append(ParsedSection(title=title, paragraphs=paragraphs))
    if listed and len(sources) > len(listed):  # a link cites a source besides the list's
        _join_listed(sections, sources, listed)
    return ParsedReport(sections=sections, citations=sources)


# --- Inline links to listed sources -----------------------------------------------------------

#: An arXiv identifier, new style (``2501.06521``, ``arXiv:2501.06521v2``,
#: ``arxiv.org/abs/2501.06521``, ``arXiv.2302.13971`` in a DataCite DOI), version aside.
_ARXIV_ID = re.compile(
    r"(?:arxiv(?:\.org/(?:abs|pdf|html)/|[:.]\s*)|/(?:abs|pdf|html)/)(\d{4}\.\d{4,5})(?:v\d+)?(?!\d)",
    re.I,
)
#: A DOI (``10.18653/v1/N19-1423``), in an address (``doi.org/…``) or a text (``doi:…``).
_DOI = re.compile(r"\b(10\.\d{4,9}/[^\s\"<>\]\[()]+)", re.I)
#: An entry's title in quotes (IEEE, Chicago, MLA, Semantic Scholar's): ``A. Author et al.,
#: "Title," venue`` / ``Author. “Title.” Venue``; two words at least.
_QUOTED_TITLE = re.compile(
    r"[\"“]([^\"“”\n]*?\w[^\"“”\n]*?\s[^\"“”\n]*?\w[^\"“”\n]*?)[,.;:]?\s*[\"”]"
)
#: An entry's title after its year (APA: ``Author, A. (2020). Title. Venue``; ACM: ``A.
#: Author. 2020. Title. In …``): in emphasis, the emphasised words (``*Title: A vs. B*``),
#: else the words up to the sentence's end; three at least.
_TITLE_AFTER_YEAR = re.compile(
    r"(?:\((?:19|20)\d{2}[a-z]?\)|(?<=\.)\s(?:19|20)\d{2}[a-z]?)\.\s+"
    r"(?:(?P<em>[*_])(?P<italic>[^*_\n]+?\s[^*_\n]+?\s[^*_\n]+?)(?P=em)(?![*_\w])"
    r"|(?P<title>[^\s.?!*_]+(?:\s+[^\s.?!]+){2,}?[^\s.?!]*[?!]?)(?:\.\s|\.$|(?<=[?!])\s|$))"
)


def listed_title(entry: str) -> str:
    """The title of a reference entry's words ``entry`` (a list's ``[n] …`` line, its
    addresses aside): the quoted title (``Z. Chen et al., "GraphGen: Enhancing …,"
    arXiv preprint arXiv:2505.20416, 2025`` -> "GraphGen: Enhancing …"), else the sentence
    after its year in parentheses (APA) or after the authors' sentence (ACM); else, when
    neither reads, the entry's words as they are: a title that says too much, never one
    that says nothing or the wrong thing."""
    entry = entry.strip()
    m = _QUOTED_TITLE.search(entry)
    if m is None:
        m = _TITLE_AFTER_YEAR.search(entry)
    if m is None:
        return entry
    # an italic title (APA's) whole, "vs." or "e.g." in it
    quoted = m.re is _QUOTED_TITLE
    title = (m.group(1) if quoted else m.group("italic") or m.group("title")).strip(" ,;:.")
    if not quoted and entry.endswith(title):
        return entry  # "… (2020). Venue": the year closed the authors, no title after it
    return title or entry


def _identities(url: str, text: str = "") -> set[tuple[str, str]]:
    """What names the work a source is: its address (scheme, "www.", a trailing "/",
    tracking parameters and text fragment aside), the arXiv id and the DOI its address or
    ``text`` holds."""
    out = set()
    if url:
        address = clean_url(url).split("#", 1)[0].rstrip("/").lower()
        address = re.sub(r"^https?://(?:www\.)?", "", address)
        if address:
            out.add(("url", address))
    for where in (url, text):
        for m in _ARXIV_ID.finditer(where or ""):
            out.add(("arxiv", m.group(1)))
        for m in _DOI.finditer(where or ""):
            doi = m.group(1).rstrip(".,;:").lower()
            arxiv = re.fullmatch(r"10\.48550/arxiv\.(\d{4}\.\d{4,5})(?:v\d+)?", doi)
            out.add(("arxiv", arxiv.group(1)) if arxiv else ("doi", doi))
    return out


def _join_listed(
    sections: list[ParsedSection], sources: dict[str, ParsedCitation], listed: list[str]
) -> None:
    """Each inline link ``[words](url)`` whose address names a work the reference list
    lists (the same address, or the same arXiv id or DOI in both) cites that entry: its
    markers take the entry's key, the entry its address (when it has none) and the link's
    quoted passage, and the entry is titled by its title (:func:`listed_title`; the entry's
    words as written kept in its metadata, ``LISTED_AS``, for the report's references).

    Why: gpt-4o-search-preview cites ``([arxiv.org](https://arxiv.org/html/2501.06521))``
    and lists ``[5] T. Gao et al., "Fine-tuning Large Language Models…," arXiv preprint
    arXiv:2501.06521`` (ResearcherBench report 1): the link's chip read "arxiv.org" and the
    entry it cites was shown as listed but not cited. Conservative: a link matching no
    entry, or two, stays a source of its own."""
    by_identity: dict[tuple[str, str], set[str]] = {}
    for key in listed:
        entry = sources[key]
        for identity in _identities(entry.url, entry.title):
            by_identity.setdefault(identity, set()).add(key)
    if not by_identity:
        return
    joined: dict[str, str] = {}
    entries = set(listed)
    for key, cited in sources.items():
        if key in entries or not cited.url or not _URL.match(key):  # a link's source only
            continue
        keys = set().union(*(by_identity.get(i, set()) for i in _identities(cited.url)))
        if len(keys) == 1:
            joined[key] = keys.pop()
    if not joined:
        return
    titled = set()
    for key, to in joined.items():
        link, entry = sources.pop(key), sources[to]
        entry.url = entry.url or link.url
        entry.snippets.extend(s for s in link.snippets if s not in entry.snippets)
        if to in titled:
            continue
        titled.add(to)
        if not entry.title:  # an address only (``[^n]: url``): the link's words name it
            entry.title = link.title
            continue
        title = listed_title(entry.title)
        if title != entry.title:
            entry.metadata.setdefault(LISTED_AS, entry.title)
            entry.title = title
    for section in sections:
        for p in section.paragraphs:
            if any(k in joined for _, _, k in p.anchors):
                p.anchors[:] = [(a, b, joined.get(k, k)) for a, b, k in p.anchors]
