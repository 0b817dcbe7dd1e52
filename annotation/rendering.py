"""Reports rendered for annotators: one uniform format, sanitized, blinded.

Report text is untrusted (it comes from outside systems). Paragraph text goes through
Markdown and then ``nh3`` with a small allowlist, so ``<script>``, event handlers and
``javascript:`` links never reach the page. Citation markers are cut out of the text *before*
sanitizing (replaced by private-use placeholders) and put back afterwards as markup built
here, from escaped titles and snippets.

Nothing that identifies the system (its name, database ids, the source file or format) is
rendered; a report is known to the annotator only by its label ("Report A") and public id.
"""

from __future__ import annotations

import re
import threading
import time
from collections import OrderedDict, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import lru_cache, partial
from html.parser import HTMLParser
from string import ascii_uppercase

import latex2mathml.converter
import markdown
import nh3
from django.utils.html import escape, format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

from annotation.links import (
    LISTED_AS,
    address_title,
    shown_snippet,
    shown_text,
    shown_title,
    shown_url,
)
from annotation.models import Citation, Paragraph, Report, Section, cited

ALLOWED_TAGS = {
    "p", "br", "em", "strong", "b", "i", "u", "code", "pre", "sub", "sup", "blockquote",
    "ul", "ol", "li", "a", "table", "thead", "tbody", "tr", "th", "td", "h4", "h5", "h6",
}  # fmt: skip
ALLOWED_ATTRIBUTES = {
    "a": {"href", "title"},
    "ol": {"start"},  # a list item's own number (:func:`_markdown`)
    "th": {"colspan", "align"},
    "td": {"colspan", "align"},
}
URL_SCHEMES = {"http", "https", "mailto"}
PH_OPEN, PH_CLOSE = "\ue000", "\ue001"
#: Math placeholders: a formula is cut out of the text before Markdown sees it.
MATH_OPEN, MATH_CLOSE = "\ue002", "\ue003"
PRIVATE = (PH_OPEN, PH_CLOSE, MATH_OPEN, MATH_CLOSE)
MAX_SNIPPETS = 4

#: Exactly the MathML that latex2mathml emits (presentation MathML; no ``href``, ``style``
#: or ``class``, which its ``\href``, ``\style`` and ``\class`` commands would add).
MATH_TAGS = {
    "math", "mrow", "mi", "mn", "mo", "mtext", "mspace", "msub", "msup", "msubsup", "mfrac",
    "msqrt", "mroot", "mover", "munder", "munderover", "mtable", "mtr", "mtd", "mstyle",
    "mpadded", "mphantom", "menclose",
}  # fmt: skip
MATH_ATTRIBUTES = {
    "math": {"xmlns", "display"},
    **{
        tag: {
            "mathvariant",
            "mathsize",
            "mathcolor",
            "mathbackground",
            "displaystyle",
            "scriptlevel",
            "stretchy",
            "fence",
            "form",
            "separator",
            "lspace",
            "rspace",
            "minsize",
            "maxsize",
            "movablelimits",
            "largeop",
            "accent",
            "linethickness",
            "width",
            "height",
            "depth",
            "voffset",
            "notation",
            "columnalign",
            "columnspacing",
            "rowspacing",
            "linebreak",
        }  # fmt: skip
        for tag in MATH_TAGS - {"math"}
    },
}


def sanitize_html(html: str) -> str:
    return nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes=URL_SCHEMES,
        link_rel="noopener noreferrer nofollow",
    )


def sanitize_mathml(mathml: str) -> str:
    return nh3.clean(mathml, tags=MATH_TAGS, attributes=MATH_ATTRIBUTES, url_schemes=set())


_local = threading.local()


def _markdown() -> markdown.Markdown:
    """One Markdown converter per thread: building one costs more than converting a paragraph.

    A numbered list keeps the number its first item was written with (``<ol start="2">``):
    a loose list (items a blank line apart) is stored one item per paragraph, and each
    paragraph shown as a list restarting at 1 read "1., 1., 1., 1." (Doubao's
    ResearcherBench report 8). A fenced code block (```) is one ``<pre><code>``, its lines
    shown as written, never read as Markdown."""
    converter = getattr(_local, "markdown", None)
    if converter is None:
        converter = _local.markdown = markdown.Markdown(extensions=["tables", "fenced_code"])
        converter.ESCAPED_CHARS = [*converter.ESCAPED_CHARS, *EXTRA_ESCAPES]
        converter.parser.blockprocessors["olist"].LAZY_OL = False
    return converter.reset()


#: Backslash escapes Python-Markdown leaves as typed but CommonMark (every system's
#: Markdown) reads as the character: ``\$`` (Perplexity's ``\$6 million`` and Doubao's,
#: ResearcherBench ``user_data``, so a formula is not read there). Shown as the character,
#: as the report's writer meant and as other systems write it: ``\$`` was one system's habit.
#: Formulas are cut out before Markdown (:func:`find_math`), so their escapes are untouched.
EXTRA_ESCAPES = ("$",)
#: A backslash escape a paragraph shows as its character (:func:`_markdown`).
_SHOWN_ESCAPE = re.compile(
    r"\\([" + re.escape("".join((*markdown.Markdown().ESCAPED_CHARS, *EXTRA_ESCAPES))) + r"])"
)


def shown_claim(text: str) -> str:
    """A claim's text as its paragraph shows it: addresses cleaned
    (:func:`annotation.links.shown_text`) and a Markdown backslash escape (``\\$6 million``)
    shown as its character (``$6 million``), as :func:`_markdown` shows it in the paragraph.
    For display only: the claim is stored as selected (or as imported)."""
    if not isinstance(text, str):
        return text
    text = shown_text(text)
    return _SHOWN_ESCAPE.sub(r"\1", text) if "\\" in text else text


# --- Math -------------------------------------------------------------------------------------
#
# Why server-side MathML: the page needs no script and the CSP stays strict. A formula is cut
# out of the text before Markdown (whose emphasis rules would eat ``_`` and ``*`` inside it),
# rendered by latex2mathml, sanitized with a MathML-only allowlist, and put back afterwards.
# A formula latex2mathml cannot render is shown as its source text, unaltered.

