"""Deleting one judge's results from one study, leaving the judge and its results in every
other study as they are.

Why: a judge's results protect what they were given to (``annotation.units``: a rubric a
judge scored keeps its items, a report it scored its text), and a judge's rerun on a study
starts from nothing only once its old results are gone. Deleting the judge did both, but
took its results in every other study with it, which a researcher of one study never
meant. So what is deleted is named by (judge, study): every kind of judge output whose
row lies in the study (:data:`judges.models.OUTPUT_STUDY_PATHS`) and the judge's runs on
it (their units hold what was done; kept, a resumed run would skip units whose results
are gone). The judge stays, and so do the relevance disagreements frozen from its
verdicts into annotators' adjudication assignments (annotators' work, never deleted
here). Each deletion is recorded in the study's audit trail (``QualityEvent``).

A judge is deleted whole only when its results lie in one study at most and no annotator
adjudicates its verdicts (:func:`whole_deletion_refusal`): anything else is refused,
naming the studies, so that deleting a judge never silently deletes another study's data.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.apps import apps
from django.db import transaction

from annotation.models import QualityEvent, RelevanceDisagreement, Study

from .models import OUTPUT_STUDY_PATHS, Judge, JudgeRun

#: The audit trail's action of a deletion (``QualityEvent.action``).
AUDIT_ACTION = "delete_judge_results"
#: Runs that still write results: deleting under them would leave the study half-judged.
UNFINISHED = (JudgeRun.Status.QUEUED, JudgeRun.Status.RUNNING)


class RemovalRefused(Exception):
    """A deletion refused before anything was written; ``studies`` names those concerned."""

    def __init__(self, message: str, studies=()):
        super().__init__(message)
        self.studies = list(studies)


class NothingToDelete(RemovalRefused):
    """The judge has no result in the study: nothing was deleted, nor recorded."""


@dataclass
class Removal:
    """What a deletion removed (or, with ``dry_run``, would remove): rows per kind."""

    judge: Judge
    study: Study
    deleted: dict[str, int]
    dry_run: bool


def study_results(judge: Judge, study_id: int) -> dict:
    """Kind (model name) -> the judge's rows in the study: every output kind, then its runs
    (deleted last: its outputs' ``run`` would otherwise be set to null one by one)."""
    rows = {
        name: apps.get_model("judges", name).objects.filter(judge=judge, **{path: study_id})
        for name, path in OUTPUT_STUDY_PATHS
    }
    rows["JudgeRun"] = JudgeRun.objects.filter(judge=judge, study_id=study_id)
    return rows


def studies_of(judge: Judge) -> list[Study]:
    """The studies the judge has output of any kind or a run in, by name."""
    ids = set(JudgeRun.objects.filter(judge=judge).values_list("study_id", flat=True))
    for name, path in OUTPUT_STUDY_PATHS:
        model = apps.get_model("judges", name)
        ids |= set(model.objects.filter(judge=judge).values_list(path, flat=True).distinct())
    return list(Study.objects.filter(pk__in=ids).order_by("name"))


def named(studies) -> str:
    return ", ".join(f"{s.name!r} (id {s.pk})" for s in studies)


def _check_no_run_writing(judge: Judge, study: Study) -> None:
    unfinished = list(
        JudgeRun.objects.filter(judge=judge, study=study, status__in=UNFINISHED)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    if unfinished:
        runs = ", ".join(map(str, unfinished))
        raise RemovalRefused(
            f"Nothing was deleted: judge {judge.name!r} still has run {runs} queued or running "
            f"on study {study.name!r}; cancel it first (POST /api/judge-runs/<id>/cancel/).",
            [study],
        )


def delete_study_results(judge: Judge, study: Study, *, user, dry_run: bool = False) -> Removal:
    """Delete the judge's results in ``study`` only (module doc) and record it in the
    study's audit trail; with ``dry_run``, count them and change nothing. Refused
    (:class:`RemovalRefused`) while a run of the judge still writes on the study, and
    (:class:`NothingToDelete`) when it has no result there."""
    with transaction.atomic():
        _check_no_run_writing(judge, study)
        rows = study_results(judge, study.pk)
        deleted = {name: qs.count() for name, qs in rows.items()}
        if not any(deleted.values()):
            raise NothingToDelete(
                f"Judge {judge.name!r} has no results in study {study.name!r} (id {study.pk}).",
                [study],
            )
        if not dry_run:
            for qs in rows.values():
                qs.delete()
            QualityEvent.objects.create(
                study=study,
                actor=user,
                action=AUDIT_ACTION,
                detail={"judge": judge.pk, "judge_name": judge.name, "deleted": deleted},
            )
    return Removal(judge=judge, study=study, deleted=deleted, dry_run=dry_run)


def whole_deletion_refusal(judge: Judge) -> RemovalRefused | None:
    """Why the judge may not be deleted whole, or None: results in several studies (each
    is deleted on its own, :func:`delete_study_results`), verdicts annotators adjudicate
    (their disagreements would go with the judge), or a run still writing on its one
    study. The one rule of every way a judge is deleted: the API's ``DELETE
    /api/judges/<id>/`` and the Django admin's delete page and "delete selected" action
    (``judges.admin``), which ask it before they show what would be deleted."""
    adjudicated = list(
        Study.objects.filter(
            pk__in=RelevanceDisagreement.objects.filter(judge=judge).values("assignment__study_id")
        ).order_by("name")
    )
    if adjudicated:
        return RemovalRefused(
            f"Not deleted: annotators adjudicate judge {judge.name!r}'s relevance verdicts in "
            f"{named(adjudicated)}; their adjudications are annotators' work, kept for good, "
            "and name the judge, so the judge stays as long as they do. To remove its scores, "
            "delete its results study by study (DELETE /api/judges/<id>/results/"
            "?study=<study id>), which keeps the adjudications.",
            adjudicated,
        )
    studies = studies_of(judge)
    if len(studies) > 1:
        return RemovalRefused(
            f"Not deleted: judge {judge.name!r} has results in {len(studies)} studies "
            f"({named(studies)}), and deleting it would delete them all. Delete its results "
            "study by study (DELETE /api/judges/<id>/results/?study=<study id>), then the "
            "judge.",
            studies,
        )
    for study in studies:
        try:
            _check_no_run_writing(judge, study)
        except RemovalRefused as exc:
            return exc
    return None


def delete_judge(judge: Judge, *, user) -> None:
    """Delete the judge whole, refused (:func:`whole_deletion_refusal`) unless its results
    lie in one study at most; those are deleted as :func:`delete_study_results` deletes
    them, so the study's audit trail records it."""
    with transaction.atomic():
        refused = whole_deletion_refusal(judge)
        if refused is not None:
            raise refused
        for study in studies_of(judge):
            delete_study_results(judge, study, user=user)
        judge.delete()
