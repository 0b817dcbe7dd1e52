"""Each analysis end to end on a study with every judgment kind: loader → statistics →
JSON-ready dict, with the numbers the world was built to give (issue 16)."""

import json

import pytest

from metaeval.analyses.coverage import analyse_binary_coverage, analyse_coverage
from metaeval.analyses.followups import (
    analyse_adjudication,
    analyse_claims,
    analyse_ratings,
    analyse_rubric_comparison,
)
from metaeval.analyses.iaa import analyse_iaa, label_sets
from metaeval.analyses.quality import analyse_quality
from metaeval.analyses.researchqa_pairwise import analyse_pairwise
from metaeval.loaders.adjudication import load_adjudications
from metaeval.loaders.claims import load_claims
from metaeval.loaders.coverage import load_coverage
from metaeval.loaders.pairwise import load_pairwise
from metaeval.loaders.quality import load_quality
from metaeval.loaders.ratings import load_ratings
from metaeval.loaders.rubric_comparison import load_rubric_comparisons
from tests.builders.analysis import analysis_world

pytestmark = pytest.mark.django_db


@pytest.fixture
def world():
    return analysis_world(4)


def _json(x):
    return json.loads(json.dumps(x))  # every analysis is JSON-ready (no NaN, no numpy)


def test_pairwise_analysis(world):
    study, judge = world
    out = _json(analyse_pairwise(load_pairwise(study.pk), rounds=50))
    assert out["majority"] == {"items": 4, "no_majority": 0, "direction": 4}
    assert out["human_vs_majority"]["value"] == 1.0
    assert out["binarised_pa"]["value"] == 1.0 and out["binarised_pa"]["n"] == 4
    acc = {j["protocol"]: j["accuracy"] for j in out["judges"]}
    assert acc["direct"]["value"] == pytest.approx(0.75)  # right + tie: footnote 6
    assert acc["ensemble"]["value"] == 0.0
    assert acc["direct"]["low"] == acc["direct"]["high"] == 0.75  # same on every question
    (diff,) = out["judge_differences"]
    assert diff["difference"] == pytest.approx(0.75) and diff["pvalue"] is not None
    human_board = out["leaderboard"]["human"]
    assert any("won every battle" in n for n in human_board["notes"])  # beta always wins


def test_coverage_analyses(world):
    study, judge = world
    data = load_coverage(study.pk)
    out = _json(analyse_coverage(data, rounds=50, by_field=True))
    (j,) = out["judges"]
    # per question: (3, 4), (2, 4), (0, 1): exact 0, binarised 3/3, mean diff (1+2+1)/3
    assert j["all"]["exact"]["value"] == 0.0
    assert j["all"]["binarised"]["value"] == 1.0
    assert j["all"]["mean_difference"]["value"] == pytest.approx(4 / 3)
    assert j["all"]["n"] == 12 and sum(map(sum, j["all"]["confusion"])) == 12
    assert set(j["fields"]) == {"NLP"}
    assert out["human_vs_human"]["pairs"] == 4 and out["human_vs_human"]["exact"] == 0.0
    binary = _json(analyse_binary_coverage(data, rounds=50))
    (jb,) = binary["judges"]
    assert jb["n"] == 4 and jb["unweighted"]["accuracy"]["value"] == 1.0
    assert jb["unweighted"]["precision"]["value"] is None  # the judge never says covered
    assert jb["kappa"]["value"] is None and jb["kappa"]["note"]
    assert binary["human_coverage_by_system"]["beta"]["value"] == 0.0


def test_quality_and_iaa(world):
    study, _ = world
    quality = load_quality(study.pk)
    out = _json(analyse_quality(quality, rounds=20))
    assert out["clarity"]["merged_share"]["value"] == 1.0  # 4 and 5
    assert out["clarity"]["binarised_pa"]["value"] == 1.0
    assert out["variability"]["binarised_pa"]["value"] == 0.0  # closed vs open-ended
    assert out["relevance"]["merged_share"]["value"] == 0.0  # 2 is below Slightly likely
    assert out["emphasis"]["binarised_pa"]["value"] == 0.0  # sentence vs none
    assert out["item_flags"]["value"] == 0.5
    iaa = {row["kind"]: row for row in _json(analyse_iaa(label_sets(
        load_pairwise(study.pk), load_coverage(study.pk), quality, load_claims(study.pk))))}  # fmt: skip
    assert iaa["preference"]["strict"] == 1.0 and iaa["coverage"]["level"] == "ordinal"
    assert iaa["coverage_binary"]["pairs"] == 0 and iaa["coverage_binary"]["note"]
    assert iaa["naturalness"]["strict"] == 1.0
    assert iaa["naturalness"]["krippendorff_alpha"] is None  # one category only
    assert iaa["claim_support"]["pairs"] == 0  # ann2 skipped: a single check per claim


def test_followups(world):
    study, judge = world
    rc = _json(analyse_rubric_comparison(load_rubric_comparisons(study.pk)))
    rates = {s["source"]: s["win_rate"] for s in rc["sources"]}
    assert rates == {"hybrid": 1.0, "expert": 0.5, "llm": 0.0}
    hybrid_vs_llm = next(c for c in rc["comparisons"] if {c["x"], c["y"]} == {"hybrid", "llm"})
    assert hybrid_vs_llm["pvalue"] == pytest.approx(2 / 2**4)  # 4 of 4 decisive: binomial
    claims = _json(analyse_claims(load_claims(study.pk), exclude_system="alpha", rounds=20))
    (block,) = claims["judges"]
    assert block["all"]["claim_support"]["agreement"]["value"] == 0.0
    assert block["all"]["claim_support"]["judge_lenient"]["value"] == 1.0
    assert block["all"]["citation_support"]["agreement"]["value"] == 0.5
    assert block["without"]["claim_support"]["n"] == 0
    adj = _json(analyse_adjudication(load_adjudications(study.pk)))
    by = {s["setting"]: s for s in adj["settings"]}
    assert by["near_expert"]["switch"] == 1.0 and by["deep_expert"]["subjective"] == 1.0
    assert adj["differences"][0]["pvalue_all"] == pytest.approx(2 / 70)  # 4 vs 4, all apart
    ratings = _json(analyse_ratings(load_ratings(study.pk)))
    (dim,) = ratings["dimensions"]
    assert dim["by_system"] == {"alpha": {"mean": 4.0, "n": 4}, "beta": {"mean": 2.0, "n": 4}}
    assert dim["correlations"]["preference"]["pearson"] == pytest.approx(1.0)
    assert dim["correlations"][f"{judge.name}:overall"]["pearson"] == pytest.approx(1.0)
