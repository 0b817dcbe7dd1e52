"""Radio groups and checkboxes built in Python for pages with hundreds of them.

A 60-item rubric over 3 reports has 180 coverage groups (900 radios); a template loop over
them costs more than all the rest of the page. Every dynamic value is escaped here.
A group carries ``data-keys``: with focus in the group, typing one of those keys picks
the option whose ``data-key`` matches (static/js/annotate.js).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe


def radio_group(
    name: str,
    options: Sequence[tuple[object, str, str]],
    current,
    legend: str,
    *,
    css: str = "choice-row",
    legend_hidden: bool = False,
    describedby: str = "",
    compact: bool = False,
) -> SafeString:
    """``options``: (value, label, key). ``current``: the chosen value (compared as str).
    ``compact`` shows only the key, with the full label for screen readers and on hover."""
    name_e = escape(name)
    chosen = "" if current is None else str(current)
    keys = "".join(str(k) for _, _, k in options)

    def text(label, key):
        if not compact:
            return escape(label)
        return f'<span aria-hidden="true">{escape(key)}</span><span class="visually-hidden">{escape(label)}</span>'

    def title(label):
        return f' title="{escape(label)}"' if compact else ""

    radios = "".join(
        f'<label class="chip"{title(label)}><input type="radio" '
        f'name="{name_e}" value="{escape(v)}" data-key="{escape(k)}"'
        f"{' checked' if str(v) == chosen else ''}> {text(label, k)}</label>"
        for v, label, k in options
    )
    legend_css = ' class="visually-hidden"' if legend_hidden else ""
    described = f' aria-describedby="{escape(describedby)}"' if describedby else ""
    return mark_safe(  # noqa: S308 - every dynamic value escaped
        f'<fieldset class="{escape(css)}" data-keys="{escape(keys)}"{described}>'
        f"<legend{legend_css}>{escape(legend)}</legend>{radios}</fieldset>"
    )


def checkboxes(
    name: str, options: Iterable[tuple[str, str]], checked: Iterable[str], legend: str
) -> SafeString:
    chosen = set(checked or [])
    name_e = escape(name)
    boxes = "".join(
        f'<label class="chip"><input type="checkbox" name="{name_e}" value="{escape(v)}"'
        f"{' checked' if v in chosen else ''}> {escape(label)}</label>"
        for v, label in options
    )
    return mark_safe(  # noqa: S308 - every dynamic value escaped
        f'<fieldset class="choice-row flags"><legend>{escape(legend)}</legend>{boxes}</fieldset>'
    )


def likert(name: str, current, legend: str, **kwargs) -> SafeString:
    return radio_group(name, [(v, str(v), str(v)) for v in range(1, 6)], current, legend, **kwargs)
