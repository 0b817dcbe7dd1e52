"""Template filters of the generic report-section fragment (``metaeval/sections/generic.html``)."""

from django import template

register = template.Library()


@register.filter
def get_item(mapping, key):
    """``mapping[key]`` (None when absent): a table row's column, a figure by name."""
    if not isinstance(mapping, dict):
        return None
    return mapping.get(key)


@register.filter
def figure_named(figures, name):
    """The page's figure ``name`` (the context keys them with ``_`` for ``-``)."""
    return (figures or {}).get(str(name).replace("-", "_"))
