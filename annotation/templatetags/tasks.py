"""``{{ assignment.task|task_label }}``: a task's name ("Medal ranking"), never its code."""

from django import template

from annotation import links, rendering
from annotation.models import Study

register = template.Library()


@register.filter
def web_url(url) -> str:
    """The one link rule (:mod:`annotation.links`): an http(s) address, else "", without
    tracking parameters (blinding) — every ``href`` built from a stored URL goes through it."""
    return links.shown_url(url)


@register.filter
def shown_text(text) -> str:
    """A text as annotators read it: every address in it cleaned by the one link rule
    (:func:`annotation.links.shown_text`: no text fragment nor tracking parameter)."""
    return links.shown_text(text) if isinstance(text, str) else text


@register.filter
def shown_title(title) -> str:
    """A citation's title as annotators read it (:func:`annotation.links.shown_title`)."""
    return links.shown_title(title) if isinstance(title, str) else title


@register.filter
def shown_snippet(snippet) -> str:
    """A source's snippet as annotators read it (:func:`annotation.links.shown_snippet`)."""
    return links.shown_snippet(snippet) if isinstance(snippet, str) else snippet


@register.filter
def shown_claim(text) -> str:
    """A claim's text as its paragraph shows it (:func:`annotation.rendering.shown_claim`:
    ``\\$6 million`` as ``$6 million``); stored as selected."""
    return rendering.shown_claim(text)


@register.filter
def latex_text(text, limit=None):
    """Text written by LaTeX's rules (DeepScholar's query, an arXiv abstract) as HTML:
    formulas as MathML, ``\\$`` as "$" (:func:`annotation.rendering.latex_text_html`);
    ``limit``: about that many characters, never cutting a formula."""
    return rendering.latex_text_html(text, int(limit) if limit else None)


@register.filter
def task_label(code: str) -> str:
    return Study.Task(code).label if code in Study.Task.values else code
