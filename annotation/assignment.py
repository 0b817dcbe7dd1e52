"""Assignment strategies: pure functions, data in, plan out (no database, no Django).

Every strategy takes the same two inputs and returns a :class:`Plan`:

- ``items``: one :class:`Item` per question to be judged, carrying the reports it compares
  (and their systems), its field, who authored it and who already has it;
- ``annotators``: one :class:`Person` per annotator in the pool, with expertise fields and
  how many *new* assignments they can still take (``capacity``; None = no limit).

The strategies (seed 003 §4.2, seed 000/001 §3):

=================  ==========================================================================
random_assignment  Setting 1: each comparison judged by ``overlap`` different annotators,
                   drawn with a seed; the least loaded annotator first so work is even.
by_expertise       ResearchQA: the same, but only annotators whose expertise fields contain
                   the question's field (field-matched expert pools).
from_triage        Setting 2 (near-expert): each expert gets ``per_expert`` questions they
                   rated *within* their expertise, then *near* when no within question is
                   left; never a question rated *outside* or not rated.
authored           Setting 3 (deep-expert): a question an annotator wrote comes back to them.
replacements       An annotator dropped out: one new annotator for each unfinished item.
=================  ==========================================================================

Invariants every plan keeps (and the property tests check): no annotator gets the same
question twice (nor one they already have: ``Item.assigned``), nobody exceeds their capacity,
an item never gets more than ``overlap`` annotators in all. Items are visited field by field in
turn, so when capacity runs short the shortfall is spread over fields, not piled on the last.

:func:`balanced_systems` chooses which systems are compared on each question (e.g. 3 of 6) so
that every pair of systems is compared equally often; :func:`summarize` gives the counts an
admin reviews before committing a plan.
"""

from __future__ import annotations

import math
import random
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations

ASSIGNED, NEAR_EXPERT, DEEP_EXPERT = "assigned", "near_expert", "deep_expert"
WITHIN, NEAR, OUTSIDE = "within", "near", "outside"


@dataclass(frozen=True)
class Item:
    """One question to be judged and the reports it compares (one comparison)."""

    question: int
    field: str = ""
    reports: tuple[int, ...] = ()
    #: The system of each report, in the same order (for the balance counts).
    systems: tuple[str, ...] = ()
    authored_by: int | None = None
    #: Annotators who already have this question for this task: they are never given it
    #: again, and they count towards the overlap.
    assigned: frozenset[int] = frozenset()


@dataclass(frozen=True)
class Person:
    """An annotator in the pool."""

    id: int
    fields: frozenset[str] = frozenset()
    #: How many new assignments this annotator can still take; None = no limit.
    capacity: int | None = None


@dataclass(frozen=True)
class Planned:
    """One assignment of the plan: reports in the order this annotator will see them."""

    annotator: int
    question: int
    reports: tuple[int, ...]
    setting: str
    #: Why this annotator: "random", "field", "within", "near", "authored", "replacement".
    reason: str


@dataclass(frozen=True)
class Plan:
    strategy: str
    assignments: tuple[Planned, ...]
    #: question -> how many annotators it should have in all (existing ones included).
    wanted: Mapping[int, int] = field(default_factory=dict)

    def by_annotator(self) -> dict[int, list[Planned]]:
        out: dict[int, list[Planned]] = defaultdict(list)
        for a in self.assignments:
            out[a.annotator].append(a)
        return dict(out)


def _pairs(systems: Iterable[str]) -> list[tuple[str, str]]:
    return list(combinations(sorted(systems), 2))


# --- which systems are compared on each question ------------------------------------------

#: Above this many subsets the exact cycle is not enumerated; subsets are chosen greedily.
MAX_SUBSETS = 2000


