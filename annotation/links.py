"""The one rule for what becomes a link (issue 24): only an http(s) address.

Imported files are written by others: a citation's ``url`` of ``javascript:alert(9)`` or
``data:…`` would run or load in an annotator's browser if it reached an ``href`` (the CSP
would block most of it; a rule here means it never gets that far). Every importer reads a
URL through :func:`web_url` (refusing it, or dropping it with a warning naming the record
and field), and every page renders an ``href`` from a stored URL through the same function
(``rendering.safe_url``, the ``web_url`` template filter), so a URL stored before this rule
or through another path is never a link either.
"""

from __future__ import annotations

import re
from urllib.parse import unquote, unquote_plus, urlsplit

SCHEMES = ("http://", "https://")
#: The metadata key of a listed source an inline link cites, titled by its entry's title
#: (:func:`annotation.importers.markdown.listed_title`): the entry's words as the report
#: lists them, which the report's references show (:func:`annotation.rendering.references_html`).
LISTED_AS = "listed_as"


def is_web_url(url) -> bool:
    """An http(s) address (leading or trailing spaces are not allowed: they are not one)."""
    return isinstance(url, str) and url.lower().startswith(SCHEMES) and url == url.strip()


def web_url(url) -> str:
    """``url`` when it is an http(s) address, else ""."""
    return url if is_web_url(url) else ""


#: What a link's query may carry that never changes the page it opens but tells an annotator
#: which system cited it (blinding): one declaration, read by :func:`without_tracking`, which
#: every address shown to annotators goes through (import: ``normalise`` via :func:`clean_url`; pages
#: and the annotator API: :func:`shown_url`). Counts are of the released reports under
#: ``../shared/data`` (every system of every benchmark, scanned for parameters and
#: fragments naming a vendor or tracking a click).
#:
#: Analytics tags, removed whatever their value: Google Analytics' ``utm_*`` campaign
#: parameters (gpt-4o-search-preview's ResearcherBench responses: ``?utm_source=openai`` on
#: 434 links; Mita's: ``utm_source=chatgpt.com``) and HubSpot's ``hsa_*``.
TRACKING_PREFIXES = ("utm_", "hsa_")
#: Tracking keys removed whatever their value: Doubao's own (ResearcherBench
#: ``user_data/Doubao.json``: ``upstream_biz=doubao`` on 306 links, ``baike_source=doubao``
#: on 8), and the click ids and referral tags of ad and analytics platforms (Facebook,
#: Google, Microsoft, Yandex, Mailchimp, HubSpot, Instagram, LinkedIn, Alibaba's ``spm``).
TRACKING_KEYS = frozenset(
    {
        "upstream_biz",
        "baike_source",
        "spm",
        "fbclid",
        "gclid",
        "gclsrc",
        "dclid",
        "gbraid",
        "wbraid",
        "msclkid",
        "yclid",
        "srsltid",
        "mc_cid",
        "mc_eid",
        "_hsenc",
        "_hsmi",
        "igshid",
        "li_fat_id",
    }
)
#: Names of answer engines and their makers: a parameter whose value is one of them
#: (``source=mita``: Mita's ResearcherBench responses; ``ref=chatgpt.com``), or whose key
#: holds one as a word (``doubao_from=…``), names the system that cited the link and goes.
#: Only as a whole value (or a domain: ``perplexity.ai``), so a search for "claude shannon"
#: keeps its ``q=``; and never a parameter in ``CONTENT_KEYS``.
VENDORS = frozenset(
    {
        "doubao", "mita", "metaso", "openai", "chatgpt", "perplexity", "pplx", "gemini",
        "bard", "claude", "anthropic", "grok", "xai", "kimi", "moonshot", "qwen", "tongyi",
        "deepseek", "bing", "copilot", "youcom", "phind", "elicit", "scite", "openscholar",
        "scholarqa", "genspark", "toutiao", "bytedance",
    }
)  # fmt: skip
#: Vendors whose name is also an ordinary word, which a page's own parameters use for what
#: they show: ``?topic=storm`` (a weather or history page), ``?model=falcon`` (the Falcon
#: LLM's model card), ``?q=…&sort=consensus``, ``?hand=manus``. Removing every parameter
#: whose value is such a word changed what the link opened, and told annotators nothing
#: less: blinding needs only the parameters that say *who sent the click*. So these names
#: are read only as the value of a referral key (``REFERRAL_KEYS``: ``ref=storm``,
#: ``source=consensus``, ``via=manus``; ``utm_*`` goes anyway), or as the vendor's own
#: domain under any key (``VENDOR_VALUES``: ``consensus.app``); never from a key's words
#: (``storm_id`` is a page's). What a referral tag of these systems would be is still
#: removed, and a page's own parameter is kept. No released report's address holds one
#: of these words as a parameter's value or key (ScholarQA-CS2, ResearcherBench,
#: DeepScholar-Bench: none), so nothing released changes either way.
COMMON_WORD_VENDORS = frozenset({"storm", "falcon", "consensus", "manus"})
#: Keys whose value says where a click came from (the referrer, the sending app or site).
REFERRAL_KEYS = frozenset(
    {
        "ref", "referrer", "referer", "referral", "source", "src", "from", "via", "origin",
        "client", "app", "partner", "campaign", "affiliate", "aff", "shared_from", "sender",
    }
)  # fmt: skip
#: Whole values naming a vendor that ``VENDORS``' words do not: You.com is "you"; the
#: common-word vendors' own domains (``COMMON_WORD_VENDORS``).
VENDOR_VALUES = frozenset(
    {"you.com", "consensus.app", "manus.im", "manus.space", "storm.genie.stanford.edu"}
)
#: Parameters that say which page to open (a search's words, a record's id, a DOI): kept
#: even when their value is a vendor's name (Google Scholar ``?q=openai``).
CONTENT_KEYS = frozenset(
    {"q", "query", "search", "s", "id", "doi", "title", "name", "p", "page", "article", "v"}
)
_WORD = re.compile(r"[a-z0-9]+")


