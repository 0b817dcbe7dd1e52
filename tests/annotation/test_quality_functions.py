"""Pure functions of study quality control (issue 17, part 2): labels, gold scoring,
qualification, consensus, drift and the human signal."""

from datetime import datetime, timedelta

import pytest

from annotation.quality.agreement import (
    annotator_quality,
    consensus_hits,
    disagreements,
    drift_parts,
    plurality,
)
from annotation.quality.labels import (
    BadAnswer,
    Observation,
    medal_label,
    pair_unit,
    pairwise_label,
    parse_answer,
)
from annotation.quality.scoring import (
    Gold,
    Score,
    checks,
    flagged,
    gold_scores,
    qualification_outcome,
)
from annotation.quality.signal import Signal, human_signal

T0 = datetime(2026, 1, 1)
U1 = ("pairwise", 1, "A~B")
U2 = ("pairwise", 2, "A~B")
U3 = ("medal_ranking", 3, "")


def obs(annotator, unit, label, minute=0):
    return Observation(annotator, unit, label, T0 + timedelta(minutes=minute))


def test_pairwise_label_does_not_depend_on_the_side_shown():
    assert pairwise_label("left", "A", "B") == pairwise_label("right", "B", "A") == "A"
    assert pairwise_label("tie", "B", "A") == "tie"
    assert pair_unit("B", "A") == pair_unit("A", "B") == "A~B"
    assert medal_label({"B": "silver", "A": "gold"}) == "A=gold;B=silver"


def test_parse_answer_reads_every_notation_and_names_what_is_wrong():
    assert parse_answer("pairwise", "B>A", ["A", "B"]) == ("A~B", "B")
    assert parse_answer("pairwise", "A=B", ["A", "B"]) == ("A~B", "tie")
    assert parse_answer("pairwise", "A,B:both_bad", ["A", "B"]) == ("A~B", "both_bad")
    assert parse_answer("medal_ranking", "B=silver; A=Gold", ["A", "B"]) == ("", "A=gold;B=silver")
    with pytest.raises(BadAnswer, match="system “C”"):
        parse_answer("pairwise", "C>A", ["A", "B"])
    with pytest.raises(BadAnswer, match="every report needs a medal"):
        parse_answer("medal_ranking", "A=gold", ["A", "B"])
    with pytest.raises(BadAnswer, match="“platinum”"):
        parse_answer("medal_ranking", "A=platinum;B=gold", ["A", "B"])
    with pytest.raises(BadAnswer, match="empty"):
        parse_answer("pairwise", " ", ["A", "B"])


def test_gold_scores_skip_the_source_annotator_and_flag_below_threshold():
    gold = {U1: Gold("A", source_annotator=1), U2: Gold("tie")}
    scores = gold_scores(
        [obs(1, U1, "A"), obs(1, U2, "tie"), obs(2, U1, "B"), obs(2, U2, "tie"), obs(3, U3, "x")],
        gold,
    )
    assert (scores[1].correct, scores[1].answered) == (1, 1)  # U1 is their own answer
    assert (scores[2].correct, scores[2].answered) == (1, 2)
    assert 3 not in scores
    assert flagged(scores[2], 0.7) and not flagged(scores[1], 0.7)
    assert not flagged(scores[2], 0.7, min_items=3) and not flagged(None, 0.7)


def test_qualification_waits_for_every_item_then_applies_the_pass_mark():
    assert qualification_outcome(Score(1, 1), 2, 0.5) is None
    assert qualification_outcome(Score(1, 2), 2, 0.5) is True
    assert qualification_outcome(Score(1, 2), 2, 0.8) is False
    assert qualification_outcome(Score(0, 0), 0, 0.8) is None


def test_one_check_per_annotator_and_known_answer_unit():
    """The same unit answered in two tasks (two settings) is one check, its latest answer
    scored; a unit answered is not also skipped; a round of two items with one of them
    answered twice is not decided (two answers of one item used to decide it)."""
    gold = {U1: Gold("A"), U2: Gold("tie")}
    twice = [obs(1, U1, "B", minute=0), obs(1, U1, "A", minute=5), obs(2, U1, "B")]
    scores = gold_scores(twice, gold)
    assert {a: (s.correct, s.answered) for a, s in scores.items()} == {1: (1, 1), 2: (0, 1)}
    counted = checks(twice, gold, {1: [U1, U2, U2], 2: [U1], 3: [U2]})
    assert counted.skipped == {1: [U2], 3: [U2]}  # 2 answered U1: an answer wins
    assert qualification_outcome(scores[1], 2, 0.5) is None
    # the quality page reads the same rule
    page = annotator_quality(twice, gold, skipped={1: [U1]})
    assert (page[1].gold_n, page[1].gold_skipped, page[1].gold_rate) == (1, 0, 1.0)