def balanced_systems(
    available: Mapping[int, Sequence[str]], per_question: int | None, *, seed: int = 0
) -> dict[int, tuple[str, ...]]:
    """Which ``per_question`` systems each question compares, every pair equally often.

    ``available`` maps a question to the systems that have a report for it. When every
    question has all systems, the C(n, m) subsets are used in whole cycles (each subset the
    same number of times, so each pair exactly C(n-2, m-2) times per cycle) and the remainder
    is chosen greedily, one distinct subset at a time, the subset whose pairs have been
    compared least first: the pair counts then differ by at most C(n-2, m-2), and by none when
    the number of questions is a multiple of C(n, m). When some questions miss systems, every
    question chooses greedily (those with fewest systems first) among what it has. ``per_question`` None (or >= the systems available) means
    all of them. Deterministic for a seed.
    """
    rng = random.Random(seed)
    everyone = sorted({s for systems in available.values() for s in systems})
    out: dict[int, tuple[str, ...]] = {}
    pair_count: Counter = Counter()
    system_count: Counter = Counter()

    def take(q, subset):
        subset = tuple(sorted(subset))
        out[q] = subset
        pair_count.update(_pairs(subset))
        system_count.update(subset)

    full, partial = [], []
    for q in sorted(available):
        systems = sorted(set(available[q]))
        if per_question is None or per_question >= len(systems):
            take(q, systems)
        elif systems == everyone:
            full.append(q)
        else:
            partial.append(q)
    m = per_question or 0
    if partial:
        # Mixed availability: everything greedily, the most constrained questions first, so
        # the complete ones can make up for what the others lacked.
        partial = sorted(partial, key=lambda q: len(set(available[q]))) + full
        full = []
    if full:
        n_subsets = math.comb(len(everyone), m)
        if n_subsets <= MAX_SUBSETS:
            subsets = list(combinations(everyone, m))
            rng.shuffle(subsets)
            cycles, rest = divmod(len(full), len(subsets))
            chosen = subsets * cycles
            counts = Counter(p for s in chosen for p in _pairs(s))
            sys_counts = Counter(x for s in chosen for x in s)
            pool = list(subsets)
            for _ in range(rest):
                best = min(
                    range(len(pool)),
                    key=lambda i: (
                        sum(counts[p] for p in _pairs(pool[i])),
                        sum(sys_counts[x] for x in pool[i]),
                        i,
                    ),
                )
                subset = pool.pop(best)
                counts.update(_pairs(subset))
                sys_counts.update(subset)
                chosen.append(subset)
            rng.shuffle(chosen)
            for q, subset in zip(full, chosen, strict=True):
                take(q, subset)
        else:
            partial = full + partial
    for q in partial:
        systems = sorted(set(available[q]))
        candidates = list(combinations(systems, m))
        if len(candidates) > MAX_SUBSETS:
            candidates = [tuple(sorted(rng.sample(systems, m))) for _ in range(200)]
        keyed = [
            (
                sum(pair_count[p] for p in _pairs(c)),
                sum(system_count[x] for x in c),
                rng.random(),
                c,
            )
            for c in candidates
        ]
        take(q, min(keyed)[3])
    return out


# --- the shared greedy --------------------------------------------------------------------


def _field_order(items: Sequence[Item], rng: random.Random) -> list[Item]:
    """Items shuffled, then taken one field at a time in turn (fields balanced)."""
    by_field: dict[str, list[Item]] = defaultdict(list)
    for it in sorted(items, key=lambda i: i.question):
        by_field[it.field].append(it)
    fields = sorted(by_field)
    rng.shuffle(fields)
    for f in fields:
        rng.shuffle(by_field[f])
    out = []
    for i in range(max((len(v) for v in by_field.values()), default=0)):
        out.extend(by_field[f][i] for f in fields if i < len(by_field[f]))
    return out


def _check(items: Sequence[Item], annotators: Sequence[Person], overlap: int) -> None:
    if overlap < 1:
        raise ValueError("overlap: each comparison needs at least 1 annotator")
    questions = [it.question for it in items]
    if len(set(questions)) != len(questions):
        raise ValueError("items: a question appears twice")
    ids = [p.id for p in annotators]
    if len(set(ids)) != len(ids):
        raise ValueError("annotators: an annotator appears twice")
    for p in annotators:
        if p.capacity is not None and p.capacity < 0:
            raise ValueError(f"capacity: annotator {p.id} has a negative capacity")


