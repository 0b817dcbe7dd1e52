"""``{% if user|reads_studies %}``: the role rules of :mod:`annotation.roles` in templates, so
a page links only where its reader may go."""

from django import template

from annotation import roles

register = template.Library()


@register.filter
def reads_studies(user) -> bool:
    """Whether ``user`` may open the study pages (``researcher_required``: researchers and
    admins); an annotator would get a 403."""
    return roles.is_researcher(user)