def test_plurality_and_disagreements():
    assert plurality(["a", "b", "a"]) == "a"
    assert plurality(["a", "b"]) is None and plurality([]) is None
    d = disagreements([obs(1, U1, "A"), obs(2, U1, "B"), obs(1, U2, "A"), obs(2, U2, "A")])
    assert list(d) == [U1]


def test_consensus_is_leave_one_out():
    labels = [obs(1, U1, "A"), obs(2, U1, "A"), obs(3, U1, "A"), obs(4, U1, "B")]
    hits = {o.annotator: ok for o, ok in consensus_hits(labels)}
    assert hits == {1: True, 2: True, 3: True, 4: False}
    # others tied (A vs B): no consensus to compare with, the label is not scored
    three = {o.annotator: ok for o, ok in consensus_hits(labels[1:])}
    assert three == {4: False}
    # two annotators who disagree: each is compared with the other, and disagrees
    two = consensus_hits([obs(1, U2, "A"), obs(2, U2, "B")])
    assert [ok for _, ok in two] == [False, False]


def test_drift_compares_first_and_last_third_in_time_order():
    hits = [
        (T0 + timedelta(minutes=m), ok)
        for m, ok in [(5, False), (0, True), (1, True), (3, False), (2, True), (4, False)]
    ]
    assert drift_parts(hits) == (1.0, 0.0)
    assert drift_parts(hits[:2]) == (None, None)


def test_annotator_quality_combines_gold_consensus_time_and_drift():
    units = [("pairwise", q, "A~B") for q in range(6)]
    observations = []
    for i, u in enumerate(units):
        observations.append(obs(1, u, "A", i))
        observations.append(obs(2, u, "A", i))
        observations.append(obs(3, u, "A" if i < 3 else "B", i))  # worsens over time
    gold = {units[0]: Gold("A")}
    q = annotator_quality(observations, gold, {3: [10, 20, 60]})
    assert q[3].gold_rate == 1.0 and q[3].gold_n == 1
    assert q[3].consensus_rate == 0.5
    assert q[3].drift == -1.0 and q[1].drift == 0.0
    assert q[3].median_seconds == 20 and q[1].median_seconds is None


def test_human_signal_modes():
    observations = [
        obs(1, U1, "A"),
        obs(2, U1, "B"),
        obs(1, U2, "A"),
        obs(2, U2, "A"),
        obs(3, U2, "B"),
        obs(1, U3, "x"),
    ]
    each = human_signal(observations, mode="each")
    assert len(each) == 6 and Signal(U1, "B", 2) in each
    majority = human_signal(observations, mode="majority")
    assert set(majority) == {Signal(U2, "A", "majority"), Signal(U3, "x", "single")}
    adjudicated = human_signal(observations, {U1: "B", U2: "tie"}, mode="adjudicated")
    assert set(adjudicated) == {
        Signal(U1, "B", "adjudicated"),
        Signal(U2, "tie", "adjudicated"),
        Signal(U3, "x", "single"),
    }
    # without an adjudication a tied unit is left out, as in "majority"
    assert {s.unit for s in human_signal(observations, {}, mode="adjudicated")} == {U2, U3}
    # the originals are untouched whatever the mode
    assert [o.label for o in observations] == ["A", "B", "A", "A", "B", "x"]
    with pytest.raises(ValueError, match="adjudicated, majority, each"):
        human_signal(observations, mode="consensus")


def test_a_ranking_of_other_reports_is_no_answer_to_a_ranked_gold_item():
    unit = ("medal_ranking", 1, "")
    gold = {unit: Gold("A=gold;B=silver;C=bronze")}
    scores = gold_scores(
        [
            Observation(1, unit, "A=gold;B=silver;C=bronze"),  # the same reports, right
            Observation(2, unit, "A=silver;B=gold;C=bronze"),  # the same reports, wrong
            Observation(3, unit, "B=gold;C=silver;D=bronze"),  # other reports: not scored
        ],
        gold,
    )
    assert {a: (s.correct, s.answered) for a, s in scores.items()} == {1: (1, 1), 2: (0, 1)}
    # the quality page's gold accuracy reads the same rule
    page = annotator_quality(
        [Observation(3, unit, "B=gold;C=silver;D=bronze"), Observation(1, unit, gold[unit].answer)],
        gold,
    )
    assert (page[3].gold_n, page[1].gold_n, page[1].gold_rate) == (0, 1, 1.0)
