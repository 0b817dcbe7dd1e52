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

SCHEMES = ("http://", "https://")


def is_web_url(url) -> bool:
    """An http(s) address (leading or trailing spaces are not allowed: they are not one)."""
    return isinstance(url, str) and url.lower().startswith(SCHEMES) and url == url.strip()


def web_url(url) -> str:
    """``url`` when it is an http(s) address, else ""."""
    return url if is_web_url(url) else ""


#: Analytics tags of a link's query (Google Analytics' campaign parameters): they never
#: change the page a link opens, and a system's own leaves its name on every source it
#: cites (gpt-4o-search-preview's ResearcherBench responses: ``?utm_source=openai`` on 434
#: links), which an annotator must not learn (blinding).
TRACKING_PREFIX = "utm_"


def without_tracking(url: str) -> str:
    """``url`` without its ``utm_*`` query parameters, every other character as written
    (no re-encoding of the parameters kept, the fragment kept)."""
    if TRACKING_PREFIX not in url.lower():
        return url
    base, hash_, fragment = url.partition("#")
    path, question, query = base.partition("?")
    if not question:
        return url
    kept = [p for p in query.split("&") if not p.lower().startswith(TRACKING_PREFIX)]
    return path + ("?" + "&".join(kept) if kept else "") + hash_ + fragment
