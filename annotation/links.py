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
from urllib.parse import unquote_plus

SCHEMES = ("http://", "https://")


def is_web_url(url) -> bool:
    """An http(s) address (leading or trailing spaces are not allowed: they are not one)."""
    return isinstance(url, str) and url.lower().startswith(SCHEMES) and url == url.strip()


def web_url(url) -> str:
    """``url`` when it is an http(s) address, else ""."""
    return url if is_web_url(url) else ""


#: What a link's query may carry that never changes the page it opens but tells an annotator
#: which system cited it (blinding): one declaration, read by :func:`without_tracking`, which
#: every address shown to annotators goes through (import: ``normalise._shown_url``; pages
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
        "deepseek", "bing", "copilot", "youcom", "phind", "elicit", "consensus", "scite",
        "openscholar", "scholarqa", "genspark", "manus", "storm", "falcon", "toutiao",
        "bytedance",
    }
)  # fmt: skip
#: Whole values naming a vendor that ``VENDORS``' words do not: You.com is "you".
VENDOR_VALUES = frozenset({"you.com"})
#: Parameters that say which page to open (a search's words, a record's id, a DOI): kept
#: even when their value is a vendor's name (Google Scholar ``?q=openai``).
CONTENT_KEYS = frozenset(
    {"q", "query", "search", "s", "id", "doi", "title", "name", "p", "page", "article", "v"}
)
_WORD = re.compile(r"[a-z0-9]+")


def _names_a_vendor(value: str) -> bool:
    """A parameter value that is a vendor's name, or a vendor's domain (``chatgpt.com``,
    ``www.perplexity.ai``), percent-decoded and in any case."""
    value = unquote_plus(value).strip().lower().removeprefix("www.")
    if value in VENDORS or value in VENDOR_VALUES:
        return True
    name, dot, _ = value.partition(".")
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
    return any(w in VENDORS for w in _WORD.findall(key)) or _names_a_vendor(value)


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
    without tracking parameters (:func:`without_tracking`), else "". Pages and the
    annotator API read stored addresses through it, so reports stored before a key was
    declared lose it too, with no re-import."""
    url = web_url(url)
    return without_tracking(url) if url else ""
