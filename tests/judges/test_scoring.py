"""The scoring formulas against the papers' own figures."""

from __future__ import annotations

import json
import math

import pytest

from judges.scoring import deepscholar, researcherbench, researchqa, scholarqa
from metaeval.stats.bradley_terry import elo_win_probability

# Seed 002 Table 2: Org., Nug. Cov., Rel. Rate, Ref Cov., Doc Imp., Cite-P, Claim Cov, Geo. Mean
TABLE2 = {
    "DeepResearcher (Llama-4)": (.206, .230, .385, .047, .008, .312, .396, .137),
    "STORM (Llama-4)": (.119, .183, .218, .003, .006, .238, .586, .073),
    "OpenScholar (Llama-4)": (.309, .278, .017, .008, .013, .010, .138, .042),
    "Search Agent (o3)": (.849, .348, .610, .165, .026, .425, .495, .287),
    "Search Agent (Gemini)": (.706, .277, .583, .061, .010, .415, .398, .196),
    "OpenAI DeepResearch": (.857, .392, .629, .187, .124, .399, .138, .309),
    "DeepScholar-ref (GPT-4.1)": (.809, .348, .590, .166, .008, .788, .899, .285),
    "DeepScholar-ref (GPT-4.1, Claude)": (.698, .307, .610, .152, .009, .944, .895, .286),
}  # fmt: skip


@pytest.mark.parametrize("system", TABLE2)
def test_deepscholar_table2_geometric_mean_reproduces(system):
    *metrics, geo = TABLE2[system]
    # the table's inputs are rounded to 3 decimals: the mean agrees to ±0.0015
    assert deepscholar.geometric_mean(metrics) == pytest.approx(geo, abs=0.0015)


def test_deepscholar_human_exemplars_leave_verifiability_out():
    # Table 2 footnote 1: .500 1.000 .585 1.000 1.000 (.900 .850 excluded) -> .782
    assert round(deepscholar.geometric_mean([.5, 1.0, .585, 1.0, 1.0, None, None]), 3) == .782  # fmt: skip


def test_deepscholar_metric_definitions():
    assert deepscholar.relevance_rate([2, 1, 0, 2]) == 5 / 8
    assert deepscholar.reference_coverage({"a", "b", "x"}, {"a", "b", "c", "d"}) == 0.5
    assert deepscholar.document_importance([10, 30, 50], [100, 200]) == pytest.approx(30 / 150)
    assert deepscholar.document_importance([500], [100]) == 1.0
    assert deepscholar.organization_win_rate([1, 0, -1, 1]) == 0.625
    assert deepscholar.geometric_mean([0.5, 0.0]) == 0.0
    with pytest.raises(ValueError):
        deepscholar.relevance_rate([3])


def test_researchqa_win_probability_1505_vs_1244():
    assert round(researchqa.win_probability(1505, 1244), 3) == 0.818
    assert researchqa.win_probability(1505, 1244) == pytest.approx(elo_win_probability(1505, 1244))
    assert researchqa.win_probability(1000, 1000) == 0.5


def test_researchqa_coverage_and_labels():
    assert [researchqa.label_value(x) for x in researchqa.LABELS] == [0, 1, 2, 3, 4]
    assert researchqa.label_value("3/4") == 3 and researchqa.label_value(" **Mostly** ") == 3
    with pytest.raises(ValueError):
        researchqa.label_value("Somewhat")
    # the released compute_coverage_score: (x - 1)/4 on 1..5 equals label/4 on 0..4
    assert researchqa.answer_coverage([4, 3, 0]) == pytest.approx(((5 - 1) + (4 - 1) + 0) / 4 / 3)
    assert researchqa.coverage_percent([[4, 4], [2, 0]]) == pytest.approx((100 + 25) / 2)


def test_researchqa_ensemble():
    # score(A) = 4·(I_A + I'_A) + Σ coverage labels
    assert researchqa.ensemble_score(True, True, [4, 3]) == 15
    assert researchqa.ensemble_score(True, False, [1, 1]) == 6
    assert researchqa.ensemble_score(False, False, [2, 2, 2]) == 6
    assert researchqa.ensemble_decision(15, 6) == 1
    assert researchqa.ensemble_decision(6, 6) == 0
    assert researchqa.ensemble_decision(5, 6) == -1


def test_researcherbench_weighted_coverage_reproduces_released_records():
    # GAIR-NLP/ResearcherBench results (o3-mini, Claude): id 7 m_weighted 10 / 26 = 0.3846
    weights = [2] * 13
    covered = [0, 0, 1, 0, 1, 0, 0, 1, 1, 0, 1, 0, 0]
    assert round(researcherbench.weighted_coverage(weights, covered), 4) == 0.3846
    assert researcherbench.weighted_coverage([3, 1, 2], [True, False, None]) == 0.75


def test_researcherbench_table2_f1_from_precision_and_recall():
    # seed 004 Table 2: (Prec., Rec., F1) per candidate judge
    for p, r, f in [(.83, .68, .75), (.75, .82, .78), (.75, .85, .80), (.80, .83, .81),
                    (.85, .76, .80)]:  # fmt: skip
        assert round(researcherbench.f1(p, r), 2) == f


def test_researcherbench_faithfulness_and_groundedness():
    verdicts = ["supported", "supported", "unsupported", "unknown"]
    assert researcherbench.faithfulness(verdicts) == 2 / 3  # unknown excluded
    assert researcherbench.groundedness([True, True, False, False, True]) == 0.6
    assert math.isnan(researcherbench.faithfulness([]))


def test_scholarqa_metrics():
    assert scholarqa.answer_relevance([False, True, False, False]) == 0.75
    assert scholarqa.answer_recall([1, 0.5, 0]) == 0.5
    assert scholarqa.answer_recall([1, 0], weights=[3, 1]) == 0.75
    # precision macro-averaged by claim: (1 + ½)/2 ... claim 2 has a title-only supporter
    credits = [[scholarqa.citation_credit(True, False)],
               [scholarqa.citation_credit(True, True), scholarqa.citation_credit(False, False)]]  # fmt: skip
    assert scholarqa.citation_precision(credits) == pytest.approx((1 + 0.25) / 2)
    assert scholarqa.citation_recall([1, 0, 1, 0.5]) == 0.625


@pytest.mark.shared_data
def test_scholarqa_overall_is_the_mean_of_the_four_in_the_released_scores(scholarqa_dir):
    """Every released gemini-2.5-flash score (all files of the meta-evaluation data)."""
    n = 0
    for f in sorted((scholarqa_dir / "annotation").glob("pairwise_*.json")):
        for r in json.loads(f.read_text()):
            for side in (0, 1):
                parts = [r[f"model_{m}"][side] for m in
                         ("answer_precision", "answer_recall", "citation_precision",
                          "citation_recall")]  # fmt: skip
                if r.get("model_overall") is None or any(p is None for p in parts):
                    continue
                assert scholarqa.overall(*parts) == pytest.approx(
                    r["model_overall"][side], abs=1e-9
                )
                n += 1
    assert n == 3337