def _names_a_vendor(value: str, key: str = "") -> bool:
    """A parameter value that is a vendor's name, or a vendor's domain (``chatgpt.com``,
    ``www.perplexity.ai``), percent-decoded and in any case; a name that is also an
    ordinary word (``COMMON_WORD_VENDORS``) only as the value of a referral ``key``."""
    value = unquote_plus(value).strip().lower().removeprefix("www.")
    if value in VENDORS or value in VENDOR_VALUES:
        return True
    name, dot, _ = value.partition(".")
    name = name if dot else value
    if name in COMMON_WORD_VENDORS:
        return key in REFERRAL_KEYS
    return bool(dot) and name in VENDORS


def is_tracking(parameter: str) -> bool:
    """A ``key=value`` of a query (or fragment) that tells who sent a click, not what to
    open: a tracking key, a key naming a vendor, or a vendor's name as its value."""
    key, _, value = parameter.partition("=")
    key = unquote_plus(key).strip().lower()
    if key.startswith(TRACKING_PREFIXES) or key in TRACKING_KEYS:
        return True
    if key in CONTENT_KEYS:
        return False
    return any(w in VENDORS for w in _WORD.findall(key)) or _names_a_vendor(value, key)


def _kept(parameters: str) -> str:
    return "&".join(p for p in parameters.split("&") if not is_tracking(p))


def without_tracking(url: str) -> str:
    """``url`` without its tracking parameters (:func:`is_tracking`), in its query and in a
    fragment made only of ``key=value`` pairs (``#utm_source=x``), every other character
    as written (no re-encoding of the parameters kept, a path never touched)."""
    if "=" not in url:
        return url
    base, hash_, fragment = url.partition("#")
    path, question, query = base.partition("?")
    if question:
        query = _kept(query)
        base = path + ("?" + query if query else "")
    if hash_ and _FRAGMENT_PARAMETERS.fullmatch(fragment):
        fragment = _kept(fragment)
        hash_ = "#" if fragment else ""
    return base + hash_ + fragment


