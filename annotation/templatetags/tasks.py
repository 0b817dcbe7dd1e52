"""``{{ assignment.task|task_label }}``: a task's name ("Medal ranking"), never its code."""

from dataclasses import dataclass

from django import template
from django.utils.html import conditional_escape
from django.utils.text import Truncator

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


#: About how many characters of a question its heading shows: a DeepScholar question's text
#: is a whole abstract (deepscholar_labels.html cuts its label there too).
HEADING_CHARS = 200


@dataclass(frozen=True)
class QuestionHeading:
    heading: str
    #: The question's whole text when the heading does not show all of it, else None.
    whole: str | None = None


@register.simple_tag
def question_heading(question) -> QuestionHeading:
    """``{% question_heading question as qh %}``: a question's heading on a task or an
    adjudication page: its :attr:`~annotation.models.Question.label` cut with "…" at about
    :data:`HEADING_CHARS` (a DeepScholar question's paper title, never its multi-paragraph
    abstract in bold), and its whole text when the heading is not all of it. A title (a
    DeepScholar paper's) and the text it names are LaTeX (:func:`latex_text`); an untitled
    question's text is plain (:func:`shown_text`), as the queue shows it."""
    if question is None:
        return QuestionHeading("")
    if question.title:
        return QuestionHeading(
            rendering.latex_text_html(question.title, HEADING_CHARS),
            rendering.latex_text_html(question.text),
        )
    text = links.shown_text(question.text)
    if len(text) <= HEADING_CHARS:
        return QuestionHeading(conditional_escape(text))
    return QuestionHeading(
        conditional_escape(Truncator(text).chars(HEADING_CHARS)), conditional_escape(text)
    )


@register.filter
def task_label(code: str) -> str:
    return Study.Task(code).label if code in Study.Task.values else code
