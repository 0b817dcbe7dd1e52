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


@register.filter
def column_label(key):
    """A column's header on the page (:mod:`metaeval.labels`; the downloads keep ``key``)."""
    from ..labels import column_label as label

    return label(key)


@register.filter
def table_label(name):
    """A table's title on the page (:mod:`metaeval.labels`)."""
    from ..labels import table_label as label

    return label(name)


@register.filter
def note_text(note):
    """A report note as the page says it (:func:`metaeval.labels.note_text`)."""
    from ..labels import note_text as text

    return text(note)
