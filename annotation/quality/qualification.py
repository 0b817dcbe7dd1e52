"""Qualification results, kept current as annotators submit (database side of
:func:`annotation.quality.scoring.qualification_outcome`).

Config keys of a study: ``qualification_required`` (bool) and ``qualification_pass`` (share of
the qualification items answered correctly, default 0.8). A result set by hand
(``overridden``) is never recomputed, nor is a decided one (passed or failed): the first
attempt counts, so answering again after a return for revision cannot turn a fail into a
pass (issue 24); an admin's override is the one way to change it.
"""

from __future__ import annotations

from collections import defaultdict

from django.db import transaction

from annotation.models import (
    AdjudicationRequest,
    Annotator,
    Assignment,
    GoldItem,
    QualificationResult,
    QualityEvent,
)

from . import observations
from .labels import Observation
from .scoring import Score, checks, gold_scores, qualification_outcome

DEFAULT_PASS = 0.8
#: The audit action of :func:`withdraw_adjudications` (gold release reads it back: the
#: adjudicator of a withdrawn request has seen that question's labels all the same).
WITHDRAW_ADJUDICATION = "withdraw_adjudication"
#: The audit action of a pass by authorship (:func:`evaluate`).
QUALIFIED_AS_AUTHOR = "qualified_as_author"


def pass_mark(study) -> float:
    return float(study.config.get("qualification_pass", DEFAULT_PASS))


def failed(study) -> frozenset[int]:
    """The annotators of a study that requires qualification whose result is failed
    (computed or by override). Their labels count nowhere in quality control: not in anyone's
    consensus, not as a disagreement, not as a known-answer candidate (a failed annotator is
    by definition not trusted to label). Undecided (``passed`` None: items left) is not
    failed: their labels count until the round decides, as an ordinary annotator's would.
    A study without the requirement excludes no one (its results decide nothing)."""
    if not study.config.get("qualification_required"):
        return frozenset()
    return frozenset(
        QualificationResult.objects.filter(study=study, passed=False).values_list(
            "annotator_id", flat=True
        )
    )


def counted(study, obs: list[Observation], excluded: frozenset[int] | None = None) -> list:
    """``obs`` without the labels of annotators who :func:`failed` (the disagreements and
    known-answer candidates are computed from these)."""
    excluded = failed(study) if excluded is None else excluded
    return [o for o in obs if o.annotator not in excluded]


def statuses(study) -> defaultdict[str, str]:
    """Annotator pseudonym -> their qualification status in ``study``, one of
    ``judgment_kinds.QUALIFICATION_STATUSES``: not_required for everyone when the study
    requires no round (no query), else passed / failed, and undecided for an annotator
    without a decided result (one query, whatever the number of annotators)."""
    if not study.config.get("qualification_required"):
        return defaultdict(lambda: "not_required")
    named = {None: "undecided", True: "passed", False: "failed"}
    rows = QualificationResult.objects.filter(study=study).values_list(
        "annotator__pseudonym", "passed"
    )
    return defaultdict(lambda: "undecided", {name: named[passed] for name, passed in rows})


def as_qualification(study, annotator, gold) -> list:
    """The annotator's labels on qualification units given *as* qualification: submitted,
    in an assignment, once the unit was a qualification item. Work submitted before (an
    ordinary assignment on the same question) or imported was no qualification attempt and
    never passes or fails anyone."""
    since = _since(study)
    return [
        o
        for o in observations.load(study, annotator, {task for task, _, _ in gold})
        if o.unit in gold and observations.attempted(o.assignment, o.submitted_at, since[o.unit])
    ]


def _since(study) -> dict:
    """Qualification unit -> when it became a qualification item."""
    return {
        (g.task, g.question_id, g.unit): g.created_at
        for g in GoldItem.objects.filter(study=study, purpose=GoldItem.Purpose.QUALIFICATION)
    }


def given(study, annotator, gold) -> dict:
    """The qualification units of ``gold`` the annotator was given *as* qualification: they
    hold an assignment of the unit's task on its question that was not submitted before the
    unit became an item (one released to them, or one already in their queue: their
    submission there is their answer) and that was not withdrawn from them. A unit the
    release could not give them (a ranking clash, a question they had done before, one they
    adjudicate) is none of theirs, so it cannot keep their round pending for good. Their
    round is decided over these units only; the set is what the admin's release made of
    their queue, and nothing an annotator does removes an assignment from it (a skip or a
    unit left unlabelled is an item not passed, :func:`evaluate`)."""
    since = _since(study)
    held = Assignment.objects.filter(
        study=study, annotator=annotator, question_id__in={q for _, q, _ in gold}
    ).exclude(status=Assignment.Status.WITHDRAWN)
    mine: defaultdict[tuple, list] = defaultdict(list)  # one per setting held
    for task, qid, at in held.values_list("task", "question_id", "submitted_at"):
        mine[task, qid].append(at)
    return {
        unit: g
        for unit, g in gold.items()
        if any(at is None or at >= since[unit] for at in mine.get(unit[:2], ()))
    }


def known_answers_by(study, annotator) -> list[GoldItem]:
    """The study's known answers (gold or qualification) marked from ``annotator``'s own
    submitted judgments (``GoldItem.source_annotator``)."""
    items = GoldItem.objects.filter(study=study, source_annotator=annotator)
    return list(items.select_related("question").order_by("pk"))


def authors(study) -> set[int]:
    """The annotators of ``study`` who wrote one of its known answers (one query)."""
    return set(
        GoldItem.objects.filter(study=study, source_annotator__isnull=False).values_list(
            "source_annotator_id", flat=True
        )
    )


