"""The budget planner's pure strategy: who takes each pick, with the invariants of every
plan (annotation.assignment)."""

from __future__ import annotations

from collections import Counter

import pytest

from annotation import assignment as A
from annotation.planning_strategy import planned_picks


def _items(n, assigned=None):
    assigned = assigned or {}
    return [
        A.Item(question=q, reports=(10 * q, 10 * q + 1), assigned=frozenset(assigned.get(q, ())))
        for q in range(n)
    ]


def test_picks_are_served_in_order_least_loaded_first():
    items = _items(4, {0: {1}})
    people = [A.Person(1), A.Person(2), A.Person(3)]
    plan = planned_picks(items, people, [3, 2, 0, 3], seed=4)
    assert [a.question for a in plan.assignments] == [3, 2, 0, 3]
    assert plan.strategy == "planner" and {a.reason for a in plan.assignments} == {"planner"}
    pairs = [(a.annotator, a.question) for a in plan.assignments]
    assert len(set(pairs)) == len(pairs)  # nobody twice on a question
    assert (1, 0) not in pairs  # nor on one they already have
    assert max(Counter(a.annotator for a in plan.assignments).values()) == 2  # 4 over 3
    assert plan.wanted == {3: 2, 2: 1, 0: 2}
    assert sorted(plan.assignments[0].reports) == [30, 31]


def test_capacity_and_exhausted_pool_leave_the_pick_short():
    items = _items(2)
    people = [A.Person(1, capacity=1), A.Person(2, capacity=0)]
    plan = planned_picks(items, people, [0, 0, 1])
    assert [(a.annotator, a.question) for a in plan.assignments] == [(1, 0)]
    summary = A.summarize(plan, items)
    assert summary.short == [0, 1]
    with pytest.raises(ValueError, match="not among"):
        planned_picks(items, people, [7])


def test_planner_is_a_registered_strategy():
    assert "planner" in A.STRATEGIES and A.SETTING_OF["planner"] == A.ASSIGNED