def _greedy(
    strategy: str,
    items: Sequence[Item],
    annotators: Sequence[Person],
    *,
    overlap: int,
    seed: int,
    setting: str,
    eligible,
    reason: str,
) -> Plan:
    _check(items, annotators, overlap)
    rng = random.Random(seed)
    tiebreak = {p.id: rng.random() for p in annotators}
    load: Counter = Counter()
    left = {p.id: p.capacity for p in annotators}
    planned: list[Planned] = []
    wanted = {}
    for it in _field_order(items, rng):
        wanted[it.question] = overlap
        need = overlap - len(it.assigned)
        if need <= 0:
            continue
        candidates = [
            p for p in annotators if p.id not in it.assigned and left[p.id] != 0 and eligible(p, it)
        ]
        candidates.sort(key=lambda p: (load[p.id], tiebreak[p.id]))
        for p in candidates[:need]:
            order = list(it.reports)
            rng.shuffle(order)
            planned.append(Planned(p.id, it.question, tuple(order), setting, reason))
            load[p.id] += 1
            if left[p.id] is not None:
                left[p.id] -= 1
    return Plan(strategy, tuple(planned), wanted)


# --- the strategies -----------------------------------------------------------------------


def random_assignment(
    items: Sequence[Item],
    annotators: Sequence[Person],
    *,
    overlap: int = 1,
    seed: int = 0,
    setting: str = ASSIGNED,
) -> Plan:
    """Setting 1: each comparison to ``overlap`` different annotators, least loaded first."""
    return _greedy(
        "random",
        items,
        annotators,
        overlap=overlap,
        seed=seed,
        setting=setting,
        eligible=lambda p, it: True,
        reason="random",
    )


def by_expertise(
    items: Sequence[Item],
    annotators: Sequence[Person],
    *,
    overlap: int = 1,
    seed: int = 0,
    setting: str = ASSIGNED,
) -> Plan:
    """ResearchQA's field-matched pools: only experts of the question's field judge it."""
    return _greedy(
        "expertise",
        items,
        annotators,
        overlap=overlap,
        seed=seed,
        setting=setting,
        eligible=lambda p, it: bool(it.field) and it.field in p.fields,
        reason="field",
    )


def from_triage(
    items: Sequence[Item],
    annotators: Sequence[Person],
    ratings: Mapping[tuple[int, int], str],
    *,
    per_expert: int = 5,
    overlap: int = 1,
    seed: int = 0,
) -> Plan:
    """Setting 2: ``per_expert`` questions per expert, *within* before *near*, never *outside*.

    ``ratings`` maps (annotator, question) to within / near / outside; an unrated question
    is never given. Experts choose in turn, one question per round (those with fewest options
    first), so nobody takes all the within questions of a shared field before the others
    choose. An expert gets a near question only when none of the within questions they rated
    is still open (availability only shrinks, so that still holds at the end). Each question
    goes to at most ``overlap`` experts in all.
    """
    _check(items, annotators, overlap)
    if per_expert < 0:
        raise ValueError("per_expert: cannot be negative")
    rng = random.Random(seed)
    by_question = {it.question: it for it in items}
    taken = Counter({it.question: len(it.assigned) for it in items})
    options: dict[int, list[tuple[int, str]]] = {}
    quota: dict[int, int] = {}
    for p in annotators:
        within = [q for q in by_question if ratings.get((p.id, q)) == WITHIN]
        near = [q for q in by_question if ratings.get((p.id, q)) == NEAR]
        rng.shuffle(within)
        rng.shuffle(near)
        options[p.id] = [
            (q, level)
            for level, qs in ((WITHIN, within), (NEAR, near))
            for q in qs
            if p.id not in by_question[q].assigned
        ]
        quota[p.id] = per_expert if p.capacity is None else min(per_expert, p.capacity)
    order = sorted(annotators, key=lambda p: (len(options[p.id]), rng.random()))
    planned: list[Planned] = []
    got: Counter = Counter()
    progress = True
    while progress:
        progress = False
        for p in order:
            if got[p.id] >= quota[p.id]:
                continue
            for i, (q, level) in enumerate(options[p.id]):
                if taken[q] < overlap:
                    del options[p.id][i]
                    reports = list(by_question[q].reports)
                    rng.shuffle(reports)
                    planned.append(Planned(p.id, q, tuple(reports), NEAR_EXPERT, level))
                    taken[q] += 1
                    got[p.id] += 1
                    progress = True
                    break
    return Plan("triage", tuple(planned), {q: overlap for q in by_question})


