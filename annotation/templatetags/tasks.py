"""``{{ assignment.task|task_label }}``: a task's name ("Medal ranking"), never its code."""

from django import template

from annotation import links
from annotation.models import Study

register = template.Library()


@register.filter
def web_url(url) -> str:
    """The one link rule (:mod:`annotation.links`): an http(s) address, else "", without
    tracking parameters (blinding) — every ``href`` built from a stored URL goes through it."""
    return links.shown_url(url)


@register.filter
def task_label(code: str) -> str:
    return Study.Task(code).label if code in Study.Task.values else code
