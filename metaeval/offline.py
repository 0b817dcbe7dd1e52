"""The whole report as one self-contained HTML file that opens offline.

Inline CSS (the site's and the report's style sheets, read from the static files), the
figures as inline SVG (:mod:`metaeval.svg`, written without namespace URIs), no
script, no link and no image source: the file names no outside address, so it opens the
same in a mail attachment, on a plane or in an archive years later.
"""

from __future__ import annotations

from django.contrib.staticfiles import finders
from django.template.loader import render_to_string
from django.utils import timezone

from .formatting import report_context
from .options import to_query, to_text

STYLESHEETS = ("css/concord.css", "css/reports.css")


def inline_css() -> str:
    parts = []
    for name in STYLESHEETS:
        path = finders.find(name)
        if path:
            with open(path, encoding="utf-8") as fh:
                parts.append(fh.read())
    return "\n".join(parts)


def render_offline(study, options, entry: dict) -> str:
    """The report page's sections for ``entry``, without selectors or download links."""
    context = {
        "study": study,
        "options": options,
        "query": to_query(options),
        "options_text": to_text(options),  # the line says them decoded, not URL-encoded
        "offline": True,
        "css": inline_css(),
        "generated": timezone.now(),
        **report_context(entry, options),
    }
    return render_to_string("metaeval/offline.html", context)
