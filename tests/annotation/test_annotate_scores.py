"""METHODS §3 conversions, including the guidelines' worked example."""

import pytest

from annotation.annotate.scores import (
    Claim,
    answer_recall,
    answer_relevance,
    citation_precision,
    citation_recall,
    report_scores,
)


def test_answer_relevance_is_mean_paragraph_credit():
    assert answer_relevance(["R", "R", "U", "O"]) == pytest.approx(2.5 / 4)
    assert answer_relevance(["R"], {"R": 1, "U": 0, "O": 0}) == 1


def test_answer_recall_maps_likert_to_unit_interval():
    assert [answer_recall(x) for x in range(1, 6)] == [0, 0.25, 0.5, 0.75, 1]
    with pytest.raises(ValueError):
        answer_recall(6)


def test_citation_precision_guideline_example():
    # (author1) snippet supports = 1, (author2) bare = 0, (author3) title only likely = 0.5
    claim = Claim(("snippet_supports", "none", "title_likely_supports"), "partially")
    assert citation_precision([claim]) == pytest.approx(1.5 / 3)
    # pooled over claims, not averaged per claim
    other = Claim(("snippet_supports",), "fully")
    assert citation_precision([claim, other]) == pytest.approx(2.5 / 4)


def test_citation_recall_is_mean_coverage():
    claims = [Claim(("none",), "fully"), Claim(("none",), "partially"), Claim(("none",), "none")]
    assert citation_recall(claims) == pytest.approx(0.5)


def test_overall_is_the_mean_of_the_four():
    scores = report_scores(["R", "U"], 5, [Claim(("snippet_supports", "none"), "fully")])
    assert scores == pytest.approx(
        {
            "answer_relevance": 0.75,
            "answer_recall": 1.0,
            "citation_precision": 0.5,
            "citation_recall": 1.0,
            "overall": 0.8125,
        }
    )


def test_empty_inputs_are_refused():
    with pytest.raises(ValueError):
        answer_relevance([])
    with pytest.raises(ValueError):
        citation_precision([Claim((), "fully")])
    with pytest.raises(ValueError):
        citation_recall([])