_CODE = re.compile(r"(`+)(?:.|\n)*?(?<!`)\1(?!`)")
#: LaTeX's display environments, starred or not: amsmath's numbered ones and the blocks
#: that stand alone (``\\begin{gathered}``), as LaTeX text (DeepScholar's exemplars) and
#: some reports write display math.
DISPLAY_ENVIRONMENTS = (
    "equation", "displaymath", "align", "flalign", "alignat", "eqnarray", "gather",
    "multline", "gathered", "aligned", "split",
)  # fmt: skip
_DISPLAY = (
    r"\\begin\{(?P<env>" + "|".join(DISPLAY_ENVIRONMENTS) + r")(?P<star>\*?)\}"
    r"(?P<be>.+?)\\end\{(?P=env)(?P=star)\}"  # \begin{equation} display \end{equation}
    r"|(?<![\\$])\$\$(?P<dd>.+?)(?<!\\)\$\$"  # $$ display $$
    r"|\\\[(?P<bd>.+?)\\\]"  # \[ display \]
    r"|\\\((?P<bi>.+?)\\\)"  # \( inline \)
)
_MATH = re.compile(
    _DISPLAY
    # $inline$: not after a backslash or a dollar; not "$ " closing a "$x" (and vice versa);
    # the closing dollar not followed by a digit, so "$5 and $10" is no formula.
    + r"|(?<![\\$\w])\$(?P<d>(?P<sp>[ ]?)[^\s$](?:[^$\n]*?[^\s$\\])?(?P=sp))\$(?![\d$])",
    re.S,
)
#: Formulas in text written by LaTeX's rules (:func:`find_math` ``latex=True``): every
#: dollar not escaped opens or closes one, after a digit too (``6$\\times$``, ``MC$^2$``),
#: as LaTeX reads it; an escaped dollar inside (``\\$``) does not close it.
_LATEX_MATH = re.compile(_DISPLAY + r"|(?<![\\$])\$(?P<d>(?:[^$\\]|\\.)+?)\$", re.S)
#: What a display environment's body needs to be one formula latex2mathml renders: the
#: numbered environments' labels and number switches dropped (they print no math).
_NUMBERING = re.compile(r"\\label\{[^{}]*\}|\\nonumber\b|\\notag\b")
#: The environment latex2mathml renders for each display environment's rows (None: the body
#: is one formula; the environment itself when latex2mathml knows it).
_ROWS = {"equation": None, "displaymath": None, "align": "aligned", "flalign": "aligned",
         "alignat": "aligned", "eqnarray": "aligned", "split": "aligned",
         "aligned": "aligned", "gather": "gathered", "multline": "gathered",
         "gathered": "gathered"}  # fmt: skip


def display_latex(env: str, body: str) -> str:
    """A display environment's body as one formula latex2mathml renders: ``equation``'s
    body as written; rows of ``align`` / ``gather`` / ``multline`` as amsmath's
    ``aligned`` / ``gathered`` blocks (``alignat``'s column count dropped)."""
    body = _NUMBERING.sub("", body).strip()
    if env == "alignat":
        body = re.sub(r"^\{\d+\}", "", body).strip()
    rows = _ROWS[env]
    return body if rows is None else f"\\begin{{{rows}}}{body}\\end{{{rows}}}"


#: Han, kana and Hangul: the scripts of words, never of a formula's variables.
#: Latin letters, accented too (not × ÷, nor Greek: a formula's variables).
_LATIN = "A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f"
#: Han, kana and Hangul: the scripts of words, never of a formula's variables.
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
#: What words in escaped brackets hold, and no formula needs alone: Latin letters, CJK,
#: digits, spaces and sentence punctuation; no backslash, operator, brace, bracket, ``^``
#: or ``_`` (a hyphen only inside a word: :data:`_WORD_HYPHEN`).
_WORDS_ONLY = re.compile(f"[{_LATIN}{_CJK}0-9 ,.:;!?'’、，。：；！？·]+")
#: A hyphen joining a word to the letters after it ("500-word", "Base64-encoded").
_WORD_HYPHEN = re.compile(f"(?<=[{_LATIN}0-9])-(?=[{_LATIN}])")
_HAS_CJK = re.compile(f"[{_CJK}]")
_LATIN_WORD = re.compile(f"[{_LATIN}]+")
#: arXiv categories, one or a list: an archive and its subject class (``cs.LG``,
#: ``stat.ML``, ``q-bio.NC``, ``physics.comp-ph``) or an archive without classes
#: (``hep-th``, ``gr-qc``, ``quant-ph``). A dot between a lowercase archive and an
#: uppercase class, or one of these archives by name: no formula is written so.
_ARXIV_CATEGORY = (
    r"(?:[a-z]{2,}(?:-[a-z]{2,})?\.(?:[A-Z]{2}|[a-z]{2,}-[a-z]{2,})"
    r"|(?:gr-qc|hep-(?:th|ph|ex|lat)|nucl-(?:th|ex)|quant-ph|math-ph|astro-ph|cond-mat|nlin))"
)
_ARXIV_CATEGORIES = re.compile(rf"{_ARXIV_CATEGORY}(?:\s*[,;]\s*{_ARXIV_CATEGORY})*")


def bracketed_words(content: str) -> bool:
    """Whether the content of an escaped-bracket span ``\\[…\\]`` is words in brackets,
    not display math: words only (``_WORDS_ONLY``), with a CJK character (``\\[AI生成\\]``,
    ``\\[论文审查\\]``) or a Latin word of three letters or more (``\\[Case Studies\\]``,
    ``\\[Text A\\]``, ``\\[500-word passage\\]``), or arXiv categories
    (``_ARXIV_CATEGORIES``: ``\\[cs.LG\\]``, ``\\[stat.ML, cs.AI\\]``, ``\\[hep-th\\]``).
    Conservative: ``\\[ x \\]``, ``\\[J\\]``, ``\\[ dx \\]``, ``\\[AB\\]``, ``\\[ n-1 \\]``,
    ``\\[ a.b \\]``, ``\\[12\\]`` and anything with an operator or a command stay math.

    Why: a markdown writer escapes brackets it means as brackets (Mita's ``\\[AI生成\\]``
    and its prompt templates' ``\\[Helpful Assistant\\]`` were shown as display formulas);
    real display math has a command or an operator (``\\[ \\text{FFN}(x) = \\max(0, xW_1 +
    b_1)W_2 + b_2 \\]``, the released ResearcherBench files' two); Mita's "(Kaplan et al.,
    arXiv \\[cs.LG\\], 2020)" was the one display formula of its 65 responses."""
    if _ARXIV_CATEGORIES.fullmatch(content.strip()):
        return True
    content = _WORD_HYPHEN.sub(" ", content.strip())
    if not _WORDS_ONLY.fullmatch(content):
        return False
    if _HAS_CJK.search(content):
        return True
    return any(len(word) > 2 for word in _LATIN_WORD.findall(content))