#: A fragment written as query parameters (``#utm_source=x&page=2``), not an anchor or a
#: text fragment (``#sec-2``, ``#:~:text=…``).
_FRAGMENT_PARAMETERS = re.compile(r"[\w.\-%]+=[^&#]*(?:&[\w.\-%]+=[^&#]*)*")


def shown_url(url) -> str:
    """The address an annotator may follow and read: an http(s) address (:func:`web_url`)
    without a text fragment nor tracking parameters (:func:`clean_url`), else "". Pages and the
    annotator API read stored addresses through it, so reports stored before a key was
    declared lose it too, with no re-import."""
    url = web_url(url)
    return clean_url(url) if url else ""


def address_title(url) -> str:
    """What names a source that has no title: its shown address's host and path
    (``helicone.ai/blog/slug``), decoded, without scheme, query nor fragment, else "" (no
    http(s) address). Perplexity's released sources are addresses only (ResearcherBench
    ``user_data/Perplexity.json``: ``[^n]: https://…``): a card showing nothing for them
    left annotators unable to tell one source from another. The host and path are the
    source's, not the system's (tracking is gone with the query: :func:`shown_url`)."""
    shown = shown_url(url)
    if not shown:
        return ""
    parts = urlsplit(shown)
    path = unquote(parts.path).rstrip("/")
    return (parts.hostname or parts.netloc) + path


# --- Text fragments, and addresses inside text ----------------------------------------------

#: A text fragment (``#:~:text=Unlike%20models,the%20Nyquist``: the words a system quoted
#: from the page, in a browser's highlight syntax), also as Doubao's markdown escapes it
#: (``#:\~:text=``, ResearcherBench ``user_data/Doubao.json``), to the address's end (a
#: released one holds a line break). It opens nothing the address without it does not, and
#: its syntax is one system's habit (You.com: every link of ScholarQA-CS2 ``you.json``;
#: OpenAI deep research): removed from every address shown (:func:`clean_url`).
TEXT_FRAGMENT = re.compile(r"#:\\?~:text=.*\Z", re.S)
#: The same inside text, where the address ends at a space, a closing bracket or a quote:
#: its words are percent-encoded, so a raw space or bracket is past its end. A run of line
#: breaks followed by more of it up to a ``)`` is still it: You.com wrote ``model's`` in
#: one fragment as ``model\n\ns`` (ScholarQA-CS2 ``dev/you.json``), inside a markdown
#: link's ``(…)`` (:func:`fragment_spans`: a paragraph is not split there).
_FRAGMENT_CHARS = r"[^\s()<>\[\]\"`]"
TEXT_FRAGMENT_IN_TEXT = re.compile(
    rf"#:\\?~:text={_FRAGMENT_CHARS}*(?:(?:\n+{_FRAGMENT_CHARS}+)+(?=\)))?"
)
#: An http(s) address inside text (markdown link target, ``<autolink>``, bare address):
#: up to a space, quote, angle or square bracket; a parenthesis only when balanced
#: (``https://en.wikipedia.org/wiki/Transformer_(deep_learning)``), so a markdown link's
#: closing ``)`` is not part of it.
URL_IN_TEXT = re.compile(r"https?://(?:[^\s()<>\[\]\"'`]|\([^\s()<>\[\]\"'`]*\))+", re.I)
#: What ends a sentence after a bare address, not part of it.
_TRAILING = ".,;:!?*_"


def clean_url(url: str) -> str:
    """``url`` as annotators may see it: without a text fragment (:data:`TEXT_FRAGMENT`)
    nor tracking parameters (:func:`without_tracking`). The one rule for every address
    shown: a citation's ``url`` (:func:`shown_url`, ``normalise``) and every address in a
    text (:func:`shown_text`)."""
    if not url:
        return url
    if "~:text=" in url:
        url = TEXT_FRAGMENT.sub("", url)
    return without_tracking(url)


