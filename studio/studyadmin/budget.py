"""The "planner" strategy of the Assign page: the budget planner's picks, committed like
any other plan (issue 17 part 3; docs/ANALYSES.md "Budget planner").

Composes the three layers, which is why it lives in ``studio``: the pilot from the
study's medal rankings and judge scores (``metaeval.loaders.planner``), the variance
model and the greedy order by expected variance reduction per expert hour
(``metaeval.stats.planner``), and the pure who-takes-what strategy
(``annotation.planning_strategy``). The figure is the agreement of the study's default
judge (METHODS §5, the report's preference table). The budget is ``per_expert`` new
assignments per annotator of the pool (their capacity permitting); ``overlap`` K is the
number of annotators every planned question gets (issue 26: it used to be only a cap, so
with σ_b² > 0 the greedy order gave 30 questions one annotator each at overlap 2): the
greedy order ranks the questions, and each chosen question is filled to K in one block
while the budget lasts (a question that would get fewer than K is not started).

:func:`estimate` says what a previewed plan costs and buys, from the same functions: hours
= assignments × the median measured time of a submitted assignment of the task in this
study; cost = hours × the hourly rate the admin gives; the expected half-width of the
agreement interval after the plan = ``metaeval.stats.planner.predict_half_width`` for the
pilot plus the plan's new questions at its overlap (H₀ √(V(design)/V(pilot)), the module
doc of ``metaeval.stats.planner``). Each is null with a note when it is not defined.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from annotation import planning_strategy
from metaeval.loaders.planner import load_pilot, question_seconds
from metaeval.stats import planner as stats

#: Rounds of the pilot's bootstrap: only its level is used here, not a reported interval.
ROUNDS = 200
#: Tasks whose judgments feed the agreement figure the interval is predicted for.
AGREEMENT_TASKS = ("medal_ranking", "metric_wise")
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
    return fill_to_overlap(order, counts, spec.overlap, room, [it.question for it in items])


def fill_to_overlap(order, counts, overlap: int, room: int, questions) -> list[int]:
    """The greedy ``order`` (indices, one per unit) as whole questions: each question in the
    order it was first chosen gets ``overlap − counts`` units at once while ``room`` lasts."""
    out: list[int] = []
    for i in dict.fromkeys(order):
        need = overlap - counts[i]
        if need <= 0 or need > room:
            continue
        out += [questions[i]] * need
        room -= need
    return out


@dataclass(frozen=True)
class Estimate:
    """What a plan costs and buys (module doc); None fields come with a note."""

    assignments: int
    new_questions: int
    seconds_per_assignment: float | None
    hours: float | None
    hourly_rate: float | None
    cost: float | None
    half_width_now: float | None
    half_width_after: float | None
    notes: tuple[str, ...] = ()
    #: What the interval is of, said beside it (not only in the collapsed explanation) when
    #: it is not the planned task's own figure; "" when it is.
    interval_of: str = ""

    @property
    def work(self) -> tuple[str, str] | None:
        """(value, unit) of the expert time, in the largest unit that keeps it readable:
        hours from one hour up, else minutes, else seconds, so non-zero work never reads
        "0.0 expert hours" (the tester: 12 tasks × 5 s shown as 0.0 hours next to a cost of
        1.00). None when the time is unknown."""
        if self.hours is None:
            return None
        seconds = self.hours * 3600
        if seconds >= 3600:
            return f"{self.hours:.1f}", "expert hours"
        if seconds >= 60:
            return f"{seconds / 60:.1f}", "expert minutes"
        if seconds == 0:
            return "0", "expert hours"
        return (f"{seconds:.0f}" if seconds >= 1 else "< 1"), "expert seconds"


#: Beside the interval when the planned task does not feed it (no variance model exists for
#: the other tasks' figures, so none is predicted for them).
NOT_THIS_TASK = (
    "The interval is that of the judge's agreement with the experts' medal rankings "
    "(the agreement report's preference table), the only figure the planner has a model "
    "for; this task does not feed it, so no interval is predicted for this plan"
)
PLANNER_TARGET = (
    ", and the budget planner's choice of questions targets that agreement, not this task's figure"
)


def estimate(
    study,
    task: str,
    assignments,
    overlap: int,
    hourly_rate: float | None = None,
    strategy: str = "",
):
    """Hours, cost and the expected agreement half-width of a previewed plan."""
    notes = []
    timed = [s for v in question_seconds(study.pk, task).values() for s in v]
    seconds = float(np.median(timed)) if timed else None
    n = len(assignments)
    hours = n * seconds / 3600 if seconds is not None else None
    if seconds is None:
        notes.append("Hours: no submitted assignment of this task has a measured time yet.")
    cost = hours * hourly_rate if hours is not None and hourly_rate is not None else None
    if hourly_rate is None:
        notes.append("Cost: give a cost per expert hour to see it.")
    new_q = len({a.question for a in assignments})
    now = after = None
    if task not in AGREEMENT_TASKS:
        notes.append(
            "Interval: predicted for the judge agreement of medal rankings (the agreement "
            "report's preference table), which this task does not feed."
        )
        said = NOT_THIS_TASK + (PLANNER_TARGET if strategy == planning_strategy.NAME else "")
        return Estimate(
            n, new_q, seconds, hours, hourly_rate, cost, None, None, tuple(notes), said + "."
        )
    try:
        model = stats.fit(load_pilot(study.pk, "agreement").pilot, n_rounds=ROUNDS)
    except ValueError as exc:
        model = None
        notes.append(f"Interval: no pilot to predict from ({exc}).")
    if model is not None:
        now = model.half_width
        after = stats.predict_half_width(model, new_q, overlap)
        if after is None:
            notes.append(
                "Interval: "
                + (model.note or "the pilot cannot predict a design with this overlap.")
            )
    return Estimate(n, new_q, seconds, hours, hourly_rate, cost, now, after, tuple(notes))


def plan(study, items, people, spec):
    """The planner's :class:`annotation.assignment.Plan` for the Assign page."""
    return planning_strategy.planned_picks(
        items, people, picks(study.pk, spec.task, items, people, spec), seed=spec.seed
    )