def find_math(text: str, latex: bool = False) -> list[tuple[int, int, str, bool]]:
    """Formulas in ``text``: (start, end, LaTeX source, display?) outside code spans; an
    escaped-bracket span of words (:func:`bracketed_words`) is text, not a formula. Display
    environments (``\\begin{equation}`` …: :data:`DISPLAY_ENVIRONMENTS`) are display
    formulas. ``latex``: the text follows LaTeX's rules (text read from LaTeX, an arXiv
    abstract), where every unescaped dollar is math (:data:`_LATEX_MATH`); markdown's
    writers use a dollar for money, hence the stricter default."""
    code = [(m.start(), m.end()) for m in _CODE.finditer(text)]
    found = []
    for m in (_LATEX_MATH if latex else _MATH).finditer(text):
        if any(a < m.end() and m.start() < b for a, b in code):
            continue
        source = next(g for g in (m["be"], m["dd"], m["bd"], m["bi"], m["d"]) if g is not None)
        if not source.strip() or any(c in source for c in PRIVATE):
            continue
        if m["bd"] is not None and bracketed_words(source):
            continue
        display = m["d"] is None and m["bi"] is None
        formula = display_latex(m["env"], source) if m["be"] is not None else source.strip()
        found.append((m.start(), m.end(), formula, display))
    return found


@lru_cache(maxsize=5_000)
def math_html(source: str, latex: str, display: bool) -> str:
    """MathML for one formula, or its source text (escaped, unaltered) when it cannot be
    rendered: a syntax error, or a command latex2mathml does not know (it would show the
    command's name as a letter sequence)."""
    try:
        mathml = latex2mathml.converter.convert(latex, display="block" if display else "inline")
    except Exception:  # noqa: BLE001 - any parser failure means "show the source"
        mathml = None
    if mathml is not None and "\\" not in re.sub(r"<[^>]*>", "", mathml):
        return sanitize_mathml(mathml)
    return f'<code class="math-source">{escape(source)}</code>'


def paper_math_html(source: str, latex: str, display: bool) -> str:
    """:func:`math_html` for a formula of text read from LaTeX: a command latex2mathml does
    not know is taken for a macro of the paper's own (``$\\ToolName$``, ``$\\sign(x)$``;
    the release holds no definition) and set upright by its name, as an operator name is,
    rather than the whole formula shown as source."""
    html = math_html(source, latex, display)
    if 'class="math-source"' not in html:
        return html
    try:
        shown = re.sub(r"<[^>]*>", "", latex2mathml.converter.convert(latex))
    except Exception:  # noqa: BLE001 - a syntax error: the source it is
        return html
    names = set(_PAPER_MACRO.findall(shown))
    if not names:
        return html
    named = re.compile(r"\\(" + "|".join(sorted(names)) + r")(?![A-Za-z])")
    return math_html(source, named.sub(r"\\operatorname{\1}", latex), display)


# --- Tables whose rows lost their line breaks -------------------------------------------------

_TABLE_RULE = re.compile(r"\|(?:\s*:?-{3,}:?\s*\|){2,}")


def restore_table_rows(text: str) -> str:
    """A Markdown table flattened onto one line (``| a | b ||---|---|| 1 | 2 |`` or rows
    joined by spaces, as in released reports) gets its line breaks back, so it renders as a
    table. Why here: the line breaks were lost upstream; the cells are unchanged."""
    if "|" not in text or not _TABLE_RULE.search(text):
        return text
    return "\n".join(_restore_line(line) for line in text.split("\n"))


def _restore_line(line: str) -> str:
    rule = _TABLE_RULE.search(line)
    if rule is None:
        return line
    n = len(re.findall(r"-{3,}", rule.group()))
    cells = line.split("|")
    dash = [bool(re.fullmatch(r"\s*:?-{3,}:?\s*", c)) for c in cells]
    rule_at = next((i for i in range(len(cells)) if all(dash[i : i + n])), None)
    header_at = None if rule_at is None else rule_at - 1 - n
    if header_at is None or header_at < 0 or cells[rule_at - 1].strip():
        return line  # a well-formed table (the rule on its own line), or not a table
    rows = [cells[header_at : rule_at - 1], cells[rule_at : rule_at + n]]
    i = rule_at + n  # cells[i] ends a row: blank between rows, else the text after the table
    while i + n < len(cells) and not cells[i].strip():
        rows.append(cells[i + 1 : i + 1 + n])
        i += 1 + n
    prefix, suffix = "|".join(cells[:header_at]), "|".join(cells[i + 1 :] and cells[i:])
    if i == len(cells) - 1:
        suffix = cells[i]
    table = "\n".join("|" + "|".join(r) + "|" for r in rows)
    return "\n\n".join(part for part in (prefix.strip(), table, suffix.strip()) if part)


# --- Text -> HTML -----------------------------------------------------------------------------

_TAG = re.compile(r"""<(?:[^>"']|"[^"]*"|'[^']*')*>""")


def substitute_in_text(html: str, open_: str, close: str, inside_text, inside_tag) -> str:
    """Replace ``open_ i close`` placeholders: in text nodes with ``inside_text(i)`` (markup),
    inside a tag (an attribute value) with ``inside_tag(i)`` (plain text, escaped here).

    Why: a placeholder the Markdown put inside an attribute (a link's ``href``) must not
    become markup there; it would break the tag."""
    pattern = re.compile(re.escape(open_) + r"(\d+)" + re.escape(close))
    out, cursor = [], 0
    for tag in _TAG.finditer(html):
        out.append(pattern.sub(lambda m: inside_text(int(m.group(1))), html[cursor : tag.start()]))
        out.append(pattern.sub(lambda m: escape(inside_tag(int(m.group(1)))), tag.group()))
        cursor = tag.end()
    out.append(pattern.sub(lambda m: inside_text(int(m.group(1))), html[cursor:]))
    return "".join(out)


_TABLE_OPEN = re.compile(r"<table\b")


def scrollable_tables(html: str) -> str:
    """Every table in a box that scrolls sideways (keyboard too: focusable, named): a
    7-column table in a 282 px report column is read by scrolling, never clipped (issue 25).
    Applied to sanitized HTML; the wrapper is ours."""
    if "<table" not in html:
        return html
    html = _TABLE_OPEN.sub(
        '<div class="table-scroll" tabindex="0" role="region" aria-label="Table">\\g<0>', html
    )
    return html.replace("</table>", "</table></div>")


def text_to_html(text: str, latex: bool = False) -> SafeString:
    """Untrusted Markdown/HTML text -> safe HTML, formulas as MathML. ``latex``: text read
    from LaTeX (:mod:`annotation.importers.latex_exemplar`): its dollars are LaTeX's
    (:func:`find_math`) and a macro of the paper's own is shown by name
    (:func:`paper_macros`).

    Marked safe (it is sanitized here), so a template shows it as markup, never as
    escaped tags."""
    return mark_safe(_text_to_html(text, latex))  # noqa: S308 - sanitized with nh3 above


#: A macro left in text read from LaTeX: one the paper defines in its own preamble, which
#: DeepScholar's release does not hold (the import names each; ``latex_exemplar``).
_PAPER_MACRO = re.compile(r"\\([A-Za-z]+)")
PAPER_MACRO_NOTE = "a macro of the paper's own LaTeX; the release does not say what it prints"


