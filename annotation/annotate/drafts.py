"""Autosave, submit, conflicts and the audit trail (optimistic concurrency).

Every save carries the version it was based on. Inside one transaction the draft row is
locked, the base version compared, and only then is the new version written — together
with a :class:`DraftVersion` row, so every accepted state stays in the history. A stale
base version means another tab (or window, or device) saved in between: the save is refused
with 409 and nothing changes. Submitting is idempotent: submitting the same payload again
changes nothing and succeeds.

A stale base version is not always another tab. Every page load carries a random client id;
when a page's save lands but its answer never arrives (the page was reloaded right after
typing and the leave-page beacon saved the text), the reloaded page restores the answers it
kept in the browser and says which page it continues (``resume``). A save is refused only
when a version since its base was saved by some *other* page; a save whose answers equal the
latest version is never a conflict (there is nothing to overwrite).

Submitted work that never went through this module (the demo, the judgment imports, a
release import: each writes the judgment rows and marks the assignment submitted, but no
draft) is *adopted*: the first time the page is opened, saved, submitted or reopened
(:func:`adopt`), the answers the stored rows hold (``TaskSpec.stored_answers``, the inverse
of ``persist``) become the draft's submitted version. From then on it is a submitted
assignment like any other: shown read-only with its answers, its submit refused unless
reopened, reopened within the same rules, its history showing that version, stamped with the
assignment's ``submitted_at`` (the history lists it from the assignment before the page is
first opened: ``annotation.history.unopened``). Before, such a page showed an empty,
editable form whose submit overwrote the stored labels. What the rows do not hold (scores
stored without the labels they came from) is shown unanswered, never filled with the
page's defaults, and said (``TaskSpec.unstored``).

Why the page reads the rows rather than each writer making the draft: the judgment rows are
what every analysis reads, the one source of truth; a draft is only the form's copy of
them. A reader beside each task's ``persist`` is one inverse per task type, where drafts
made by the writers would need every writer (four today, any added later) to know every
task's payload, and would leave the databases already loaded (the demo, past imports)
empty. A draft the annotator has been editing is never adopted over: only a submitted
assignment whose draft holds no submitted version is.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from annotation import webhooks
from annotation.models import Assignment, Draft, DraftVersion
from annotation.models.quality import FROZEN, frozen

from .base import Problems, TaskSpec
from .page import TaskPage

#: Longer gaps between two saves count as this much time on task (the annotator left).
IDLE_CAP_SECONDS = 300

OK, CONFLICT, INVALID = 200, 409, 422


@dataclass
class SaveResult:
    status: int
    version: int
    messages: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    saved_at: datetime | None = None
    submitted: bool = False
    changed: bool = False

    @property
    def ok(self) -> bool:
        return self.status == OK


def _conflict(draft: Draft, message: str) -> SaveResult:
    return SaveResult(status=CONFLICT, version=draft.version, messages=[message])


def _stale_message(draft: Draft) -> str:
    when = timezone.localtime(draft.updated_at).strftime("%H:%M:%S")
    return (
        f"Not saved: this judgment was changed in another tab or window "
        f"(version {draft.version}, saved at {when}). Reload the page to continue from the "
        f"latest version; your last change here was not applied."
    )


def _lock(assignment: Assignment) -> Draft:
    """The assignment's draft, locked until the transaction ends; made first if the page
    never was (one query when it exists, as it does once the page was opened). The draft
    keeps ``assignment`` (with its study) so that what reads it after the save (the
    qualification check on a submitted draft) asks the database nothing more."""
    locked = Draft.objects.select_for_update()
    try:
        draft = locked.get(assignment=assignment)
    except Draft.DoesNotExist:
        Draft.objects.get_or_create(assignment=assignment)
        draft = locked.get(assignment=assignment)
    draft.assignment = assignment
    return draft


def _record_time(assignment: Assignment, draft: Draft, now: datetime, **fields) -> None:
    seconds = 0
    if draft.last_activity_at:
        seconds = max(0, min(int((now - draft.last_activity_at).total_seconds()), IDLE_CAP_SECONDS))
    updates = {"seconds_on_task": F("seconds_on_task") + seconds, **fields}
    if assignment.started_at is None:
        updates["started_at"] = now
    Assignment.objects.filter(pk=assignment.pk).update(**updates)
    draft.last_activity_at = now


@dataclass(frozen=True)
class Client:
    """Which page load sends a save (``id``) and which earlier one it continues (``resume``)."""

    id: str = ""
    resume: str = ""

    @property
    def ids(self) -> set[str]:
        return {c for c in (self.id, self.resume) if c}


def _is_stale(draft: Draft, base_version: int | None, client: Client, payload: dict) -> bool:
    """True when saving would overwrite a version this page has not seen."""
    if base_version == draft.version or payload == draft.payload:
        return False
    if base_version is None or base_version > draft.version:
        return True
    # every version after base_version was saved by this very page (or the one it continues)
    return not (draft.client and draft.client in client.ids and base_version >= draft.client_since)


def oversized_field(data) -> str | None:
    """The first posted field longer than ``CONCORD_AUTOSAVE_MAX_FIELD_CHARS``, if any: such a
    save is refused whole (422) and the last acknowledged version stays as it was."""
    limit = settings.CONCORD_AUTOSAVE_MAX_FIELD_CHARS
    for name, values in data.lists():
        if any(len(v) > limit for v in values):
            return name
    return None


def too_long(name: str, version: int) -> SaveResult:
    limit = settings.CONCORD_AUTOSAVE_MAX_FIELD_CHARS
    return SaveResult(
        status=INVALID,
        version=version,
        messages=[f"the field {name!r} is longer than {limit} characters."],
    )


def malformed_version(data) -> SaveResult | None:
    """A refusal (422) when the posted ``version`` is there but no whole number: a forged or
    broken post, said as such (it was taken for a stale version and answered "changed in
    another tab"). A post without it is compared as a version this page has not seen."""
    raw = data.get("version")
    if raw is None or raw.isdecimal():
        return None
    return SaveResult(
        status=INVALID,
        version=0,
        messages=[
            f"the field 'version' must be a whole number (the version the page shows), not {raw[:20]!r}."
        ],
    )


def _new_version(
    draft: Draft, payload: dict, page: TaskPage, kind: str, client: Client = Client()
) -> None:
    """Every accepted save becomes the latest version. Autosaves coalesce: a draft saved
    within ``CONCORD_AUTOSAVE_COALESCE_SECONDS`` of the start of the latest draft version
    (same author) replaces that version's payload and number, so a long session keeps about
    one version a minute, not one per keystroke pause; the latest acknowledged state is
    always the latest version. A submission always gets its own version."""
    if not client.id or client.id != draft.client:
        draft.client = client.id
        draft.client_since = draft.version
    draft.version += 1
    draft.payload = payload
    window = settings.CONCORD_AUTOSAVE_COALESCE_SECONDS
    if kind == DraftVersion.Kind.DRAFT and window and draft.version > 1:
        # The latest version is the draft's previous one (only these functions write
        # versions, each with the draft's number): one conditional UPDATE both checks that
        # it is a recent draft of this author and replaces it, instead of a read and a write.
        coalesced = DraftVersion.objects.filter(
            assignment=page.assignment,
            version=draft.version - 1,
            kind=DraftVersion.Kind.DRAFT,
            author=page.annotator,
            created_at__gte=timezone.now() - timedelta(seconds=window),
        ).update(version=draft.version, payload=payload)
        if coalesced:
            return
    DraftVersion.objects.create(
        assignment=page.assignment,
        version=draft.version,
        kind=kind,
        author=page.annotator,
        payload=payload,
    )


def answers_of(spec: TaskSpec, page: TaskPage, draft: Draft) -> dict:
    """The answers the page shows: the draft's once it holds any; else the judgments stored
    for the assignment (an import's, made before the annotator opened it: prefilled, never
    blanked by a first save); else the empty form."""
    return draft.payload or spec.stored_answers(page) or spec.initial(page)


def _needs_adopting(assignment: Assignment, draft: Draft) -> bool:
    return assignment.status == Assignment.Status.SUBMITTED and draft.submitted_version is None


def _adopt(spec: TaskSpec, page: TaskPage, draft: Draft) -> None:
    """On a locked draft: a submitted assignment without a submitted version (submitted by
    a writer other than :func:`submit`) gets one, holding its stored answers (the module's
    docstring says why). Any draft the annotator saved before stays in the history."""
    if not _needs_adopting(page.assignment, draft):
        return
    payload = spec.stored_answers(page) or draft.payload or spec.initial(page)
    _new_version(draft, payload, page, DraftVersion.Kind.SUBMIT)
    draft.submitted_version = draft.version
    draft.save()
    # The version is the submission the writer recorded: it carries the assignment's
    # submission time (an import's, the demo's), not the time the page was first opened.
    # A writer that left no time (none known) keeps the adoption's.
    when = page.assignment.submitted_at
    if when is not None:
        DraftVersion.objects.filter(assignment=page.assignment, version=draft.version).update(
            created_at=when
        )
        Draft.objects.filter(pk=draft.pk).update(updated_at=when)
        draft.updated_at = when


def adopt(spec: TaskSpec, page: TaskPage) -> Draft:
    """The assignment's draft, with its submitted version made first when it needs one
    (:func:`_adopt`); nothing is written otherwise."""
    draft, _ = Draft.objects.get_or_create(assignment=page.assignment)
    if _needs_adopting(page.assignment, draft):
        with transaction.atomic():
            draft = _lock(page.assignment)
            _adopt(spec, page, draft)
    return draft


def touch(page: TaskPage, spec: TaskSpec) -> Draft:
    """Opening the page: note when it was first opened, restart the time-on-task clock.
    The assignment stays "not started" until the first save that records something
    (``save_draft``): an annotator who only looked at a task has not begun it. Submitted
    work without a submitted version is adopted first (:func:`adopt`)."""
    now = timezone.now()
    assignment = page.assignment
    draft = adopt(spec, page)
    if assignment.started_at is None:
        Assignment.objects.filter(pk=assignment.pk).update(started_at=now)
        assignment.started_at = now
    Draft.objects.filter(pk=draft.pk).update(last_activity_at=now)
    draft.last_activity_at = now
    return draft


def save_draft(
    spec: TaskSpec,
    page: TaskPage,
    payload: dict,
    base_version: int | None,
    client: Client = Client(),
) -> SaveResult:
    problems = spec.check(payload, page, final=False)
    if problems.errors:
        return SaveResult(status=INVALID, version=base_version or 0, messages=problems.errors)
    now = timezone.now()
    with transaction.atomic():
        draft = _lock(page.assignment)
        _adopt(spec, page, draft)
        if draft.submitted_version is not None:
            return _conflict(draft, "Not saved: this assignment is already submitted.")
        if frozen(page.assignment):  # the draft stays as it was
            return _conflict(draft, f"Not saved: {FROZEN}")
        if _is_stale(draft, base_version, client, payload):
            return _conflict(draft, _stale_message(draft))
        changed = payload != draft.payload
        if changed:
            _new_version(draft, payload, page, DraftVersion.Kind.DRAFT, client)
        fields = {}
        if changed and page.assignment.status == Assignment.Status.NOT_STARTED:
            fields["status"] = Assignment.Status.IN_PROGRESS
        _record_time(page.assignment, draft, now, **fields)
        draft.save()
    return SaveResult(
        status=OK,
        version=draft.version,
        warnings=problems.warnings,
        saved_at=draft.updated_at,
        changed=changed,
    )


def submit(
    spec: TaskSpec,
    page: TaskPage,
    payload: dict,
    base_version: int | None,
    client: Client = Client(),
) -> SaveResult:
    now = timezone.now()
    with transaction.atomic():
        draft = _lock(page.assignment)
        _adopt(spec, page, draft)
        if draft.submitted_version is not None:
            if payload == draft.payload:
                return SaveResult(
                    status=OK, version=draft.version, saved_at=draft.updated_at, submitted=True
                )
            return _conflict(
                draft, "Not saved: this assignment is already submitted with different answers."
            )
        if frozen(page.assignment):  # the draft stays as it was, unsubmitted
            return _conflict(draft, f"Not submitted: {FROZEN}")
        if _is_stale(draft, base_version, client, payload):
            return _conflict(draft, _stale_message(draft))
        problems: Problems = spec.check(payload, page, final=True)
        if problems.errors:
            return SaveResult(status=INVALID, version=draft.version, messages=problems.errors)
        spec.persist(payload, page)
        _new_version(draft, payload, page, DraftVersion.Kind.SUBMIT, client)
        draft.submitted_version = draft.version
        _record_time(
            page.assignment,
            draft,
            now,
            status=Assignment.Status.SUBMITTED,
            submitted_at=now,
        )
        draft.save()
        webhooks.assignment_submitted(page.assignment)  # sent once this commits
    return SaveResult(
        status=OK, version=draft.version, saved_at=draft.updated_at, submitted=True, changed=True
    )
