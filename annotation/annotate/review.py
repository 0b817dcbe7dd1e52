"""Flags, skips and reopening a submitted judgment (issue 15, "the annotator's day").

An annotator meets work they cannot or should not do: a report that is broken, a question
outside their expertise, offensive content. They flag it with a reason (and may skip the
task); admins see every flag of a study. A submitted judgment can be returned for revision
by an admin, or reopened by its author within the study's ``reopen_hours`` window. Nothing is
deleted: the submitted version stays in the draft history, the judgment rows stay in effect
until the revision is submitted (then they are replaced, as a submit always does), and a
:class:`Reopening` row records who reopened it, when and why.
"""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from annotation.models import Assignment, Draft, Flag, Reopening
from annotation.models.quality import FROZEN, frozen, is_qualification_item

from . import drafts
from .page import TaskPage, with_review_state  # noqa: F401 (re-exported)
from .registry import SPECS

QUESTION = "question"


class Refused(Exception):
    """A flag or a reopening that cannot be honoured; the message names the field."""


def flag(page: TaskPage, *, reason: str, about: str, note: str = "", skip: bool = False) -> Flag:
    """``about``: "question", or the public id of one of the assignment's reports."""
    if skip and page.assignment.status == Assignment.Status.SUBMITTED:
        raise Refused("action: a submitted task cannot be skipped (flag it instead).")
    if skip and not reason:  # a skip at once: recorded, with no reason (the reason is optional)
        reason, about = Flag.Reason.NONE_GIVEN, about or QUESTION
    elif reason == Flag.Reason.NONE_GIVEN:
        raise Refused("reason: “no reason” is only for a skip; a flag says what is wrong.")
    if reason not in Flag.Reason.values:
        raise Refused(f"reason: {reason!r} is not one of {', '.join(Flag.Reason.values)}.")
    report = None
    if about != QUESTION:
        rendered = page.by_public_id.get(about)
        if rendered is None:
            raise Refused(f"about: {about!r} is not the question nor a report of this task.")
        report = rendered.report
    note = note.strip()
    if reason == Flag.Reason.OTHER and not note:
        raise Refused("note: say what is wrong when the reason is “Something else”.")
    return Flag.objects.create(
        assignment=page.assignment,
        annotator=page.annotator,
        report=report,
        reason=reason,
        note=note[:2000],
        skipped=skip,
    )


def author_may_reopen(assignment: Assignment, now=None) -> bool:
    """Within the study's window, except a qualification item: its first answer counts, so
    reopening it would let an annotator try answers until one passes (issue 24); nor work of
    an annotator who failed the study's qualification round (``quality.frozen``)."""
    hours = assignment.study.setting("reopen_hours") or 0
    if assignment.status != Assignment.Status.SUBMITTED or not assignment.submitted_at:
        return False
    now = now or timezone.now()
    within = hours > 0 and now - assignment.submitted_at <= timedelta(hours=hours)
    return within and not is_qualification_item(assignment) and not frozen(assignment)


def reopen(assignment: Assignment, *, by, by_author: bool, reason: str = "") -> Reopening:
    """Open a submitted judgment again. An author only within the study's window; nobody,
    an admin included, a qualification item: its first answer decides the qualification, and
    a revision would let the annotator answer again until they pass, or overwrite the answer
    a decided result was computed from (issue 24); an override is the way to change it.
    Nobody either the work of an annotator who failed the round (``quality.frozen``): it
    could never be saved nor submitted again."""
    if not by_author and is_qualification_item(assignment):
        raise Refused(
            f"assignment {assignment.pk}: it is a qualification item; its first answer decides "
            "the qualification, so it cannot be returned for revision. To change the result, "
            "override it (pass or fail by hand, with a reason) on the study's quality page."
        )
    hours = assignment.study.setting("reopen_hours") or 0
    if by_author and hours and is_qualification_item(assignment):
        raise Refused(
            f"assignment {assignment.pk}: a qualification item cannot be reopened by its "
            "author; its first answer counts."
        )
    if frozen(assignment):  # said before the window: the reason that holds whatever the time
        said = (
            FROZEN
            if by_author
            else (
                "its annotator did not qualify for this study, so their work in it is frozen "
                "(kept, but not reopened, saved or submitted). To return it, pass them by hand "
                "first on the study's quality page."
            )
        )
        raise Refused(f"assignment {assignment.pk}: {said}")
    if by_author and not author_may_reopen(assignment):
        raise Refused(
            f"assignment {assignment.pk}: "
            + (
                f"can be reopened by its author only within {hours} h of submitting; "
                "ask an admin to return it for revision."
                if hours
                else "this study lets only an admin return a judgment for revision."
            )
        )
    spec = SPECS.get(assignment.task)
    if spec is not None and assignment.status == Assignment.Status.SUBMITTED:
        # submitted by an import or the demo: its stored answers become the submitted
        # version first, so the reopened draft holds them (drafts.adopt)
        drafts.adopt(spec, TaskPage(assignment=assignment, annotator=assignment.annotator))
    with transaction.atomic():
        draft = Draft.objects.select_for_update().filter(assignment=assignment).first()
        if draft is None or draft.submitted_version is None:
            raise Refused(f"assignment {assignment.pk}: it is not submitted, nothing to reopen.")
        reopening = Reopening.objects.create(
            assignment=assignment,
            version=draft.submitted_version,
            by=by,
            by_author=by_author,
            reason=reason.strip()[:2000],
        )
        draft.submitted_version = None
        draft.save(update_fields=["submitted_version", "updated_at"])
        Assignment.objects.filter(pk=assignment.pk).update(
            status=Assignment.Status.IN_PROGRESS, submitted_at=None
        )
    return reopening