def paper_macros(text: str, taken: list[tuple[int, int]]) -> list[tuple[int, int, str]]:
    """(start, end, HTML) of each macro left in text read from LaTeX, outside formulas and
    code (``taken``): its name without the backslash, muted and titled as a macro
    (``\\kvcache`` reads "kvcache"), so the reader sees a word, not markup, and is told it
    stands for words the release lacks."""
    code = [(m.start(), m.end()) for m in _CODE.finditer(text)]
    out = []
    for m in _PAPER_MACRO.finditer(text):
        if any(a < m.end() and m.start() < b for a, b in (*taken, *code)):
            continue
        html = f'<span class="muted latex-macro" title="{PAPER_MACRO_NOTE}">{m[1]}</span>'
        out.append((m.start(), m.end(), html))
    return out


def _pieces(text: str, latex: bool) -> list[tuple[int, int, Callable[[], str]]]:
    """What is cut out of ``text`` before it is read as Markdown or escaped, and put back
    as markup built here: (start, end, its HTML when asked), in text order."""
    formulas = find_math(text, latex)
    pieces = [
        (
            start,
            end,
            partial(paper_math_html if latex else math_html, text[start:end], formula, display),
        )  # fmt: skip
        for start, end, formula, display in formulas
    ]
    if latex and "\\" in text:
        taken = [(start, end) for start, end, _, _ in formulas]
        pieces += [(a, b, partial(str, html)) for a, b, html in paper_macros(text, taken)]
    return sorted(pieces, key=lambda piece: piece[0])


def _text_to_html(text: str, latex: bool = False) -> str:
    pieces = _pieces(text, latex)
    parts, cursor = [], 0
    for i, (start, end, _) in enumerate(pieces):
        parts.append(text[cursor:start])
        parts.append(f"{MATH_OPEN}{i}{MATH_CLOSE}")
        cursor = end
    parts.append(text[cursor:])
    html = scrollable_tables(
        sanitize_html(normalise_headings(_markdown().convert(restore_table_rows("".join(parts)))))
    )
    if not pieces:
        return html
    return substitute_in_text(
        html,
        MATH_OPEN,
        MATH_CLOSE,
        lambda i: pieces[i][2](),
        lambda i: text[pieces[i][0] : pieces[i][1]],
    )


#: LaTeX's escapes of characters it reserves, in text: ``50\\%``, ``R\\&D`` (markdown's,
#: ``\\$``, are :data:`_SHOWN_ESCAPE`'s).
_LATEX_ESCAPE = re.compile(r"\\([%&#])")


def latex_text_html(text: str, limit: int | None = None) -> SafeString:
    """Plain text written by LaTeX's rules (DeepScholar's query: an arXiv abstract; a
    BibTeX title) as HTML: inline formulas as MathML (``1.9$\\times$``), an escaped
    character as itself (``KV\\$`` reads "KV$", as a report's ``\\$`` does:
    :func:`shown_claim`; ``1\\%`` reads "1%"), the rest escaped; no Markdown (an abstract
    is no markdown). ``limit``: cut at about that many characters of source (never inside a
    formula), with an ellipsis. Addresses cleaned (:func:`annotation.links.shown_text`)."""
    text = shown_text(text) if isinstance(text, str) else ""
    pieces = _pieces(text, latex=True)
    if limit is not None and len(text) > limit:
        cut = next((a for a, b, _ in pieces if a < limit < b), limit - 1)
        text, pieces = text[:cut].rstrip() + "…", [p for p in pieces if p[1] <= cut]
    out, cursor = [], 0
    for start, end, html in [*pieces, (len(text), len(text), partial(str, ""))]:
        plain = _LATEX_ESCAPE.sub(r"\1", shown_claim(text[cursor:start]))
        out.append(escape(plain) + html())
        cursor = end
    return mark_safe("".join(out))  # noqa: S308 - text escaped, MathML sanitized


def report_label(index: int) -> str:
    return f"Report {ascii_uppercase[index]}"


def safe_url(url: str) -> str:
    """The one link rule (:mod:`annotation.links`): an http(s) address, else "", without
    tracking parameters (a system's name in them: blinding)."""
    return shown_url(url)


@dataclass
class RenderedParagraph:
    number: int
    html: SafeString
    citation_keys: list[str]
    pk: int


@dataclass
class RenderedSection:
    title: str
    paragraphs: list[RenderedParagraph] = field(default_factory=list)
    table_html: SafeString | str = ""


@dataclass
class RenderedReport:
    label: str
    letter: str
    public_id: str
    report: Report
    sections: list[RenderedSection]
    citations: dict[str, Citation]
    #: The report's references, every source it lists (:func:`references_html`).
    references: SafeString | str = ""

    #: Per-paragraph form controls of the task, if any: controls(report, paragraph) -> HTML.
    controls: object = None

    @property
    def paragraphs(self) -> list[RenderedParagraph]:
        return [p for s in self.sections for p in s.paragraphs]

    @property
    def html(self) -> SafeString:
        return report_html(self, self.controls)


@dataclass(frozen=True)
class Source:
    """What an annotator reads of one cited source, in every task that shows it (a chip's
    tip in a report, a claim check's card): one reading, so a source is shown alike
    wherever it appears and whichever system cited it (issue 24).

    ``title``: the source's title, else its address's host and path
    (:func:`annotation.links.address_title`: a source that is only an address, as all of
    Perplexity's are, is still told apart from the others), else "Source" and its key.
    ``url``: the address an annotator may open (:func:`annotation.links.shown_url`), "" when
    there is none; a source with one is always openable, whatever else it lacks."""

    key: str
    title: str
    snippets: tuple[str, ...]
    url: str


def source_of(citation: Citation | None, key: str) -> Source:
    """The :class:`Source` an annotator reads for ``citation`` (``None``: a key the report
    does not list, shown as a source with nothing)."""
    if citation is None:
        return Source(key, f"Source {key}", (), "")
    url = safe_url(citation.url or "")
    # every address in a title or snippet cleaned as the link is, a text fragment's shape
    # shown as an elision (annotation.links)
    title = shown_title(citation.title.strip()) or address_title(url) or f"Source {key}"
    snippets = tuple(
        shown_snippet(s) for s in citation.snippets or [] if isinstance(s, str) and s.strip()
    )
    return Source(key, title, snippets, url)


def source_html(source: Source, max_snippets: int | None = None) -> SafeString:
    """A source's title, snippets (else one line saying none was supplied) and link (an
    http(s) address opened in a new tab with no referrer nor opener, else a line saying
    none): the same markup for every source (issue 24), in every task."""
    snippets = source.snippets[:max_snippets] if max_snippets else source.snippets
    shown = (
        format_html_join("", '<span class="cite-snippet">“{}”</span>', ((s,) for s in snippets))
        if snippets
        else format_html('<span class="cite-snippet cite-none">{}</span>', "No snippet supplied.")
    )
    link = (
        format_html(
            '<a class="cite-link" href="{}" target="_blank" rel="noopener noreferrer nofollow">Open source</a>',
            source.url,
        )
        if source.url
        else format_html('<span class="cite-link cite-none">{}</span>', "No link supplied.")
    )
    return format_html(
        '<strong class="cite-title">{}</strong><span class="cite-snippets">{}</span>{}',
        source.title,
        shown,
        link,
    )


