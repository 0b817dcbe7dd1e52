"""Table 3 statistics (seed 002 §8.11): agreement and κ per label kind, null + note."""

import numpy as np
import pytest

from annotation.models.deepscholar import LABELS
from metaeval.stats.deepscholar_agreement import KINDS, NO_KAPPA, NO_UNITS, kind_agreement, table3


def test_kinds_match_the_stored_label_sets():
    assert KINDS == LABELS


def test_three_way_labels_are_compared_as_is():
    human = ["supported", "partially_supported", "not_supported", "supported"]
    judge = ["supported", "supported", "not_supported", "partially_supported"]
    r = kind_agreement("nugget_support", human, judge, [1, 1, 2, 2], rounds=0)
    assert r.agreement.value == 0.5  # partial vs supported is a disagreement
    # κ by hand: p_o = 0.5; marginals h (S .5, P .25, N .25), j (S .5, P .25, N .25)
    pe = 0.5 * 0.5 + 0.25 * 0.25 + 0.25 * 0.25
    assert r.kappa.value == pytest.approx((0.5 - pe) / (1 - pe))
    assert (r.n_units, r.n_questions) == (4, 2)


def test_numbers_and_strings_are_the_same_relevance_label():
    r = kind_agreement("retrieval_relevance", [0, 1, 2], ["0", "1", "1"], [1, 2, 3], rounds=0)
    assert r.agreement.value == pytest.approx(2 / 3)


def test_undefined_figures_are_null_with_a_note():
    empty = kind_agreement("entailment", [], [], [], rounds=100)
    assert empty.agreement.value is None and empty.agreement.note == NO_UNITS
    same = kind_agreement("entailment", ["entailed"] * 4, ["entailed"] * 4, [1, 1, 2, 2],
                          rounds=0)  # fmt: skip
    assert same.agreement.value == 1.0
    assert same.kappa.value is None and same.kappa.note == NO_KAPPA


def test_interval_over_questions_brackets_the_estimate():
    rng = np.random.default_rng(3)
    q = np.repeat(np.arange(20), 5)
    human = rng.choice(["vital", "non_vital"], size=q.size)
    judge = np.where(rng.random(q.size) < 0.8, human, "vital")
    r = kind_agreement("nugget_importance", human, judge, q, rounds=300, seed=1)
    assert r.agreement.low <= r.agreement.value <= r.agreement.high
    assert r.agreement.high - r.agreement.low > 0
    one_question = kind_agreement("nugget_importance", human[:5], judge[:5], q[:5], rounds=50)
    assert one_question.agreement.value is not None and one_question.agreement.low is None
    assert "at least 2" in one_question.agreement.note


def test_table3_reports_every_kind_in_order():
    rows = {"organization": (["win", "tie"], ["win", "lose"], [1, 2])}
    table = table3(rows, rounds=0)
    assert [r.kind for r in table] == list(KINDS)
    assert table[0].agreement.value == 0.5
    assert all(r.agreement.value is None for r in table[1:])
