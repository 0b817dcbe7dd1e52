"""``{{ assignment.task|task_label }}``: a task's name ("Medal ranking"), never its code."""

from django import template

from annotation.models import Study

register = template.Library()


@register.filter
def task_label(code: str) -> str:
    return Study.Task(code).label if code in Study.Task.values else code