def citation_html(citation: Citation, marker: str, tip_id: str) -> SafeString:
    """An inline citation: focusable, its source shown on hover and focus.

    Every chip has the same markup whatever the source supplied (issue 24: chips differing
    by what a system supplies — a "bare citation" note, a dashed title-only chip — told the
    systems apart): one ``cite`` button, and a tip of the source as every task shows it
    (:func:`source_html`: a title, a snippet area, a link area). The support scale of the
    metric-wise claim form (``data-kind``, :attr:`Citation.scale`) stays in an attribute
    and is not shown."""
    return format_html(
        '<span class="cite-wrap"><button type="button" class="cite" data-cite="{}" data-kind="{}" '
        'aria-describedby="{}">{}</button><span class="cite-tip" role="tooltip" id="{}">'
        "{}</span></span>",
        citation.key,
        citation.scale,
        tip_id,
        marker,
        tip_id,
        source_html(source_of(citation, citation.key), MAX_SNIPPETS),
    )


#: Headings inside a paragraph's text, at whatever level a system wrote them (``###`` …).
_HEADING_TAG = re.compile(r"<(/?)h[1-6](\s[^>]*)?>")
#: The one level they are shown at (the report's own section titles are h3).
INLINE_HEADING = "h4"


def normalise_headings(html: str) -> str:
    """Every heading inside a paragraph at one level: a system's habit of ``###`` or
    ``####`` inside its text is no fingerprint (issue 24)."""
    return _HEADING_TAG.sub(lambda m: f"<{m.group(1)}{INLINE_HEADING}>", html)


def _strip_placeholders(text: str) -> str:
    for c in PRIVATE:
        text = text.replace(c, "")
    return text


def paragraph_html(paragraph: Paragraph, anchors, citations: dict[str, Citation], prefix: str):
    """Paragraph text with its citation anchors (``[start, end, key]``, as
    :attr:`Paragraph.anchors` stores them) turned into interactive markers.

    The work is done by :func:`_render_paragraph`, a pure function of plain values, cached:
    Markdown costs about a millisecond per paragraph and report content does not change.
    """
    marks = tuple(
        (start, end, _citation_key(citations[key]))
        for start, end, key in sorted(anchors, key=lambda a: a[0])
        if key in citations
    )
    html, keys = _render_paragraph(paragraph.text, marks, prefix)
    return mark_safe(html), list(keys)  # noqa: S308 - sanitized, markers built with format_html


def _citation_key(c: Citation) -> tuple:
    return (c.key, c.title, tuple(s for s in c.snippets or [] if isinstance(s, str)), c.url or "")


#: Closing punctuation right after a marker, across spaces and one line break ("as shown
#: [3]\n."), not a word's opening dot (".NET"): kept with the chip in one no-wrap span
#: (``.cite-end``), or the page wrapped the period onto a line of its own.
_PUNCTUATION_AFTER = re.compile(r"[ \t]*(?:\n[ \t]*)?([,.;:!?]+)(?!\w)")


@lru_cache(maxsize=20_000)
def _render_paragraph(source: str, cited: tuple, prefix: str) -> tuple[str, tuple[str, ...]]:
    markers: list[SafeString] = []
    marker_texts: list[str] = []
    keys: list[str] = []
    out, cursor = [], 0
    for start, end, (key, title, snippets, url) in cited:
        if start < cursor or end > len(source):
            continue
        citation = Citation(key=key, title=title, snippets=list(snippets), url=url)
        # addresses cleaned as a citation's link is (blinding), in a report stored before
        # the rule too: between markers, so the anchors' offsets still hold
        out.append(_strip_placeholders(shown_text(source[cursor:start])))
        marker = _strip_placeholders(source[start:end]).strip() or key
        chip = citation_html(citation, marker, f"{prefix}-c{len(markers)}")
        after = _PUNCTUATION_AFTER.match(source, end)
        if after:  # the punctuation goes with the chip, the line break before it goes
            chip = format_html('<span class="cite-end">{}{}</span>', chip, after.group(1))
            marker += after.group(1)
            end = after.end()
        marker_texts.append(marker)
        markers.append(chip)
        keys.append(key)
        out.append(f"{PH_OPEN}{len(markers) - 1}{PH_CLOSE}")
        cursor = end
    out.append(_strip_placeholders(shown_text(source[cursor:])))
    html = text_to_html("".join(out))
    html = substitute_in_text(
        html, PH_OPEN, PH_CLOSE, lambda i: markers[i], lambda i: marker_texts[i]
    )
    return html.replace(PH_OPEN, "").replace(PH_CLOSE, ""), tuple(keys)


_TABLE_MARKER = re.compile(r"\[(\d+)\]")


def table_html(table, citations: dict[str, Citation] | None = None, prefix: str = "t"):
    """A section table as a list, as the guidelines recommend (cells escaped); a table
    given as Markdown text (ScholarQA: ``{"title", "text"}``) as a sanitized table whose
    ``[n]`` markers of the report's sources are linked like a paragraph's (issue 25)."""
    if isinstance(table, dict) and isinstance(table.get("text"), str):
        title = str(table.get("title") or "")
        caption = format_html('<p class="table-title">{}</p>', title) if title else ""
        by_key = citations or {}
        marks = tuple(
            (m.start(), m.end(), _citation_key(by_key[m.group(1)]))
            for m in _TABLE_MARKER.finditer(table["text"])
            if m.group(1) in by_key
        )
        html, _ = _render_paragraph(table["text"], marks, prefix)
        return format_html(
            '{}<div class="report-table-md">{}</div>',
            caption,
            mark_safe(html),  # noqa: S308 - sanitized, markers built with format_html
        )
    if isinstance(table, dict):
        columns = [str(c) for c in table.get("columns") or table.get("header") or []]
        rows = table.get("rows") or table.get("data") or []
    elif isinstance(table, list):
        columns, rows = [], table
    else:
        return ""
    items = []
    for row in rows:
        if isinstance(row, dict):
            pairs = [(str(k), str(v)) for k, v in row.items()]
        elif isinstance(row, list | tuple):
            names = columns or [""] * len(row)
            pairs = [(names[i] if i < len(names) else "", str(v)) for i, v in enumerate(row)]
        else:
            pairs = [("", str(row))]
        items.append(
            format_html(
                "<li>{}</li>",
                format_html_join(
                    "; ", "{}{}", ((f"{k}: " if k else "", v) for k, v in pairs if v or k)
                ),
            )
        )
    if not items:
        return ""
    return format_html('<ul class="report-table">{}</ul>', mark_safe("".join(items)))  # noqa: S308