def fragment_spans(text: str) -> list[tuple[int, int]]:
    """Where ``text`` holds a text fragment (:data:`TEXT_FRAGMENT_IN_TEXT`): a paragraph
    splitter leaves the blank lines inside one alone (You.com's ``model\\n\\ns``)."""
    if "~:text=" not in text:
        return []
    return [m.span() for m in TEXT_FRAGMENT_IN_TEXT.finditer(text)]


def _edits(text: str) -> list[tuple[int, int, str]]:
    """(start, end, replacement) of every address in ``text`` that :func:`clean_url`
    changes, in order, none overlapping: each text fragment removed, and each address's
    part before its fragment without tracking parameters."""
    fragments = fragment_spans(text)
    if "=" not in TEXT_FRAGMENT_IN_TEXT.sub("", text):  # no parameter outside a fragment
        return [(start, end, "") for start, end in fragments]
    edits, done, i = [], 0, 0
    for m in URL_IN_TEXT.finditer(text):
        start, end = m.span()
        while i < len(fragments) and fragments[i][0] < start:
            edits.append((*fragments[i], ""))
            done = max(done, fragments[i][1])
            i += 1
        if start < done:  # inside a fragment's words: removed with them
            continue
        while end > start and text[end - 1] in _TRAILING:
            end -= 1
        if i < len(fragments) and fragments[i][0] < end:
            end = fragments[i][0]  # the address's own part; its fragment goes next
        url = text[start:end]
        cleaned = without_tracking(url) if "=" in url else url
        if cleaned != url:
            edits.append((start, end, cleaned))
        done = end
    edits.extend((*f, "") for f in fragments[i:])
    return edits


def shown_text(text: str, anchors=None):
    """``text`` with every address in it cleaned by :func:`clean_url` (markdown links,
    autolinks, bare addresses, and those in code: code is shown as written, but a text
    fragment or ``utm_source=openai`` there names the system as surely as in a link, and
    an address without them still opens the same page). Every other character as written.

    With ``anchors`` (``(start, end, key)`` offsets into ``text``): ``(text, anchors)``,
    the anchors moved with the text (an anchor is never inside an address: one that is
    keeps its place as near as the text allows)."""
    edits = _edits(text) if ("~:text=" in text or "=" in text) else []
    if not edits:
        return text if anchors is None else (text, list(anchors))
    out, cursor, shifts = [], 0, []
    for start, end, new in edits:
        out.append(text[cursor:start])
        out.append(new)
        cursor = end
        shifts.append((start, end, len(new) - (end - start)))
    out.append(text[cursor:])
    cleaned = "".join(out)
    if anchors is None:
        return cleaned

    def moved(position: int) -> int:
        delta = 0
        for start, end, d in shifts:
            if end <= position:
                delta += d
            elif start < position:  # inside a replaced address: its start
                return start + delta
        return position + delta

    return cleaned, [(moved(a), moved(b), *rest) for a, b, *rest in anchors]


#: A title that is a text fragment's words, percent-encoded (``Unlike%20models%20that%20
#: only,even%20beyond%20the%20Nyquist``: You.com, when a page had no title): no space,
#: and an encoded space or other character.
_ENCODED_WORDS = re.compile(r"[^\s]*%[0-9A-Fa-f]{2}[^\s]*")


def _encoded_words(text: str) -> bool:
    """``text`` is a fragment's percent-encoded words (:data:`_ENCODED_WORDS`), not an
    address nor a markdown link holding one (those are cleaned, not decoded)."""
    return "%" in text and "://" not in text and bool(_ENCODED_WORDS.fullmatch(text))


# --- Quoted words: a text fragment's shape ---------------------------------------------------

