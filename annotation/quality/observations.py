"""The study's submitted judgments as :class:`~.labels.Observation` rows (the one DB reader
of quality control; everything it feeds is pure).

Only judgments whose assignment is submitted count (a draft is not an answer); judgments
imported without an assignment count as submitted when they were created.
"""

from __future__ import annotations

from collections import defaultdict

from annotation.models import (
    AdjudicationRequest,
    Assignment,
    GoldItem,
    MedalRanking,
    PairwisePreference,
)

from .labels import MEDAL_RANKING, PAIRWISE, Observation, Unit, medal_label, pair_unit
from .labels import pairwise_label as _pairwise_label
from .scoring import Gold

SUBMITTED = Assignment.Status.SUBMITTED


def _counts(row) -> bool:
    return row.assignment_id is None or row.assignment.status == SUBMITTED


def _when(row):
    return (row.assignment.submitted_at if row.assignment_id else None) or row.updated_at


def load(study, annotator=None) -> list[Observation]:
    """Every submitted pairwise and medal-ranking label of ``study`` (of one annotator)."""
    who = {"annotator": annotator} if annotator is not None else {}
    out: list[Observation] = []
    prefs = PairwisePreference.objects.filter(study=study, **who).select_related(
        "left__system", "right__system", "assignment"
    )
    for p in prefs:
        if _counts(p):
            left, right = p.left.system.name, p.right.system.name
            out.append(
                Observation(
                    p.annotator_id,
                    (PAIRWISE, p.question_id, pair_unit(left, right)),
                    _pairwise_label(p.choice, left, right),
                    _when(p),
                    assignment=p.assignment_id,
                )
            )
    rankings = (
        MedalRanking.objects.filter(study=study, **who)
        .select_related("assignment")
        .prefetch_related("medals__report__system")
    )
    for r in rankings:
        if _counts(r):
            medals = {m.report.system.name: m.medal for m in r.medals.all()}
            out.append(
                Observation(
                    r.annotator_id,
                    (MEDAL_RANKING, r.question_id, ""),
                    medal_label(medals),
                    _when(r),
                    assignment=r.assignment_id,
                )
            )
    return out


def gold_map(study, purpose=GoldItem.Purpose.GOLD) -> dict[Unit, Gold]:
    return {
        (g.task, g.question_id, g.unit): Gold(g.answer, g.source_annotator_id)
        for g in GoldItem.objects.filter(study=study, purpose=purpose)
    }


def seconds_per_annotator(study) -> dict[int, list[int]]:
    out: dict[int, list[int]] = defaultdict(list)
    rows = Assignment.objects.filter(study=study, status=SUBMITTED).values_list(
        "annotator_id", "seconds_on_task"
    )
    for aid, seconds in rows:
        out[aid].append(seconds)
    return dict(out)


def adjudicated_labels(study) -> dict[Unit, str]:
    """unit -> adjudicated label, where every decided request of the unit gave the same one
    (two annotators adjudicating their own disagreement and still disagreeing: no label)."""
    labels: dict[Unit, set[str]] = defaultdict(set)
    decided = AdjudicationRequest.objects.filter(
        study=study, status=AdjudicationRequest.Status.DECIDED
    )
    for r in decided:
        labels[(r.task, r.question_id, r.unit)].add(r.label)
    return {u: next(iter(ls)) for u, ls in labels.items() if len(ls) == 1}