def load_reports(report_ids: list[int]) -> list[Report]:
    """Reports with everything rendering needs, in the given order: three queries in all.

    Every task page, autosave and submit loads its reports (the forms' checks need their
    paragraphs and citations), so this is read by hand rather than by nested
    ``prefetch_related`` (issue 29: Django's prefetch machinery — an ``IN`` filter per
    level, keys read per object — was a quarter of a saturated worker's CPU). What was read
    is left on the instances as plain lists: ``report.loaded_sections``,
    ``report.loaded_citations`` (by key) and ``section.loaded_paragraphs``, which
    :func:`render_report` reads; a paragraph's anchors are its own column. Not a prefetch
    cache: building a related queryset per instance for it was a third of this function's
    CPU (issue 29), and nothing else reads these relations.
    Not read: the released record each report keeps (``original``: tens of KB of JSON for
    real data, decoded on every request for nothing)."""
    reports = {r.pk: r for r in Report.objects.filter(pk__in=report_ids).defer("original")}
    ids = list(reports)
    sections, paragraphs = defaultdict(list), defaultdict(list)
    by_pk = {}
    for s in Section.objects.filter(report_id__in=ids).order_by("position"):
        s.report = reports[s.report_id]
        sections[s.report_id].append(s)
        by_pk[s.pk] = s
    for p in Paragraph.objects.filter(report_id__in=ids).order_by("number"):
        p.section, p.report = by_pk[p.section_id], reports[p.report_id]
        paragraphs[p.section_id].append(p)
    for s in by_pk.values():
        s.loaded_paragraphs = paragraphs[s.pk]
    for pk, r in reports.items():
        r.loaded_sections, r.loaded_citations = sections[pk], cited(r.citations)
    return [reports[i] for i in report_ids if i in reports]


def render_report(report: Report, index: int) -> RenderedReport:
    letter = ascii_uppercase[index]
    citations = report.loaded_citations
    sections = []
    cited_keys: dict[str, None] = {}  # the sources the text cites, in order of first citation
    for section in report.loaded_sections:
        # a section's title is text annotators read: its addresses cleaned (annotation.links)
        rendered = RenderedSection(title=shown_text(section.title or ""))
        for p in section.loaded_paragraphs:
            html, keys = paragraph_html(p, p.anchors, citations, f"r{letter}-p{p.number}")
            cited_keys.update(dict.fromkeys(keys))
            rendered.paragraphs.append(
                RenderedParagraph(number=p.number, html=html, citation_keys=keys, pk=p.pk)
            )
        if section.table:
            rendered.table_html = table_html(
                section.table, citations, f"r{letter}-t{section.position}"
            )
            if isinstance(section.table, dict) and isinstance(section.table.get("text"), str):
                cited_keys.update(
                    (m.group(1), None)
                    for m in _TABLE_MARKER.finditer(section.table["text"])
                    if m.group(1) in citations
                )
        sections.append(rendered)
    label = report_label(index)
    return RenderedReport(
        label=label,
        letter=letter,
        public_id=report.public_id,
        report=report,
        sections=sections,
        citations=dict(citations),
        references=references_html(citations, list(cited_keys), label),
    )


#: A group of references longer than this is shown folded (its count in its summary).
REFERENCES_OPEN = 10


def _reference_item(citation: Citation, number: str = "") -> str:
    """One source of the report's references: its number in the text (cited), the entry
    as the report lists it (else the source's title as a chip shows it) and its link."""
    source = source_of(citation, citation.key)
    listed = (citation.metadata or {}).get(LISTED_AS)
    words = shown_title(listed.strip()) if isinstance(listed, str) and listed.strip() else ""
    address = address_title(source.url) if source.url else ""
    words = words or ("" if source.title == address else source.title)
    # the key as its chips show it: "[1]" or "(Min et al., 2021)" already carry their
    # brackets ("[[1]]" before); a bare key is bracketed
    shown = number if number[:1] in ("[", "(", "【") else f"[{number}]"
    parts = [f'<span class="ref-num">{escape(shown)}</span> ' if number else ""]
    if words:
        parts.append(f'<span class="ref-text">{escape(words)}</span>')
    if source.url:
        parts.append(
            f'{" " if words else ""}<a class="ref-link" href="{escape(source.url)}" '
            f'target="_blank" rel="noopener noreferrer nofollow">{escape(address)}</a>'
        )
    elif not words:
        parts.append(f'<span class="ref-text">{escape(source.title)}</span>')
    return f'<li class="ref">{"".join(parts)}</li>'


def _reference_group(title: str, items: list[str]) -> str:
    """A group of references, folded when long (:data:`REFERENCES_OPEN`)."""
    opened = " open" if len(items) <= REFERENCES_OPEN else ""
    return (
        f'<details class="ref-group"{opened}><summary>{escape(title)} ({len(items)})</summary>'
        f'<ul class="ref-list">{"".join(items)}</ul></details>'
    )


def references_html(citations: dict[str, Citation], cited_keys: list[str], label: str) -> str:
    """Every source the report lists, after its text, as the system wrote its references:
    those its text cites first, in the order of their first citation, each with the number
    its chips show (``[n]``); then those it lists but never cites ("Listed but not cited in
    the text (N)"). A group longer than :data:`REFERENCES_OPEN` is folded, its count in its
    summary. "" for a report with no source.

    Why: a source the text does not cite was stored and never shown (Perplexity's
    ResearcherBench report 1 defines 231 footnotes and cites 18; Mita's lists 374 and cites
    26), and the reference list itself appeared nowhere: annotators did not read the report
    as its system wrote it. Built from the sources the page read already (no query), in
    one markup for every report (blinding: what differs is what the systems listed)."""
    if not citations:
        return ""
    cited = [_reference_item(citations[k], k) for k in cited_keys if k in citations]
    shown = set(cited_keys)
    uncited = [_reference_item(c) for k, c in citations.items() if k not in shown]
    groups = []
    if cited:
        groups.append(_reference_group("Cited in the text", cited))
    if uncited:
        groups.append(_reference_group("Listed but not cited in the text", uncited))
    return (
        f'<section class="report-references" aria-label="{escape(label)}, references">'
        f"<h3>References</h3>{''.join(groups)}</section>"
    )


def render_reports(report_ids: list[int]) -> list[RenderedReport]:
    return [render_report(r, i) for i, r in enumerate(load_reports(report_ids))]


#: Seconds an autosave may reuse a report this process read and rendered for an earlier
#: autosave (``recent_reports``), and how many rendered reports a process keeps.
RECENT_REPORT_SECONDS = 60
RECENT_REPORT_LIMIT = 512
_recent: OrderedDict[tuple[int, int], tuple[float, RenderedReport]] = OrderedDict()
_recent_lock = threading.Lock()


