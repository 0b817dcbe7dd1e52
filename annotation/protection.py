"""What keeps expert work alive, at the annotation layer (issue 12, "Deletes destroy expert
work"): people are deactivated, never deleted, and the judgment models are listed by their
base class so that an explicit study deletion (``studio.studyadmin.deletion``, which sits
above this app because it writes the full backup first) names every kind it removes.
"""

from __future__ import annotations

from django.apps import apps

from annotation.models import Annotator
from annotation.models.judgments import JudgmentBase


def judgment_models() -> list:
    """Every concrete model holding expert judgments (any app's subclass of JudgmentBase)."""
    return [m for m in apps.get_models() if issubclass(m, JudgmentBase)]


def holding_work(assignment_ids) -> set[int]:
    """The ids among ``assignment_ids`` that hold an annotator's work or have been opened
    for it: a draft, a flag, a reopening, a relevance disagreement or a judgment refers to
    them. One declaration of "opened" for what may rewrite or withdraw only work nobody
    began (gold release rewrites unopened assignments, a re-plan withdraws them)."""
    from annotation.models import Assignment, Draft

    ids = set(assignment_ids)
    if not ids:
        return set()
    used = set(Draft.objects.filter(assignment_id__in=ids).values_list("assignment_id", flat=True))
    for related in ("flags", "reopenings", "disagreements"):
        used |= set(
            Assignment.objects.filter(pk__in=ids, **{f"{related}__isnull": False}).values_list(
                "pk", flat=True
            )
        )
    for model in judgment_models():
        used |= set(
            model.objects.filter(assignment_id__in=ids).values_list("assignment_id", flat=True)
        )
    return used


def deactivate_annotator(annotator: Annotator) -> None:
    """Instead of deleting: the account can no longer sign in; the work stays."""
    if annotator.user_id is not None:
        type(annotator.user).objects.filter(pk=annotator.user_id).update(is_active=False)
