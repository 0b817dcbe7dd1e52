"""The "planner" strategy of the Assign page: the budget planner's picks, committed like
any other plan (issue 17 part 3; docs/ANALYSES.md "Budget planner").

Composes the three layers, which is why it lives in ``studio``: the pilot from the
study's medal rankings and judge scores (``metaeval.loaders.planner``), the variance
model and the greedy order by expected variance reduction per expert hour
(``metaeval.stats.planner``), and the pure who-takes-what strategy
(``annotation.planning_strategy``). The figure is the agreement of the study's default
judge (METHODS §5, the report's preference table). The budget is ``per_expert`` new
assignments per annotator of the pool (their capacity permitting); ``overlap`` caps the
annotators per question in all.
"""

from __future__ import annotations

import numpy as np

from annotation import planning_strategy
from metaeval.loaders.planner import load_pilot, question_seconds
from metaeval.stats import planner as stats

#: Rounds of the pilot's bootstrap: only its level is used here, not a reported interval.
ROUNDS = 200
#: Seconds per unit when nothing in the study was timed (the order then ignores cost).
UNTIMED = 600.0


def components(study_id: int) -> tuple[float, float, str | None]:
    """(σ_b², σ_w², note) of the study's agreement pilot; uninformative (1, 1) without one,
    all between-question when the two cannot be separated (the conservative split)."""
    try:
        model = stats.fit(load_pilot(study_id, "agreement").pilot, n_rounds=ROUNDS)
    except ValueError:
        return 1.0, 1.0, "No pilot to plan from: new questions first, then the fewest annotators."
    if model.between is not None and (model.between + model.within) > 0:
        return model.between, model.within, model.note
    if model.total:
        return model.total, 0.0, model.note
    return 1.0, 1.0, model.note or "No variance in the pilot: new questions first."


def picks(study_id: int, task: str, items, people, spec) -> list[int]:
    """Question ids of the next units, best first (``stats.allocation_order``)."""
    between, within, _ = components(study_id)
    seconds = question_seconds(study_id, task)
    timed = [s for v in seconds.values() for s in v]
    default = float(np.median(timed)) if timed else UNTIMED
    cost = np.array(
        [
            (sum(seconds.get(it.question, ())) + stats.COST_PRIOR * default)
            / (len(seconds.get(it.question, ())) + stats.COST_PRIOR)
            for it in items
        ]
    )
    room = sum(
        spec.per_expert if p.capacity is None else min(p.capacity, spec.per_expert) for p in people
    )
    counts = [len(it.assigned) for it in items]
    order = stats.allocation_order(counts, between, within, cost, room, spec.overlap)
    return [items[i].question for i in order]


def plan(study, items, people, spec):
    """The planner's :class:`annotation.assignment.Plan` for the Assign page."""
    return planning_strategy.planned_picks(
        items, people, picks(study.pk, spec.task, items, people, spec), seed=spec.seed
    )