def recent_reports(report_ids: list[int]) -> list[RenderedReport]:
    """``render_reports(report_ids)``, reusing what this process read and rendered within
    ``RECENT_REPORT_SECONDS``: for autosaves only.

    An annotator autosaves every few seconds and each save's checks need the task's reports
    (ids, paragraphs, citation keys); reading and rendering them again was a third of a
    save's CPU (issue 29). Report content changes only when a report is imported again;
    for at most a minute after that an autosave may be checked against the previous
    version. An autosave only stores the draft's JSON, and the submit, which writes the
    judgment rows, always reads the reports afresh (``render_reports``). Shared between
    threads: the autosave path never changes a ``RenderedReport`` (only the pages' context
    sets ``controls``, on reports of their own)."""
    now = time.monotonic()
    keys = [(pk, i) for i, pk in enumerate(report_ids)]
    with _recent_lock:
        found = {k: hit[1] for k in keys if (hit := _recent.get(k)) and hit[0] > now}
    missing = [pk for pk, i in keys if (pk, i) not in found]
    if missing:
        loaded = {r.pk: r for r in load_reports(missing)}
        if len(loaded) < len(missing):  # a report gone: as render_reports does, fresh
            return render_reports(report_ids)
        fresh = {(pk, i): render_report(loaded[pk], i) for pk, i in keys if pk in loaded}
        _keep(fresh, now)
        found.update(fresh)
    return [found[k] for k in keys]


def remember(report_ids: list[int], rendered: list[RenderedReport]) -> None:
    """Offer what a task page just read and rendered to its autosaves (``recent_reports``):
    the page's first autosave then reads no report either (issue 29: it was a fifth of all
    autosaves, each reading and rendering the task's reports again). Copies are kept, so a
    page setting its own ``controls`` changes nothing the autosaves share. Only a complete
    set is kept (a report gone since the order was drawn leaves the order as it was)."""
    if len(rendered) != len(report_ids):
        return
    fresh = {
        (pk, i): replace(r, controls=None)
        for i, (pk, r) in enumerate(zip(report_ids, rendered, strict=True))
        if r.report.pk == pk
    }
    _keep(fresh, time.monotonic())


def _keep(fresh: dict[tuple[int, int], RenderedReport], now: float) -> None:
    with _recent_lock:
        for k, rendered in fresh.items():
            _recent[k] = (now + RECENT_REPORT_SECONDS, rendered)
            _recent.move_to_end(k)
        while len(_recent) > RECENT_REPORT_LIMIT:
            _recent.popitem(last=False)


#: Renderings a process keeps for :func:`page_reports` (a report rendered at each of the
#: places it is shown at: three per report at most with three reports a task); each keeps
#: its HTML and the report's row, not the rows it was rendered from.
PAGE_REPORT_LIMIT = 512
_rendered: OrderedDict[tuple[int, str, int, int], RenderedReport] = OrderedDict()
_rendered_lock = threading.Lock()


def page_reports(
    report_ids: list[int], versions: dict[int, tuple[str, int]]
) -> list[RenderedReport]:
    """``render_reports(report_ids)``, reusing what this process rendered before for the
    same report at the same place, as long as its content is the same: ``versions`` gives
    each report's public id and ``content_version`` as read in this request (by
    ``ensure_report_order``, in the query it makes anyway).

    Why: reading a task's three reports (three queries, hundreds of model instances) and
    rendering them was about a quarter of a task page's CPU, and the same reports are read
    again for every save and submit of the task (issue 29). Report content changes only
    through writers that bump ``content_version`` (the structure writer, ``normalise_reports``,
    the admin), so a kept rendering is never older than the request's own read. The key
    holds the place (``Report A``…; the tips' ids depend on it), so per-annotator orders
    stay as drawn; and the public id, so a database restored over another (ids reused)
    never meets a rendering of the other's report. Each call gets its own copies (a page
    sets ``controls`` on them); what they share is never changed after rendering."""
    keys = {}
    for i, pk in enumerate(report_ids):
        if pk not in versions:  # not a report of the question (any more): fresh, as before
            return render_reports(report_ids)
        keys[pk, i] = (pk, *versions[pk], i)
    with _rendered_lock:
        found = {k: hit for k, key in keys.items() if (hit := _rendered.get(key)) is not None}
        for k in found:
            _rendered.move_to_end(keys[k])
    missing = [pk for pk, i in keys if (pk, i) not in found]
    if missing:
        loaded = {r.pk: r for r in load_reports(missing)}
        if len(loaded) < len(set(missing)):  # a report gone since: as render_reports does
            return render_reports(report_ids)
        fresh = {(pk, i): render_report(loaded[pk], i) for pk, i in keys if (pk, i) not in found}
        for report in loaded.values():  # rendered: the rows read for it need not be kept
            del report.loaded_sections, report.loaded_citations
        with _rendered_lock:
            for k, rendered in fresh.items():
                if loaded[k[0]].content_version == keys[k][2]:  # unchanged since the read
                    _rendered[keys[k]] = rendered
                    _rendered.move_to_end(keys[k])
            while len(_rendered) > PAGE_REPORT_LIMIT:
                _rendered.popitem(last=False)
        found.update(fresh)
    return [replace(found[k]) for k in keys]


def forget_page_reports() -> None:
    """Drop the renderings this process keeps (tests: a page's queries with none kept)."""
    with _rendered_lock:
        _rendered.clear()


__all__ = [
    "RenderedReport",
    "escape",
    "page_reports",
    "render_reports",
    "sanitize_html",
    "text_to_html",
]


def report_html(report: RenderedReport, controls=None) -> SafeString:
    """The whole report as reading HTML; ``controls(report, paragraph)`` adds per-paragraph
    form controls (e.g. relevance). Built in Python with plain formatting of escaped values:
    a template loop (or format_html) over hundreds of paragraphs would dominate the page."""
    letter, pid, label = escape(report.letter), escape(report.public_id), escape(report.label)
    focusable = ' tabindex="-1"' if controls else ""
    sections = []
    for section in report.sections:
        parts = [f"<h3>{escape(section.title)}</h3>" if section.title else ""]
        if section.table_html:
            note = (
                ""
                if "report-table-md" in section.table_html
                else ('<p class="table-note">Table (shown as a list)</p>')
            )
            parts.append(f"{note}{section.table_html}")
        for p in section.paragraphs:
            n = int(p.number)
            extra = controls(report, p) if controls else ""
            parts.append(
                f'<div class="para" id="p-{letter}-{n}" data-paragraph="{n}" data-report="{pid}"{focusable}>'
                f'<span class="para-num" aria-hidden="true">¶{n}</span>'
                f'<div class="para-body" aria-label="{label}, paragraph {n}">{p.html}</div>{extra}</div>'
            )
        sections.append(f'<section class="report-section">{"".join(parts)}</section>')
    body = "".join(sections) or '<p class="muted">This report is empty.</p>'
    return mark_safe(  # noqa: S308 - values escaped above; paragraph HTML is sanitized
        f'<article class="report" id="report-{letter}" aria-labelledby="report-{letter}-h" '
        f'data-report="{pid}"><h2 id="report-{letter}-h" class="report-label">{label}</h2>'
        f"{body}{report.references}</article>"
    )


