"""Relevance adjudication: the pure rules (what a disagreement is, what is picked, what a
decision does) and the outcome statistic."""

import math

import pytest

from annotation import adjudication as rules
from metaeval.stats.adjudication import adjudication_outcome


@pytest.mark.parametrize(
    ("label", "relevant", "expected"),
    [
        ("R", True, False),
        ("U", True, False),
        ("O", True, True),
        ("R", False, True),
        ("U", False, True),
        ("O", False, False),
    ],
)
def test_disagreement_truth_table(label, relevant, expected):
    assert rules.disagrees(label, relevant) is expected


def test_an_unknown_label_is_refused():
    with pytest.raises(ValueError, match="not a relevance label"):
        rules.disagrees("X", True)


@pytest.mark.parametrize(
    ("decision", "label", "relevant", "final"),
    [
        ("keep", "U", False, "U"),
        ("subjective", "R", False, "R"),
        ("switch", "U", False, "O"),
        ("switch", "O", True, "R"),
    ],
)
def test_final_label(decision, label, relevant, final):
    assert rules.final_label(decision, label, relevant) == final


def test_find_keeps_reading_order_and_skips_what_was_not_compared():
    labels = [
        rules.Label(1, 10, "R"),
        rules.Label(1, 11, "O"),
        rules.Label(1, 12, "U"),  # no verdict: not compared
        rules.Label(2, 20, "R"),
    ]
    verdicts = {10: rules.Verdict(False, "off"), 11: rules.Verdict(True), 20: rules.Verdict(True)}
    found = rules.find(labels, verdicts)
    assert list(found) == [1]
    assert [(d.paragraph, d.annotator_label, d.judge_relevant) for d in found[1]] == [
        (10, "R", False),
        (11, "O", True),
    ]
    assert found[1][0].rationale == "off"


def test_pick_most_disagreements_first_skips_and_limits():
    d = rules.Disagreement
    found = {
        5: [d(5, 1, "R", False, "")],
        3: [d(3, 1, "R", False, ""), d(3, 2, "O", True, "")],
        4: [d(4, 1, "R", False, "")],
        9: [d(9, 1, "R", False, ""), d(9, 2, "R", False, ""), d(9, 3, "U", False, "")],
    }
    assert [s for s, _ in rules.pick(found)] == [9, 3, 4, 5]
    assert [s for s, _ in rules.pick(found, skip=[9], limit=2)] == [3, 4]
    with pytest.raises(ValueError):
        rules.pick(found, limit=0)


def test_blind_replaces_system_names_longest_first():
    text = "ScholarQA-CS2-SFT repeats ScholarQA-CS2; scholarqa-cs2 again."
    out = rules.blind(text, ["ScholarQA-CS2", "ScholarQA-CS2-SFT", ""])
    assert "scholarqa" not in out.lower()
    assert out == "[a system] repeats [a system]; [a system] again."


def test_outcome_before_and_after():
    out = adjudication_outcome(20, 5, ["keep", "switch", "switch", "subjective"])
    assert out.pre_agreement == 15 / 20
    assert out.post_agreement == 17 / 20
    assert out.post_agreement_subjective == 18 / 20
    assert (out.keep, out.switch, out.subjective) == (0.25, 0.5, 0.25)
    assert out.adjudicated == 4


def test_outcome_edge_cases():
    empty = adjudication_outcome(0, 0, [])
    assert math.isnan(empty.pre_agreement) and math.isnan(empty.keep)
    with pytest.raises(ValueError, match="unknown decisions"):
        adjudication_outcome(3, 1, ["maybe"])
    with pytest.raises(ValueError, match="decisions for"):
        adjudication_outcome(3, 1, ["keep", "keep"])
    with pytest.raises(ValueError, match="disagreements among"):
        adjudication_outcome(3, 4, [])
