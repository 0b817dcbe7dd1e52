"""The budget planner's assignment strategy (issue 17 part 3): pure, data in, plan out.

The statistics choose *which questions* get the next units and in what order
(``metaeval.stats.planner.allocation_order``: expected variance reduction of the chosen
figure per expert hour, from a pilot); this module only decides *who* takes each one, with
the invariants of :mod:`annotation.assignment`: nobody gets a question twice (nor one they
already have, ``Item.assigned``), nobody exceeds their capacity, the least loaded eligible
annotator first (seeded tie-break), reports shuffled per annotator. A pick nobody can take
is skipped and shows up as the plan's shortfall (``Plan.wanted``).

It lives apart from :mod:`annotation.assignment` so that file stays one registry entry
away from it (``STRATEGIES``) and the planner's inputs (the picks) are computed above the
annotation app, where the judge scores are visible (``studio.studyadmin.budget``).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

from .assignment import ASSIGNED, Item, Person, Plan, Planned, _check

NAME = "planner"


def planned_picks(
    items: Sequence[Item],
    annotators: Sequence[Person],
    picks: Sequence[int],
    *,
    seed: int = 0,
    setting: str = ASSIGNED,
) -> Plan:
    """One new annotator for each entry of ``picks`` (question ids, best first, repeated
    for a question that gets several), in that order."""
    _check(items, annotators, 1)
    rng = random.Random(seed)
    tiebreak = {p.id: rng.random() for p in annotators}
    by_q = {it.question: it for it in items}
    unknown = [q for q in picks if q not in by_q]
    if unknown:
        raise ValueError(f"picks: question {unknown[0]} is not among the items")
    has = {it.question: set(it.assigned) | set(it.seen) | set(it.barred) for it in items}
    left = {p.id: p.capacity for p in annotators}
    load: Counter = Counter()
    planned: list[Planned] = []
    want = Counter(picks)
    for q in picks:
        free = [p for p in annotators if p.id not in has[q] and left[p.id] != 0]
        if not free:
            continue
        p = min(free, key=lambda p: (load[p.id], tiebreak[p.id]))
        reports = list(by_q[q].reports)
        rng.shuffle(reports)
        planned.append(Planned(p.id, q, tuple(reports), setting, NAME))
        has[q].add(p.id)
        load[p.id] += 1
        if left[p.id] is not None:
            left[p.id] -= 1
    wanted = {q: len(by_q[q].assigned) + n for q, n in want.items()}
    return Plan(NAME, tuple(planned), wanted)
