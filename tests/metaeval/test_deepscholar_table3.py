"""Table 3 reproduced from a synthetic study whose human–judge agreements are set by
construction (seed 002 §8.11): for every label kind, 100 units over 10 questions of which
exactly the paper's share get the same label from the expert and from the judge; the
loader joins them on their unit keys and the analysis gives back the paper's numbers."""

import pytest

from annotation.models.deepscholar import LABELS
from metaeval.analyses.deepscholar import PAPER_AGREEMENT, analyse_deepscholar
from metaeval.loaders.deepscholar import load_deepscholar
from tests.builders.content import make_study
from tests.builders.deepscholar import QUESTIONS, synthetic_study

pytestmark = pytest.mark.django_db


def test_table3_reproduces_the_constructed_agreements(annotator_user):
    study = synthetic_study(annotator_user.annotator)
    data = load_deepscholar(study.pk)
    assert data.judges == ["always-first", "gpt-4o"]
    result = analyse_deepscholar(data, rounds=200, seed=0)
    table = {k["kind"]: k for k in result["judges"][1]["kinds"]}
    assert list(table) == list(LABELS)
    for kind, paper in PAPER_AGREEMENT.items():
        row = table[kind]
        assert row["agreement"]["value"] == pytest.approx(paper), kind
        assert row["paper"] == paper
        assert (row["n_units"], row["n_questions"]) == (100, QUESTIONS)
        assert row["agreement"]["low"] <= paper <= row["agreement"]["high"]
        assert 0 < row["kappa"]["value"] < paper
        assert row["kappa"]["low"] <= row["kappa"]["value"] <= row["kappa"]["high"]
    assert table["nugget_importance"]["human_labels"] == 101
    assert table["nugget_importance"]["unmatched"] == 1
    # the constant judge: κ undefined only if both sides constant; here it is defined (≤ 0)
    first = {k["kind"]: k for k in result["judges"][0]["kinds"]}
    assert first["organization"]["kappa"]["value"] == pytest.approx(0.0)


def test_a_study_without_judge_labels_has_no_rows(annotator_user):
    study = make_study("empty")
    data = load_deepscholar(study.pk)
    assert data.judges == [] and analyse_deepscholar(data) == {"judges": []}
