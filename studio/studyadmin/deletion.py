"""Deleting things without losing expert work (issue 12, "Deletes destroy expert work").

Judgments, drafts and their version history are never deleted by a cascade: their foreign
keys to the study, question, report, annotator, assignment, paragraph and rubric item are
``PROTECT``, so a stray ``delete()`` of any of those fails instead of silently taking the
work with it (re-imports and PATCHes keep judged units: ``annotation.units``).

- People are deactivated, never deleted (:func:`deactivate_annotator`): the account can no
  longer sign in, the pseudonymous profile, its assignments and its judgments stay.
- A study is deleted only by :func:`delete_study`, an explicit action that is confirmed by
  typing the study's name and that first writes the full backup (``export_study``); only
  then are the study's judgments, drafts and versions deleted, by name, and the study.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from django.apps import apps
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from annotation.models import Annotator, Draft, DraftVersion, RelevanceDisagreement, Study
from annotation.models.judgments import JudgmentBase
from studio.backup import export_study

from . import StudyAdminError


@dataclass
class StudyDeletion:
    study: str
    backup: Path
    judgments: int
    versions: int


def backup_dir() -> Path:
    folder = Path(settings.CONCORD_BACKUP_DIR)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def judgment_models() -> list:
    return [m for m in apps.get_models() if issubclass(m, JudgmentBase)]


def delete_study(study: Study, *, confirm: str) -> StudyDeletion:
    """Back the study up, then delete it with its judgments and drafts.

    ``confirm`` must be the study's exact name (the admin typed it): anything else is refused
    and nothing changes. The backup is written before anything is deleted; if it fails,
    nothing is deleted.
    """
    if confirm != study.name:
        raise StudyAdminError(
            "confirm", f"type the study's name exactly ({study.name!r}) to delete it"
        )
    slug = "".join(c if c.isalnum() else "_" for c in study.name).strip("_") or "study"
    stamp = timezone.now().strftime("%Y%m%dT%H%M%S")
    path = backup_dir() / f"{slug}-{study.pk}-{stamp}-before-delete.zip"
    export_study(study, path)
    name = study.name
    judgments, versions = purge_study(study)
    return StudyDeletion(study=name, backup=path, judgments=judgments, versions=versions)


def purge_study(study: Study) -> tuple[int, int]:
    """Delete the study, naming what goes: its judgments, drafts and versions, then the rest
    by cascade. Callers are explicit actions only (:func:`delete_study`, the demo's reset).
    Returns (judgments, draft versions) deleted."""
    judgments = 0
    with transaction.atomic():
        for model in judgment_models():
            judgments += model.objects.filter(study=study).delete()[1].get(model._meta.label, 0)
        # What was adjudicated points at paragraphs (PROTECT): named here, like the judgments.
        RelevanceDisagreement.objects.filter(assignment__study=study).delete()
        versions, _ = DraftVersion.objects.filter(assignment__study=study).delete()
        Draft.objects.filter(assignment__study=study).delete()
        study.delete()
    return judgments, versions


def deactivate_annotator(annotator: Annotator) -> None:
    """Instead of deleting: the account can no longer sign in; the work stays."""
    if annotator.user_id is not None:
        type(annotator.user).objects.filter(pk=annotator.user_id).update(is_active=False)
