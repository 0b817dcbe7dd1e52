"""Template filter of the issue-16 analysis sections (``metaeval/sections/analysis.html``)."""

from django import template

register = template.Library()


@register.filter
def cell(value):
    """A table cell: floats to 3 decimals, None as a dash, anything else as is."""
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.3f}"
    return value