#: How the words a quotation leaves out between its start and its end are shown: the
#: ellipsis every system writes.
ELISION = " … "
#: The bare comma of a text fragment (``#:~:text=start,end``: the first and the last words
#: of the passage a system quoted), kept when You.com made the fragment a source's snippet,
#: and its title when a page had none (``Financial constraints remain a,of digital adoption
#: in``; ScholarQA-CS2 ``you.json``: 1,464 of dev's 2,770 snippets and 882 of test's 1,726,
#: 142 and 222 titles; none of any other system's): a style no other system has, so it told
#: annotators the system. A comma with no space after it, before a word of two letters or more: not
#: ``1,000``, ``G(E,V)`` nor ``d_{i,t}`` (:func:`fragment_joint` sets the other conditions).
_FRAGMENT_JOINT = re.compile(r"(?<=[^\s\d]),(?=[^\W\d_]{2})")
#: What separates a fragment's words: spaces, or You.com's dashes
#: (``Automatic-summarization-based-on,considered-better-than-other``).
_WORDS_SPLIT = re.compile(r"[\s-]+")
#: The longest text read as a fragment's words (You.com's snippets: at most 380 characters).
_QUOTE_MAX = 400


def fragment_joint(text: str) -> int:
    """Where ``text`` joins a quotation's start and end with a fragment's bare comma
    (:data:`_FRAGMENT_JOINT`), else -1: exactly one such comma in a short text of three
    words or more, outside a parenthesised or bracketed term (``G(E,V)``) or a formula,
    and not between two capitalised words (a title's ``Bias Mitigation,Transparency``:
    Claude's, the paper's own)."""
    if "," not in text or len(text) > _QUOTE_MAX or "$" in text:
        return -1
    found = [m.start() for m in _FRAGMENT_JOINT.finditer(text)]
    if len(found) != 1 or len(_WORDS_SPLIT.split(text.strip())) < 3:
        return -1
    at = found[0]
    left = text[:at]
    for opening, closing in ("()", "[]"):  # ``G(E,V)``, ``[a,b]``: one term, no space
        if left.count(opening) > left.count(closing) and " " not in left[left.rfind(opening) :]:
            return -1
    before, after = left.rsplit(None, 1)[-1], text[at + 1 :]
    if before[:1].isupper() and after[:1].isupper():
        return -1
    return at


def quoted_text(text: str) -> str:
    """``text`` with a text fragment's bare comma (:func:`fragment_joint`) shown as an
    elision: the quotation's start and end as any system would write them."""
    at = fragment_joint(text)
    return text if at < 0 else text[:at] + ELISION + text[at + 1 :]


def fragment_words(fragment: str) -> str:
    """A text fragment's words as a reader would write them: ``prefix-,`` and ``,-suffix``
    (context the browser matches but does not highlight) dropped, each part decoded, the
    start and the end joined by an elision (:data:`ELISION`): no trace of the syntax."""
    parts = fragment.removeprefix(":~:text=").split(",")
    if len(parts) > 1 and parts[0].endswith("-"):
        parts = parts[1:]
    if len(parts) > 1 and parts[-1].startswith("-"):
        parts = parts[:-1]
    return ELISION.join(w for w in (unquote(p).strip() for p in parts) if w)


#: You.com's other way of writing a text fragment's words (ScholarQA-CS2 ``dev/you.json``:
#: 10 snippets, on 33 citations, and 6 titles): the page's spaces written "-", its commas
#: ",-", and the fragment's start and end joined by a bare comma:
#: ``Our-evaluation-results-demonstrate,as-BART,-BERT,-and`` ("Our evaluation results
#: demonstrate … as BART, BERT, and"). No other system's snippet is so (surveyed: every
#: ScholarQA-CS2, ResearcherBench and DeepScholar-Bench source); a title is, for slugs and
#: repository names (``Awesome-Mixture-of-Experts``, ``AI-Agent-Engineering``), so a title is
#: read so only with the fragment's bare comma (or the elision a former import made of it).
#: A part (between joints) with no space and two dashes at least; the text has two dashes
#: between letters at least, four when it has no joint ("state-of-the-art" is a word).
_DASHED_PART = re.compile(r"[^\s/|%]*[^\W\d_]-[^\W\d_(][^\s/|%]*-[^\s/|%]*")
#: A dashed text's joint: a comma not followed by "-" (a comma of the text was followed by a
#: space, written "-") and not inside a number (``1,000``).
#: A dash between two letters (not before a bracket: ``ontologies)-into`` has none).
_LETTER_DASH = re.compile(r"[^\W\d_]-(?=[^\W\d_(])")
_DASHED_JOINT = re.compile(r",(?!-)(?!(?<=\d,)\d)")