def evaluate(study, annotator) -> QualificationResult | None:
    """(Re)compute one annotator's result from their submitted qualification items: over
    the items they were :func:`given` (none given: undecided, the quality page says why).

    An annotator whose submitted judgment is the source of one of the study's known answers
    (marked from it: :func:`known_answers_by`) passes by that fact: the study takes their
    label as the correct answer, so holding their work back until they answer someone
    else's would make no sense — and they could never be given the item they wrote (they
    hold that task on that question already), so their round would stay pending for good.
    Audited (``QUALIFIED_AS_AUTHOR``). A result already decided or set by hand is kept, as
    always."""
    gold = observations.gold_map(study, GoldItem.Purpose.QUALIFICATION)
    wrote = known_answers_by(study, annotator)
    if not gold and not (wrote and study.config.get("qualification_required")):
        return None
    score, skipped = None, 0
    if gold:
        gold = given(study, annotator, gold)
        mine = as_qualification(study, annotator, gold)
        score = gold_scores(mine, gold).get(annotator.pk)
        skipped = observations.skipped(study, GoldItem.Purpose.QUALIFICATION, annotator)
        skipped = {aid: [u for u in units if u in gold] for aid, units in skipped.items()}
        skipped = len(checks(mine, gold, skipped).skipped.get(annotator.pk, ()))  # not answered
    with transaction.atomic():
        result, _ = QualificationResult.objects.select_for_update().get_or_create(
            study=study, annotator=annotator
        )
        if result.overridden or result.passed is not None:
            return result
        result.items = len(gold)
        result.correct = score.correct if score else 0
        result.answered = score.answered if score else 0
        result.passed = (
            True
            if wrote
            else qualification_outcome(score or Score(), len(gold), pass_mark(study), skipped)
        )
        result.save()
        if wrote:
            QualityEvent.objects.create(
                study=study, action=QUALIFIED_AS_AUTHOR, annotator=annotator,
                detail={
                    "reason": "wrote a known answer of the study",
                    "known_answers": [
                        {"task": g.task, "question": g.question.external_id, "unit": g.unit,
                         "purpose": g.purpose}
                        for g in wrote
                    ],
                },
            )  # fmt: skip
        if result.passed is False:
            withdraw_adjudications(study, annotator, why="failed the qualification round")
    return result


def qualify_authors(study) -> None:
    """:func:`evaluate` every author of a known answer of ``study`` (when the round is
    turned on, when a label of theirs is marked as a known answer): they pass at once,
    not at the admin's next look at the quality page."""
    if not study.config.get("qualification_required"):
        return
    for annotator in Annotator.objects.filter(pk__in=authors(study)):
        evaluate(study, annotator)


def on_submitted(sender, instance, **kwargs) -> None:
    """post_save of a Draft: a submitted qualification item updates the result once the
    judgment rows and the assignment's status of the same transaction are committed (the
    submit updates the Assignment with a queryset update, which sends no signal)."""
    if instance.submitted_version is None:
        return
    _evaluate_if_item(instance.assignment)


def on_skipped(sender, instance, created=False, **kwargs) -> None:
    """post_save of a Flag: a skipped qualification item is an answer not passed, so the
    result is computed once the flag is committed (a round whose last open item is skipped
    would otherwise stay undecided forever: the skipped task leaves the annotator's way,
    and until the round is decided their queue shows nothing else)."""
    if not (created and instance.skipped):
        return
    _evaluate_if_item(instance.assignment)


def _evaluate_if_item(assignment) -> None:
    """Once the transaction commits, the annotator's result of a study that requires the
    round, when ``assignment`` is one of its qualification items (a submit or a skip)."""
    if assignment.question_id is None:
        return
    study = assignment.study
    if not study.config.get("qualification_required"):
        return
    is_item = GoldItem.objects.filter(
        study=study,
        task=assignment.task,
        question_id=assignment.question_id,
        purpose=GoldItem.Purpose.QUALIFICATION,
    ).exists()
    if is_item:
        annotator = assignment.annotator
        transaction.on_commit(lambda: evaluate(study, annotator))


def qualified(study) -> set[int] | None:
    """The annotators a study requiring a qualification round counts as qualified (those who
    passed it), or None when it requires none (everyone is). One declaration: who may be
    sent an adjudication, who may still decide one (``studio.studyadmin.quality``
    ``AdjudicatorRule``) and whose open requests are withdrawn all read it."""
    if not study.config.get("qualification_required"):
        return None
    return set(
        QualificationResult.objects.filter(study=study, passed=True).values_list(
            "annotator_id", flat=True
        )
    )


def withdraw_adjudications(study, annotator, *, why: str, actor=None) -> int:
    """Withdraw ``annotator``'s open adjudication requests of ``study`` once they are no
    longer :func:`qualified` (a failed result, by hand or computed): a decision of theirs
    must not become an adjudicated label. The requests are deleted, so they leave the
    adjudicator's page and may be sent to someone else (or to them again once passed), and
    the withdrawal is audited, naming each request, as other quality-control events are.
    Decided requests stay. Returns how many were withdrawn."""
    allowed = qualified(study)
    if allowed is None or annotator.pk in allowed:
        return 0
    open_requests = AdjudicationRequest.objects.filter(
        study=study, adjudicator=annotator, status=AdjudicationRequest.Status.OPEN
    )
    rows = list(open_requests.select_related("question").order_by("pk"))
    if not rows:
        return 0
    with transaction.atomic():
        QualityEvent.objects.create(
            study=study, actor=actor, action=WITHDRAW_ADJUDICATION, annotator=annotator,
            detail={
                "reason": why,
                "requests": [
                    {"task": r.task, "question": r.question.external_id, "unit": r.unit}
                    for r in rows
                ],
            },
        )  # fmt: skip
        open_requests.filter(pk__in=[r.pk for r in rows]).delete()
    return len(rows)