# --- What an annotator can select in a paragraph ------------------------------------------
#: Elements with no end tag (the parser sees no end for them).
_VOID = frozenset({"br", "img", "hr", "wbr", "input", "mspace"})


class _ShownText(HTMLParser):
    """The text of a rendered paragraph as the page's selection reads it: every text node
    but those of a citation's tooltip (``claims.js`` ``cleanText`` removes ``.cite-tip``)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.tip_depth = 0

    def handle_starttag(self, tag, attrs):
        if tag in _VOID:
            return
        if self.tip_depth:
            self.tip_depth += 1
        elif tag == "span" and "cite-tip" in (dict(attrs).get("class") or "").split():
            self.tip_depth = 1

    def handle_endtag(self, tag):
        if self.tip_depth and tag not in _VOID:
            self.tip_depth -= 1

    def handle_data(self, data):
        if not self.tip_depth:
            self.parts.append(data)


def letters(text: str) -> str:
    """``text``'s letters and digits, as written: what a selection of it and the page's
    text have in common whatever the browser does with spaces, entities and line breaks
    (case is kept: a selection keeps it, and a claim re-cased is not the report's text)."""
    return "".join(c for c in text if c.isalnum())


def selectable_letters(html: str) -> str:
    """:func:`letters` of the text an annotator can select in a paragraph rendered as
    ``html`` (:attr:`RenderedParagraph.html`): a claim taken from it by selection
    (metric-wise, ScholarQA-CS2 guidelines Part 1) is a run of these."""
    parser = _ShownText()
    parser.feed(str(html))
    parser.close()
    return letters("".join(parser.parts))


#: Citation markers a claim's text may carry, as the reader reads them in a system's
#: markdown (``[3]``, ``[^9]``, ``\\[2\\]``, ``[1, 4]``, ``【5】``, ``[citation:2]``): a claim
#: names its sources in its own field, and markers written in the released numbering
#: (``[^9][^11]``, shown ``[1][2]``) say nothing of where it stands.
CITATION_MARKER = re.compile(
    r"\\?\[\^?\s*\d+(?:\s*[,–-]\s*\d+)*\s*\^?\\?\]|【\d+[^】]*】|\[citation:\s*\d+\]"
)


class _ReadText(_ShownText):
    """The text of a rendered paragraph as a reader reads its words: :class:`_ShownText`
    without the citation chips either (``button.cite``: ``[1]``)."""

    def handle_starttag(self, tag, attrs):
        chip = tag == "button" and "cite" in (dict(attrs).get("class") or "").split()
        if chip and not self.tip_depth:
            self.tip_depth = 1
            return
        super().handle_starttag(tag, attrs)


def claim_letters(text: str) -> str:
    """:func:`letters` of a claim's text, its citation markers left out."""
    return letters(CITATION_MARKER.sub(" ", text))


def claim_spans(html: str, text: str) -> list[str]:
    """Every place where the paragraph rendered as ``html`` holds the claim ``text``: the
    metric-wise rule (:func:`letters` of the text against those of what an annotator can
    select: :func:`selectable_letters`), citation markers left out on both sides
    (:data:`CITATION_MARKER`, the chips). Each as the page shows it, first letter to last,
    spaces collapsed: markdown (``**``, ``\\_``) read as the reader reads it."""
    parser = _ReadText()
    parser.feed(str(html))
    parser.close()
    chars = "".join(parser.parts)
    at = [i for i, c in enumerate(chars) if c.isalnum()]
    hay = "".join(chars[i] for i in at)
    wanted = claim_letters(text)
    # what the text has before its first letter and after its last (a closing period, a
    # quote, a parenthesis), markers and emphasis marks left out: kept when the page shows
    # it there too, so a claim is stored as given ("… document." keeps its period)
    plain = re.sub(r"\*\*|__", "", CITATION_MARKER.sub(" ", text)).strip()
    lead = re.match(r"[^\w\s]*", plain).group()
    tail = re.search(r"[^\w\s]*$", plain).group()
    out, start = [], hay.find(wanted) if wanted else -1
    while start >= 0:
        first, last = at[start], at[start + len(wanted) - 1] + 1
        if lead and chars[max(first - len(lead), 0) : first] == lead:
            first -= len(lead)
        if tail and chars[last : last + len(tail)] == tail:
            last += len(tail)
        out.append(" ".join(chars[first:last].split()))
        start = hay.find(wanted, start + 1)
    return out


class _Highlighter(_ReadText):
    """A rendered paragraph written again with its read letters ``start`` to ``end``
    (:func:`claim_spans` positions) and what stands between them in ``<mark>``: each text
    node's part its own mark, so the tags stay nested as they were."""

    def __init__(self, start: int, end: int) -> None:
        super().__init__()
        self.start, self.end, self.seen = start, end, 0
        self.out: list[str] = []

    def handle_starttag(self, tag, attrs):
        super().handle_starttag(tag, attrs)
        self.out.append(self.get_starttag_text() or "")

    def handle_startendtag(self, tag, attrs):
        self.out.append(self.get_starttag_text() or "")

    def handle_endtag(self, tag):
        super().handle_endtag(tag)
        self.out.append(f"</{tag}>")

    def handle_data(self, data):
        if self.tip_depth:  # a chip or its tip: shown, never counted nor marked
            self.out.append(escape(data))
            return
        run: list[str] = []
        marked = False
        for ch in data:
            if ch.isalnum():
                inside = self.start <= self.seen < self.end
                self.seen += 1
            else:  # between two letters of the claim
                inside = self.start < self.seen < self.end
            if inside != marked and run:
                text = escape("".join(run))
                self.out.append(f"<mark>{text}</mark>" if marked else text)
                run = []
            marked = inside
            run.append(ch)
        if run:
            text = escape("".join(run))
            self.out.append(f"<mark>{text}</mark>" if marked else text)


def highlighted(html: str, text: str) -> SafeString | None:
    """The paragraph rendered as ``html`` with the claim ``text`` in ``<mark>``, found as
    :func:`claim_spans` finds it (its first place); None when the paragraph does not
    hold it."""
    parser = _ReadText()
    parser.feed(str(html))
    parser.close()
    wanted = claim_letters(text)
    start = letters("".join(parser.parts)).find(wanted) if wanted else -1
    if start < 0:
        return None
    marker = _Highlighter(start, start + len(wanted))
    marker.feed(str(html))
    marker.close()
    return mark_safe("".join(marker.out))  # noqa: S308 - the sanitized HTML, text re-escaped