def _dashed_parts(text: str) -> list[str] | None:
    """The start and end (or the one passage) of a text fragment whose words are joined by
    dashes (:data:`_DASHED_PART`), split at its joints; None when ``text`` is not one."""
    if len(text) > _QUOTE_MAX or "-" not in text or "://" in text:
        return None
    parts = [q for p in text.split(ELISION.strip()) for q in _DASHED_JOINT.split(p.strip())]
    parts = [p for p in parts if p]
    if not parts or any(" " in p or "\n" in p for p in parts):
        return None
    joins = sum(len(_LETTER_DASH.findall(p)) for p in parts)
    if joins < (2 if len(parts) > 1 else 4):  # one passage: more than a compound word
        return None
    if not all(_DASHED_PART.fullmatch(p) or "-" not in p for p in parts):
        return None
    return parts


def dashed_words(text: str, *, title: bool = False) -> str:
    """``text`` as words when it is a text fragment written with dashes for spaces
    (:data:`_DASHED_PART`): each "-" a space, each ",-" a comma and a space, the start and the
    end joined by an elision (:data:`ELISION`), as any system quotes a passage; else
    ``text``. A ``title`` needs the fragment's joint (module comment above). A hyphen of the
    page's own ("state-of-the-art") was written "-" too and becomes a space: the encoding
    cannot tell them apart, and the words read as prose either way."""
    stripped = text.strip()
    parts = _dashed_parts(stripped)
    if parts is None or (title and len(parts) < 2):
        return text
    return ELISION.join(p.replace(",-", ", ").replace("-", " ").strip() for p in parts)


def shown_snippet(snippet: str) -> str:
    """A source's snippet as annotators read it (tooltips, the claim check, excerpts, the
    annotator API): its addresses cleaned (:func:`shown_text`) and a text fragment's shape
    shown as an elision (:func:`quoted_text`); a snippet that is a fragment's
    percent-encoded words is those words (:func:`fragment_words`), as a title is."""
    if _encoded_words(snippet.strip()):
        return fragment_words(snippet.strip())
    if "-" in snippet and _dashed_parts(snippet.strip()) is not None:
        return dashed_words(snippet)
    return quoted_text(shown_text(snippet))


#: A BibTeX brace group keeping a title's capitals: ``{GPT-4} Technical Report``, ``{B}ERT``:
#: no brace, backslash or dollar inside, and not the argument of a LaTeX command or accent
#: (``\\textsf{‐}``, ``Ne\\v{s}et``, ``Tur\\'{a}n``) nor a sub- or superscript
#: (``K_{3, 3}``, ``$^{171}$``).
_BIBTEX_BRACES = re.compile(r"(?<![\\\w_^'\"`~=.])\{([^{}\\$]*)\}")
#: Inline math in a title, kept as written: ``$K_{3, 3}$``.
_TITLE_MATH = re.compile(r"(\$[^$]*\$)")


def unbraced_title(title: str) -> str:
    """``title`` without the braces BibTeX uses to keep capitals, ``{GPT-4} Technical
    Report`` -> "GPT-4 Technical Report"; math and LaTeX commands' arguments as written.

    Why: DeepScholar's references (``cited_paper_title`` of recovered_citations.csv) are
    BibTeX titles; shown as written, the annotator read braces no title has."""
    if "{" not in title:
        return title
    parts = _TITLE_MATH.split(title) if "$" in title else [title]
    return "".join(
        part if k % 2 else _BIBTEX_BRACES.sub(r"\1", part) for k, part in enumerate(parts)
    )


