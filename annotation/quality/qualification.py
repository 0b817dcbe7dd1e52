"""Qualification results, kept current as annotators submit (database side of
:func:`annotation.quality.scoring.qualification_outcome`).

Config keys of a study: ``qualification_required`` (bool) and ``qualification_pass`` (share of
the qualification items answered correctly, default 0.8). A result set by hand
(``overridden``) is never recomputed, nor is a decided one (passed or failed): the first
attempt counts, so answering again after a return for revision cannot turn a fail into a
pass (issue 24); an admin's override is the one way to change it.
"""

from __future__ import annotations

from django.db import transaction

from annotation.models import GoldItem, QualificationResult

from . import observations
from .scoring import gold_scores, qualification_outcome

DEFAULT_PASS = 0.8


def pass_mark(study) -> float:
    return float(study.config.get("qualification_pass", DEFAULT_PASS))


def evaluate(study, annotator) -> QualificationResult | None:
    """(Re)compute one annotator's result from their submitted qualification items."""
    gold = observations.gold_map(study, GoldItem.Purpose.QUALIFICATION)
    if not gold:
        return None
    tasks = {task for task, _, _ in gold}
    mine = [o for o in observations.load(study, annotator, tasks) if o.unit in gold]
    score = gold_scores(mine, gold).get(annotator.pk)
    with transaction.atomic():
        result, _ = QualificationResult.objects.select_for_update().get_or_create(
            study=study, annotator=annotator
        )
        if result.overridden or result.passed is not None:
            return result
        result.items = len(gold)
        result.correct = score.correct if score else 0
        result.answered = score.answered if score else 0
        if score:
            result.passed = qualification_outcome(score, len(gold), pass_mark(study))
        result.save()
    return result


def on_submitted(sender, instance, **kwargs) -> None:
    """post_save of a Draft: a submitted qualification item updates the result once the
    judgment rows and the assignment's status of the same transaction are committed (the
    submit updates the Assignment with a queryset update, which sends no signal)."""
    if instance.submitted_version is None:
        return
    instance = instance.assignment
    if instance.question_id is None:
        return
    study = instance.study
    if not study.config.get("qualification_required"):
        return
    is_item = GoldItem.objects.filter(
        study=study,
        task=instance.task,
        question_id=instance.question_id,
        purpose=GoldItem.Purpose.QUALIFICATION,
    ).exists()
    if is_item:
        annotator = instance.annotator
        transaction.on_commit(lambda: evaluate(study, annotator))
