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
question twice (nor one they already have or have read: ``Item.open_to``), nobody exceeds
their capacity,
an item never gets more than ``overlap`` annotators in all, and an item given any (random,
expertise) gets exactly ``overlap``. Items are visited field by field in
turn, so when capacity runs short the shortfall is spread over fields, not piled on the last.

``random_assignment`` and ``by_expertise`` give a question annotators only when it reaches
``overlap`` in all (:func:`_complete_questions`): capacity goes to questions that can be
completed, as many of them as any plan completes (an integer programme when they cannot all
be), never to a question left short of K, which the admin sees with its reason instead. The
greedy plan of those questions is kept when it completes them all; otherwise the plan is a
min-cost maximum flow (:func:`_flow`, networkx's network simplex) whose costs keep the
annotators' loads balanced as a secondary objective.

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

#: The settings' values (``annotation.models.Setting`` declares them; a test checks they
#: are the same): this module imports no Django.
ASSIGNED, NEAR_EXPERT, DEEP_EXPERT = "assigned", "near_expert", "deep_expert"
EXPERTISE_MATCHED = "expertise_matched"
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
    #: Annotators who already have this question for this task in the setting the plan
    #: writes: they are never given it again, and they count towards the overlap.
    assigned: frozenset[int] = frozenset()
    #: Annotators who have read this question for this task but do not count towards this
    #: plan's overlap: they hold it in another setting (agreement is computed within a
    #: setting, so an expertise-matched annotator is no annotator of the random setting) or
    #: their assignment was withdrawn. Never given it again: they have read it.
    seen: frozenset[int] = frozenset()
    #: Annotators who may not be given it although they do not have it: they hold another
    #: task on it that writes the same judgment (medal ranking and metric-wise both write the
    #: one ranking of a question and setting, ``MedalRanking.one_ranking``; issue 26). They
    #: do not count towards the overlap.
    barred: frozenset[int] = frozenset()

    def open_to(self, annotator: int) -> bool:
        """Whether ``annotator`` may be given this item."""
        return (
            annotator not in self.assigned
            and annotator not in self.seen
            and annotator not in self.barred
        )


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


# --- the shared flow ----------------------------------------------------------------------


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


def _flow(
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
    """The plan as a min-cost flow: source → field → item → annotator → sink.

    A greedy pass (visit items, take the least loaded eligible annotators) can strand a
    question: with questions (nlp, bio), experts {nlp, bio} and {nlp} of capacity 1, giving
    the nlp question to the first expert leaves bio uncovered although a full plan exists.
    As a flow problem the number of assignments is maximal by construction (every
    augmenting path is taken), and the costs choose among the maximal plans,
    lexicographically (each level's weight exceeds all lower levels' costs combined):

    1. spread over items — every question's first annotator before any question's second
       (convex cost per extra annotator on the field → item edges);
    2. spread over fields — a shortfall is shared by the fields, not piled on one;
    3. balanced load — convex cost per extra assignment on the annotator → sink edges;
    4. a seeded random tie-break on each (item, annotator) edge: deterministic per seed.

    Solved with networkx's network simplex (integer costs: exact). An edge source → sink of
    prohibitive cost carries whatever cannot be assigned, so the flow is always feasible.
    """
    import networkx as nx

    _check(items, annotators, overlap)
    rng = random.Random(seed)
    tiebreak = {p.id: rng.random() for p in annotators}
    ordered = _field_order(items, rng)
    wanted = {it.question: overlap for it in ordered}
    need = {it.question: max(0, overlap - len(it.assigned)) for it in ordered}
    edges: dict[int, list[Person]] = {
        it.question: [
            p
            for p in annotators
            if need[it.question] and it.open_to(p.id) and p.capacity != 0 and eligible(p, it)
        ]
        for it in ordered
    }
    units = sum(min(need[q], len(ps)) for q, ps in edges.items())
    if not units:
        return Plan(strategy, (), wanted)
    # Each level's unit weight exceeds the largest total of the levels below it (at most
    # `units` units, each step of a convex cost at most `units` high).
    ties = 1000
    w_load = (units + 1) * ties
    w_field = 2 * (units + 1) ** 2 * w_load
    w_item = 2 * (units + 1) ** 2 * w_field
    g = nx.MultiDiGraph()
    g.add_node("s", demand=-units)
    g.add_node("t", demand=units)
    field_units: Counter = Counter()
    degree: Counter = Counter()
    for it in ordered:
        q, people = it.question, edges[it.question]
        n = min(need[q], len(people))
        if not n:
            continue
        f = ("f", it.field)
        for k in range(1, n + 1):  # the k-th new annotator of this question
            g.add_edge(f, ("q", q), capacity=1, weight=(len(it.assigned) + k) * w_item)
        field_units[it.field] += n
        for p in people:
            g.add_edge(("q", q), ("p", p.id), capacity=1, weight=rng.randrange(ties))
            degree[p.id] += 1
    for fld in sorted(field_units):
        for k in range(1, field_units[fld] + 1):
            g.add_edge("s", ("f", fld), capacity=1, weight=k * w_field)
    for p in annotators:
        top = degree[p.id] if p.capacity is None else min(p.capacity, degree[p.id])
        for k in range(1, top + 1):
            g.add_edge(("p", p.id), "t", capacity=1, weight=k * w_load)
    # dearer than any augmenting path of real edges: used only for what cannot be assigned
    bypass = sum(w for _, _, w in g.edges(data="weight")) + 1
    g.add_edge("s", "t", capacity=units, weight=bypass)
    _, flow = nx.network_simplex(g)
    chosen: dict[int, set[int]] = defaultdict(set)
    for q in edges:
        for (_, pid), by_key in flow.get(("q", q), {}).items():
            if sum(by_key.values()):
                chosen[q].add(pid)
    planned: list[Planned] = []
    load: Counter = Counter()
    for it in ordered:
        for pid in sorted(chosen.get(it.question, ()), key=lambda i: (load[i], tiebreak[i])):
            order = list(it.reports)
            rng.shuffle(order)
            planned.append(Planned(pid, it.question, tuple(order), setting, reason))
            load[pid] += 1
    return Plan(strategy, tuple(planned), wanted)


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
            p for p in annotators if it.open_to(p.id) and left[p.id] != 0 and eligible(p, it)
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


def _most_assignable(items: Sequence[Item], annotators: Sequence[Person], overlap: int, eligible):
    """How many assignments a best plan makes: the maximum flow source → item (its missing
    annotators) → eligible annotator (1 each) → sink (capacity), by scipy's csgraph."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import maximum_flow

    index = {p.id: i for i, p in enumerate(annotators)}
    n_items, n_people = len(items), len(annotators)
    source, sink = 0, 1 + n_items + n_people
    rows, cols, caps = [], [], []
    degree: Counter = Counter()
    for k, it in enumerate(items, start=1):
        need = overlap - len(it.assigned)
        people = [
            p
            for p in annotators
            if need > 0 and it.open_to(p.id) and p.capacity != 0 and eligible(p, it)
        ]
        if not people:
            continue
        rows.append(source), cols.append(k), caps.append(min(need, len(people)))
        for p in people:
            rows.append(k), cols.append(1 + n_items + index[p.id]), caps.append(1)
            degree[p.id] += 1
    for p in annotators:
        if degree[p.id]:
            cap = degree[p.id] if p.capacity is None else min(p.capacity, degree[p.id])
            rows.append(1 + n_items + index[p.id]), cols.append(sink), caps.append(cap)
    if not rows:
        return 0
    graph = csr_matrix((caps, (rows, cols)), shape=(sink + 1, sink + 1), dtype="int32")
    return int(maximum_flow(graph, source, sink, method="dinic").flow_value)


def _candidates(items, annotators, overlap, eligible) -> dict[int, list[Person]]:
    """question -> the annotators who may be given it, for each question still missing
    annotators that has enough of them to reach ``overlap`` on its own."""
    out = {}
    for it in items:
        need = overlap - len(it.assigned)
        people = [p for p in annotators if it.open_to(p.id) and p.capacity != 0 and eligible(p, it)]
        if need > 0 and len(people) >= need:
            out[it.question] = people
    return out


def _complete_questions(
    items: Sequence[Item], annotators: Sequence[Person], overlap: int, eligible, seed: int
) -> frozenset[int]:
    """The questions a plan completes: as many as any plan can bring to ``overlap``
    annotators (existing ones included), fields spread among the plans that complete most.

    Why only complete questions: the plan page promises "every planned question gets K
    different annotators" and K >= 2 is chosen for agreement; a question given fewer than K
    adds no agreement pair and takes capacity a completable question needed (the tester's
    ResearcherBench plan: capacity 4, K = 2, ten questions got 1 annotator while four
    Model Architecture questions with two qualified experts got none). A question that
    cannot be completed is left to the admin with its reason (a plan of overlap 1 serves
    it knowingly).

    When every question that has enough eligible annotators can be completed at once (a
    maximum flow saturates them; almost always) they all are. Otherwise choosing the most
    completable questions is an integer programme (each question all or nothing), solved
    exactly by HiGHS (``scipy.optimize.milp``) over *classes* of interchangeable questions
    (same field, same missing count, same eligible annotators), so its size follows the
    fields, not the questions: integers y[c] (questions of class c completed, at most its
    size) and x[c, p] <= y[c] (how many of them annotator p takes) with
    sum_p x[c, p] = need(c) y[c] and sum_c x[c, p] <= capacity(p). Any such solution is a
    plan (x[c, p] <= y[c] lets the y[c] questions take need(c) different annotators each,
    dealt round-robin), so the optimum is exact. The objective is lexicographic by weights:
    completed questions first, then a concave reward per field (the k-th question of a
    field earns less than the first of another), then a seeded tie-break between classes;
    which questions of a class are completed is a seeded draw.
    """
    cands = _candidates(items, annotators, overlap, eligible)
    if not cands:
        return frozenset()
    chosen = [it for it in items if it.question in cands]
    need = {it.question: overlap - len(it.assigned) for it in chosen}
    if _most_assignable(chosen, annotators, overlap, eligible) == sum(need.values()):
        return frozenset(cands)
    import numpy as np
    from scipy.optimize import Bounds, LinearConstraint, milp
    from scipy.sparse import lil_array

    rng = random.Random(seed)
    members: dict[tuple, list[int]] = defaultdict(list)
    for it in sorted(chosen, key=lambda i: i.question):
        key = (it.field, need[it.question], tuple(sorted(p.id for p in cands[it.question])))
        members[key].append(it.question)
    classes = sorted(members)
    fields = sorted({c[0] for c in classes})
    per_field = Counter()
    for c in classes:
        per_field[c[0]] += len(members[c])
    edges = [(ci, pid) for ci, c in enumerate(classes) for pid in c[2]]
    ranks = [(f, k) for f in fields for k in range(1, per_field[f] + 1)]
    n_x, n_y, n_z = len(edges), len(classes), len(ranks)
    y0, z0 = n_x, n_x + n_y
    n = len(chosen)
    big = n * (n + 1) // 2 + n + 1  # one more complete question beats any spread
    c = np.zeros(n_x + n_y + n_z)
    for i in range(n_y):
        c[y0 + i] = -rng.random() / (n + 1)  # seeded tie-break, below one unit
    for j, (_, k) in enumerate(ranks):
        c[z0 + j] = -(big - k)
    people = sorted({pid for _, pid in edges})
    cap = {p.id: p.capacity for p in annotators}
    pi = {pid: i for i, pid in enumerate(people)}
    fi = {f: i for i, f in enumerate(fields)}
    n_rows = n_y + n_x + len(people) + len(fields)
    rows = lil_array((n_rows, n_x + n_y + n_z))
    lo, hi = [], []
    for ci, cl in enumerate(classes):  # sum_p x[c, p] - need y[c] = 0: all or nothing
        rows[ci, y0 + ci] = -cl[1]
        lo.append(0), hi.append(0)
    for e, (ci, pid) in enumerate(edges):
        rows[ci, e] = 1
        rows[n_y + e, e], rows[n_y + e, y0 + ci] = 1, -1  # x[c, p] <= y[c]
        rows[n_y + n_x + pi[pid], e] = 1
        lo.append(-np.inf), hi.append(0)
    for pid in people:
        lo.append(0), hi.append(np.inf if cap[pid] is None else cap[pid])
    for ci, cl in enumerate(classes):
        rows[n_y + n_x + len(people) + fi[cl[0]], y0 + ci] = 1
    for j, (f, _) in enumerate(ranks):
        rows[n_y + n_x + len(people) + fi[f], z0 + j] = -1  # a field's slots = its completes
    lo.extend([0] * len(fields)), hi.extend([0] * len(fields))
    upper = np.r_[[len(members[cl]) for cl in classes for _ in cl[2]],
                  [len(members[cl]) for cl in classes], np.ones(n_z)]  # fmt: skip
    res = milp(
        c,
        constraints=LinearConstraint(rows.tocsr(), lo, hi),
        integrality=np.r_[np.ones(n_x + n_y), np.zeros(n_z)],
        bounds=Bounds(0, upper),
        options={"mip_rel_gap": 0, "time_limit": 20},
    )
    if res.x is None:  # no solution in time: the maximal set a greedy pass finds
        done: list[Item] = []
        for it in _field_order(chosen, rng):
            trial = [*done, it]
            if _most_assignable(trial, annotators, overlap, eligible) == sum(
                need[t.question] for t in trial
            ):
                done.append(it)
        return frozenset(it.question for it in done)
    out: set[int] = set()
    for ci, cl in enumerate(classes):
        qs = list(members[cl])
        rng.shuffle(qs)
        out.update(qs[: round(res.x[y0 + ci])])
    return frozenset(out)


def _assign(strategy, items, annotators, **kw) -> Plan:
    """Only questions the plan completes (:func:`_complete_questions`) get annotators; among
    them the greedy plan when it completes them all (almost always, at a fraction of the
    cost), else the min-cost flow's (which does, the set being feasible)."""
    _check(items, annotators, kw["overlap"])
    complete = _complete_questions(items, annotators, kw["overlap"], kw["eligible"], kw["seed"])
    chosen = [it for it in items if it.question in complete]
    wanted = {it.question: kw["overlap"] for it in items}
    plan = _greedy(strategy, chosen, annotators, **kw)
    if len(plan.assignments) != sum(kw["overlap"] - len(it.assigned) for it in chosen):
        plan = _flow(strategy, chosen, annotators, **kw)
    return Plan(strategy, plan.assignments, wanted)


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
    return _assign(
        "random",
        items,
        annotators,
        overlap=overlap,
        seed=seed,
        setting=setting,
        eligible=lambda p, it: True,
        reason="random",
    )


def expert_of(field: str, fields) -> bool:
    """Whether someone with expertise ``fields`` is an expert of a question in ``field``:
    the one rule of the ``expertise_matched`` setting (a question with no field has no
    expert). The plans, the API's check of a moved assignment and gold release read it."""
    return bool(field) and field in (fields or ())


def by_expertise(
    items: Sequence[Item],
    annotators: Sequence[Person],
    *,
    overlap: int = 1,
    seed: int = 0,
    setting: str = EXPERTISE_MATCHED,
) -> Plan:
    """ResearchQA's field-matched pools: only experts of the question's field judge it (a
    setting of its own, ``expertise_matched``: see ``annotation.models.Setting``)."""
    return _assign(
        "expertise",
        items,
        annotators,
        overlap=overlap,
        seed=seed,
        setting=setting,
        eligible=lambda p, it: expert_of(it.field, p.fields),
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
            if by_question[q].open_to(p.id)
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
        if a is None or a not in people or not it.open_to(a) or left[a] == 0:
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
    An ``expertise_matched`` item goes only to an expert of its field (the setting says the
    annotator knows the field); without one it is left out (the caller says why).
    """
    _check(items, annotators, 1)
    rng = random.Random(seed)
    tiebreak = {p.id: rng.random() for p in annotators}
    load: Counter = Counter()
    left = {p.id: p.capacity for p in annotators}
    planned = []
    for it in _field_order(items, rng):
        candidates = [
            p
            for p in annotators
            if it.open_to(p.id)
            and left[p.id] != 0
            and (setting != EXPERTISE_MATCHED or expert_of(it.field, p.fields))
        ]
        if not candidates:
            continue
        p = min(
            candidates,
            key=lambda p: (not expert_of(it.field, p.fields), load[p.id], tiebreak[p.id]),
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


STRATEGIES = ("random", "expertise", "triage", "authored", "planner")
SETTING_OF = {
    "planner": ASSIGNED,  # annotation.planning_strategy
    "random": ASSIGNED,
    "expertise": EXPERTISE_MATCHED,
    "triage": NEAR_EXPERT,
    "authored": DEEP_EXPERT,
}
