"""Adjudication requests follow the labels they resolve (docs/QUALITY.md, "When a label
changes after its disagreement was sent").

A request's ``originals`` are the competing labels the adjudicator decides on. A party may
change their label after the request was sent: their judgment is reopened (by them within
the study's ``reopen_hours``, or returned by an admin) and submitted again. When that
submission lands, every request on its question is brought in line with the labels as they
now count (:func:`annotation.quality.qualification.counted`, what the quality page and
the send action read), in the submit's transaction:

- open, still a disagreement: ``originals`` become the current labels, audited with the
  labels it had (the adjudicator decides on what the annotators now say, not on an answer
  one of them has withdrawn);
- open, no longer a disagreement (the annotators now agree, or one label is left):
  withdrawn — deleted and audited, naming the request, the labels it was sent with and the
  labels now, as a failed adjudicator's open requests are (an open request holds nothing of
  the adjudicator's: a decision is one post);
- decided on labels other than the current ones: marked ``outdated_at`` and audited — kept
  and listed on the quality page, never counted as the adjudicated label; unmarked if the
  labels come back to those it was decided on.

A judgments import (``annotation.importers.judgments``, command line and API) takes the
same path for every question on which it wrote a judgment, in the import's transaction.

While a judgment is reopened and not yet submitted again nothing moves: a draft is not an
answer, and withdrawing on reopen would lose a request the resubmission may keep.
"""

from __future__ import annotations

from django.utils import timezone

from annotation.models import AdjudicationRequest, Annotator, Assignment, QualityEvent

from . import observations, qualification
from .agreement import by_unit, disagreements
from .labels import Observation

#: Audit actions of this module (withdrawal is qualification's, which gold release reads).
LABELS_CHANGED = "adjudication_labels_changed"
OUTDATED = "adjudication_outdated"
UP_TO_DATE = "adjudication_up_to_date"


def frozen_labels(found: list[Observation], names: dict[int, str]) -> list[dict]:
    """A unit's labels as a request stores them: pseudonym and label, by pseudonym.
    Pseudonyms, not ids: the labels stay readable in a backup restored elsewhere."""
    return sorted(
        ({"pseudonym": names.get(o.annotator, ""), "label": o.label} for o in found),
        key=lambda o: (o["pseudonym"], o["label"]),
    )


def _same(a: list[dict], b: list[dict]) -> bool:
    def key(labels):
        return sorted((o.get("pseudonym", ""), o.get("label", "")) for o in labels)

    return key(a) == key(b)


def on_submitted(sender, instance, **kwargs) -> None:
    """post_save of a Draft: a submitted judgment may have changed a label that a request
    of its question resolves. The submit has written the judgment rows and the assignment's
    status before it saves the Draft, so the labels read here are the new ones."""
    if instance.submitted_version is None:
        return
    assignment = instance.assignment
    if assignment.question_id is None:
        return
    follow_labels(
        assignment.study,
        {assignment.question_id},
        why=f"{assignment.annotator.pseudonym} submitted {assignment.task} again",
    )


#: Past this many questions the requests are read for the whole study and kept in Python
#: (a study holds few requests; an import may change labels on tens of thousands of
#: questions, more than a query's parameters may hold on SQLite).
IN_QUERY = 500


def follow_labels(study, question_ids: set[int], *, why: str, actor=None) -> None:
    """Bring the requests on ``question_ids`` in line with their labels as they now count
    (the module's docstring says how): the one path of every change of labels, a task
    page's submit (one question) and a judgments import (every question it changed,
    :func:`annotation.importers.judgments.load`). One query when no question has a
    request; the labels are read once for all of them. The requests are locked, as
    :func:`studio.studyadmin.quality.decide` locks the one it decides: a decision posted
    meanwhile is either seen here as decided or made after."""
    question_ids = set(question_ids)
    if not question_ids:
        return
    found = AdjudicationRequest.objects.filter(study=study)
    if len(question_ids) <= IN_QUERY:
        found = found.filter(question_id__in=question_ids)
    requests = [
        r
        for r in found.select_related("adjudicator", "question").select_for_update(of=("self",))
        if r.question_id in question_ids
    ]
    if not requests:
        return
    held = _reopened_parties(study, {r.question_id for r in requests}, {r.task for r in requests})
    requests = [
        r
        for r in requests
        if not held.get((r.question_id, r.task), set()) & {o.get("pseudonym") for o in r.originals}
    ]
    if not requests:
        return
    asked = {r.question_id for r in requests}
    loaded = observations.load(study, tasks={r.task for r in requests})
    obs = [o for o in qualification.counted(study, loaded) if o.unit[1] in asked]
    units, disagreeing = by_unit(obs), disagreements(obs)
    names = dict(
        Annotator.objects.filter(pk__in={o.annotator for o in obs}).values_list("pk", "pseudonym")
    )
    withdrawn: dict[Annotator, list[dict]] = {}
    gone: list[int] = []
    for r in requests:
        unit = (r.task, r.question_id, r.unit)
        now = frozen_labels(units.get(unit, []), names)
        where = {"task": r.task, "question": r.question.external_id, "unit": r.unit}
        if r.status == AdjudicationRequest.Status.OPEN:
            if _same(now, r.originals):
                continue
            if unit in disagreeing:
                _audit(study, actor, LABELS_CHANGED, r, why, **where, before=r.originals, now=now)
                AdjudicationRequest.objects.filter(pk=r.pk).update(originals=now)
            else:
                withdrawn.setdefault(r.adjudicator, []).append(
                    {**where, "originals": r.originals, "now": now}
                )
                gone.append(r.pk)
        elif (stale := not _same(now, r.originals)) != (r.outdated_at is not None):
            action = OUTDATED if stale else UP_TO_DATE
            _audit(study, actor, action, r, why, **where, decided_on=r.originals, now=now)
            AdjudicationRequest.objects.filter(pk=r.pk).update(
                outdated_at=timezone.now() if stale else None
            )
    for adjudicator, rows in withdrawn.items():
        QualityEvent.objects.create(
            study=study, actor=actor, action=qualification.WITHDRAW_ADJUDICATION,
            annotator=adjudicator,
            detail={"reason": f"{why}: the annotators no longer disagree", "requests": rows},
        )  # fmt: skip
    AdjudicationRequest.objects.filter(pk__in=gone).delete()


def _reopened_parties(study, question_ids: set[int], tasks: set[str]) -> dict[tuple, set[str]]:
    """Pseudonyms, by (question id, task), of the annotators whose judgment there is reopened
    and not yet submitted again. A request one of them is a party to does not move (the
    module's docstring): their label is missing from the labels that count only while they
    revise it, and a submit by anyone else on the question meanwhile must not take that
    absence for agreement and withdraw the request."""
    held: dict[tuple, set[str]] = {}
    rows = Assignment.objects.filter(
        study=study, task__in=tasks, status=Assignment.Status.IN_PROGRESS,
        reopenings__isnull=False,
    )  # fmt: skip
    if len(question_ids) <= IN_QUERY:
        rows = rows.filter(question_id__in=question_ids)
    rows = rows.values_list("question_id", "task", "annotator__pseudonym").distinct()
    for question_id, task, pseudonym in rows:
        if question_id in question_ids:
            held.setdefault((question_id, task), set()).add(pseudonym)
    return held


def _audit(study, actor, action, request, why, **detail) -> None:
    QualityEvent.objects.create(
        study=study, actor=actor, action=action, annotator=request.adjudicator,
        detail={"reason": why, **detail},
    )  # fmt: skip