def authored(items: Sequence[Item], annotators: Sequence[Person], *, seed: int = 0) -> Plan:
    """Setting 3: every question goes back to the annotator who wrote it (and to nobody else).

    Questions without an author in the pool, or whose author is out of capacity, stay
    unassigned (they show up as the shortfall of the plan).
    """
    _check(items, annotators, 1)
    rng = random.Random(seed)
    people = {p.id: p for p in annotators}
    left = {p.id: p.capacity for p in annotators}
    planned = []
    for it in sorted(items, key=lambda i: i.question):
        a = it.authored_by
        if a is None or a not in people or a in it.assigned or left[a] == 0:
            continue
        reports = list(it.reports)
        rng.shuffle(reports)
        planned.append(Planned(a, it.question, tuple(reports), DEEP_EXPERT, "authored"))
        if left[a] is not None:
            left[a] -= 1
    return Plan("authored", tuple(planned), {it.question: 1 for it in items})


def replacements(
    items: Sequence[Item], annotators: Sequence[Person], *, seed: int = 0, setting: str = ASSIGNED
) -> Plan:
    """One new annotator for each unfinished item of someone who dropped out.

    ``items`` are the dropped annotator's unfinished questions, with ``assigned`` = everyone
    else who has the question (the dropped annotator excluded from ``annotators``). An expert
    of the question's field is preferred when the pool has one; otherwise the least loaded.
    """
    _check(items, annotators, 1)
    rng = random.Random(seed)
    tiebreak = {p.id: rng.random() for p in annotators}
    load: Counter = Counter()
    left = {p.id: p.capacity for p in annotators}
    planned = []
    for it in _field_order(items, rng):
        candidates = [p for p in annotators if p.id not in it.assigned and left[p.id] != 0]
        if not candidates:
            continue
        p = min(
            candidates,
            key=lambda p: (not (it.field and it.field in p.fields), load[p.id], tiebreak[p.id]),
        )
        reports = list(it.reports)
        rng.shuffle(reports)
        planned.append(Planned(p.id, it.question, tuple(reports), setting, "replacement"))
        load[p.id] += 1
        if left[p.id] is not None:
            left[p.id] -= 1
    return Plan("replacement", tuple(planned), {it.question: 1 for it in items})


# --- what an admin reviews before committing ----------------------------------------------


@dataclass(frozen=True)
class Summary:
    assignments: int
    per_annotator: dict[int, int]
    per_pair: dict[tuple[str, str], int]
    per_system: dict[str, int]
    per_field: dict[str, int]
    #: achieved number of annotators (existing + planned) -> number of questions
    overlap: dict[int, int]
    wanted: int
    short: list[int]  # questions with fewer annotators than wanted
    per_reason: dict[str, int]

    @property
    def pair_spread(self) -> int:
        """Most compared pair minus least compared pair (0 = perfectly balanced)."""
        return max(self.per_pair.values()) - min(self.per_pair.values()) if self.per_pair else 0


def summarize(plan: Plan, items: Sequence[Item]) -> Summary:
    """Counts per annotator, per system pair, per field, and the overlap achieved.

    Pair and system counts are over planned assignments (one judgment each is expected).
    """
    by_q = {it.question: it for it in items}
    per_annotator: Counter = Counter()
    per_pair: Counter = Counter()
    per_system: Counter = Counter()
    per_field: Counter = Counter()
    per_reason: Counter = Counter()
    achieved = Counter({it.question: len(it.assigned) for it in items})
    for a in plan.assignments:
        it = by_q[a.question]
        per_annotator[a.annotator] += 1
        per_pair.update(_pairs(it.systems))
        per_system.update(it.systems)
        per_field[it.field or "(none)"] += 1
        per_reason[a.reason] += 1
        achieved[a.question] += 1
    wanted = max(plan.wanted.values(), default=0)
    short = sorted(q for q, w in plan.wanted.items() if achieved[q] < w)
    overlap = Counter(achieved[it.question] for it in items)
    return Summary(
        assignments=len(plan.assignments),
        per_annotator=dict(sorted(per_annotator.items())),
        per_pair=dict(sorted(per_pair.items())),
        per_system=dict(sorted(per_system.items())),
        per_field=dict(sorted(per_field.items())),
        overlap=dict(sorted(overlap.items())),
        wanted=wanted,
        short=short,
        per_reason=dict(sorted(per_reason.items())),
    )


STRATEGIES = ("random", "expertise", "triage", "authored")
SETTING_OF = {
    "random": ASSIGNED,
    "expertise": ASSIGNED,
    "triage": NEAR_EXPERT,
    "authored": DEEP_EXPERT,
}