#: A BibTeX exporter's escaped protecting brace: ``$\\{$Inter-Function$\\}$`` (braces meant
#: to keep the capitals, which LaTeX prints as braces).
_ESCAPED_BRACE = re.compile(r"\$\\[{}]\$")
#: A formula in protecting braces: ``{$IA^3$}``, ``{$\\ell_{1}$}``.
_BRACED_FORMULA = re.compile(r"\{(\$[^$]*\$)\}")
#: A LaTeX command, accent or escape outside a title's formulas: ``{\\textdollar}``,
#: ``M{\\"o}bius``, ``\\&``.
_TITLE_COMMAND = re.compile(r"\\(?:[A-Za-z]+|[\"'`^~=.&%$#_{}])")
#: Accents on nothing, which LaTeX prints as the mark itself (pylatexenc drops them).
_BARE_ACCENT = re.compile(r"\\([\^~])\{\}")


def bibtex_title(title: str) -> str:
    """A BibTeX title as its words: escaped protecting braces dropped (``$\\{$Inter-Function
    $\\}$`` -> "Inter-Function"), protecting braces around a formula dropped (``{$IA^3$}``),
    commands, accents and escapes outside formulas decoded by pylatexenc, a maintained
    parser (``{\\textdollar}A{\\^{}}3{\\textdollar}`` -> ``$A^3$``, ``M{\\"o}bius`` ->
    "Möbius"), then the braces (:func:`unbraced_title`). Formulas stay as written; a page
    renders them (:func:`annotation.rendering.latex_text_html`).

    Why: DeepScholar's references (``cited_paper_title``) are BibTeX as its exporters
    wrote it, and annotators read the escapes as written. For display: the title is stored
    as imported (a reference experts labelled keeps the title it had)."""
    if "\\" not in title and "{" not in title:
        return title
    # "$\\}$$\\{$" stood between two protected words ("{Latency-Predictable}
    # {Multi-Dimensional}"), their space lost
    title = _ESCAPED_BRACE.sub("", title.replace("$\\}$$\\{$", " "))
    title = _BRACED_FORMULA.sub(r"\1", title)
    if _TITLE_COMMAND.search(title):
        parts = _TITLE_MATH.split(title)
        title = "".join(part if k % 2 else _decoded(part) for k, part in enumerate(parts))
    unbraced = unbraced_title(title)
    while unbraced != title:  # doubled braces: "A {{Framework}} for"
        title, unbraced = unbraced, unbraced_title(unbraced)
    return unbraced


def _decoded(latex: str) -> str:
    """LaTeX text (no formula) as the characters it prints."""
    if not _TITLE_COMMAND.search(latex):
        return latex
    from pylatexenc.latex2text import LatexNodes2Text

    marks = {"^": "\ue010", "~": "\ue011"}  # kept from the parser: it reads "~" as a space
    latex = _BARE_ACCENT.sub(lambda m: marks[m[1]], latex)
    text = LatexNodes2Text(math_mode="verbatim").latex_to_text(latex)
    return text.replace(marks["^"], "^").replace(marks["~"], "~")


def shown_title(title: str) -> str:
    """A citation's title as annotators read it. A title that is an address is that
    address cleaned (:func:`clean_url`: what the link opens, no more); a title that is a
    text fragment's percent-encoded words is those words (:func:`fragment_words`: they are
    what the system quoted from the page, and readable words say more than a host name
    would; the encoding itself told annotators the system); any other title has its
    addresses cleaned (:func:`shown_text`) and a fragment's shape shown as an elision
    (:func:`quoted_text`: You.com titled a page without a title by its quoted words) and
    BibTeX's braces gone (:func:`unbraced_title`)."""
    if not title:
        return title
    stripped = title.strip()
    if stripped.lower().startswith(SCHEMES) and not any(c.isspace() for c in stripped):
        return clean_url(stripped)
    if _encoded_words(stripped):
        return fragment_words(stripped)
    if "-" in stripped and _dashed_parts(stripped) is not None:
        words = dashed_words(stripped, title=True)
        if words != stripped:
            return words
    return quoted_text(shown_text(unbraced_title(title)))
