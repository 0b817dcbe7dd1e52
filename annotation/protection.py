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


def deactivate_annotator(annotator: Annotator) -> None:
    """Instead of deleting: the account can no longer sign in; the work stays."""
    if annotator.user_id is not None:
        type(annotator.user).objects.filter(pk=annotator.user_id).update(is_active=False)
