import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from metaeval.stats.iaa import (
    RESEARCHQA_COVERAGE,
    RESEARCHQA_PREFERENCE,
    agreed_items,
    binarize,
    binary_pairwise_agreement,
    cohen_kappa,
    fleiss_kappa,
    krippendorff_alpha,
    label_matrix,
    majority_agreement,
    pairwise_agreement,
    per_item_labels,
)

NAN = np.nan


def test_pairwise_strict_and_half_credit_worked_example():
    # Item 1: (1, 1) -> 1 pair, equal. Item 2: (0, 1, -1) -> 3 pairs: (0,1) one tie,
    # (0,-1) one tie, (1,-1) opposite. Item 3 has one label: no pair.
    # strict = 1/4; half = (1 + ½ + ½ + 0)/4 = 0.5.
    labels = [[1, 1, NAN], [0, 1, -1], [1, NAN, NAN]]
    r = pairwise_agreement(labels)
    assert r == (0.25, 0.5, 2, 4)


def test_non_decision_labels_have_no_half_credit():
    r = pairwise_agreement([[3, 3], [2, 4]])
    assert r.strict == 0.5 and math.isnan(r.half_credit)


def test_single_annotator_gives_no_iaa():
    one = np.array([[1.0], [0.0], [-1.0]])
    r = pairwise_agreement(one)
    assert math.isnan(r.strict) and math.isnan(r.half_credit) and r.n_pairs == 0
    assert math.isnan(fleiss_kappa(one).value) and fleiss_kappa(one).n_items == 0
    assert math.isnan(krippendorff_alpha(one).value) and krippendorff_alpha(one).n_items == 0
    m = majority_agreement(one)
    assert math.isnan(m.value) and m.n == 0
    assert not agreed_items(one).any()
    # Two columns but never on the same item is also a single rater per item.
    sparse = np.array([[1.0, NAN], [NAN, 0.0]])
    assert math.isnan(cohen_kappa(sparse).value) and cohen_kappa(sparse).n_items == 0


@settings(deadline=None)
@given(
    hnp.arrays(
        float,
        st.tuples(st.integers(0, 12), st.integers(1, 5)),
        elements=st.sampled_from([-1.0, 0.0, 1.0, NAN]),
    )
)
def test_pairwise_bounds_and_single_column(labels):
    r = pairwise_agreement(labels)
    if r.n_pairs == 0:
        assert math.isnan(r.strict)
    else:
        assert 0 <= r.strict <= r.half_credit <= 1
    assert pairwise_agreement(labels[:, :1]).n_pairs == 0  # one annotator: no IAA


def test_cohen_kappa_textbook():
    # 50 items: yes/yes 20, yes/no 5, no/yes 10, no/no 15 (the classic worked example).
    # p_o = 35/50 = .7; rater 1 yes 25/50, rater 2 yes 30/50 ->
    # p_e = .5·.6 + .5·.4 = .5; κ = (.7 − .5)/(1 − .5) = .4.
    rows = [[1, 1]] * 20 + [[1, 0]] * 5 + [[0, 1]] * 10 + [[0, 0]] * 15
    r = cohen_kappa(rows)
    assert r.value == pytest.approx(0.4) and r.n_items == 50
    with pytest.raises(ValueError):
        cohen_kappa([[1, 1, 1]])


def test_fleiss_kappa_hand_derived():
    # Two raters, items (a, a) and (a, b): P_1 = 1, P_2 = 0 -> P̄ = .5;
    # p_a = 3/4, p_b = 1/4 -> P_e = 10/16; κ = (.5 − .625)/(1 − .625) = −1/3.
    assert fleiss_kappa([[0, 0], [0, 1]]).value == pytest.approx(-1 / 3)


def test_fleiss_kappa_wikipedia_example():
    # Fleiss (1971)-style example on Wikipedia: 10 subjects, 14 raters, 5 categories,
    # P̄ = 0.378, P_e = 0.213, κ = 0.210. Rows are category counts per subject.
    counts = [
        [0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0],
        [2, 2, 8, 1, 1], [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2],
        [6, 5, 2, 1, 0], [0, 2, 2, 3, 7],
    ]  # fmt: skip
    labels = np.array([np.repeat(np.arange(5), row) for row in counts], dtype=float)
    r = fleiss_kappa(labels)
    assert r.observed == pytest.approx(0.378, abs=5e-4)
    assert r.expected == pytest.approx(0.213, abs=5e-4)
    assert r.value == pytest.approx(0.210, abs=5e-4)


def test_fleiss_unequal_raters():
    labels = [[1, 1, NAN], [1, 0, 0]]
    with pytest.raises(ValueError):
        fleiss_kappa(labels)
    # generalized: P_1 = 1, P_2 = (0 + 2)/(3·2) = 1/3 -> P̄ = 2/3;
    # p_1 = 3/5, p_0 = 2/5 -> P_e = 13/25; κ = (2/3 − 13/25)/(12/25) = 11/36.
    assert fleiss_kappa(labels, unequal="generalized").value == pytest.approx(11 / 36)


def test_krippendorff_alpha_hand_derived_three_levels():
    # Items (1,1), (2,2), (2,3); coincidences o11 = 2, o22 = 2, o23 = o32 = 1;
    # n1 = 2, n2 = 3, n3 = 1, n = 6. D_o = Σ o δ² / n, D_e = Σ n_c n_k δ² / (n(n−1)).
    # nominal: D_o = 2/6, D_e = 2(6 + 2 + 3)/30 = 22/30 -> α = 1 − 10/22 = 6/11.
    # interval (δ² = (c−k)²): D_o = 2/6, D_e = 2(6·1 + 2·4 + 3·1)/30 = 34/30 -> 12/17.
    # ordinal (δ_ck = Σ_{g=c..k} n_g − (n_c+n_k)/2): δ²12 = 6.25, δ²13 = 20.25,
    # δ²23 = 4: D_o = 2·4/6 = 4/3, D_e = 2(6·6.25 + 2·20.25 + 3·4)/30 = 6 -> 7/9.
    labels = [[1, 1], [2, 2], [2, 3]]
    assert krippendorff_alpha(labels, "nominal").value == pytest.approx(6 / 11)
    assert krippendorff_alpha(labels, "interval").value == pytest.approx(12 / 17)
    assert krippendorff_alpha(labels, "ordinal").value == pytest.approx(7 / 9)


def test_krippendorff_alpha_missing_values_and_constant():
    # A third item rated once is unpairable and must not change α.
    labels = [[1, 1, NAN], [2, 2, NAN], [2, NAN, 3], [NAN, 4, NAN]]
    assert krippendorff_alpha(labels, "nominal").value == pytest.approx(6 / 11)
    assert math.isnan(krippendorff_alpha([[1, 1], [1, 1]]).value)  # D_e = 0


def test_binarized_agreement_researchqa():
    # Coverage (0,1 -> 0; 2,3,4 -> 1): items (4,3) agree, (1,2) disagree, (0,1) agree.
    cov = [[4, 3], [1, 2], [0, 1]]
    assert binary_pairwise_agreement(cov, **RESEARCHQA_COVERAGE).strict == pytest.approx(2 / 3)
    # Preference: ties dropped; items (1, 1) agree, (1, -1) disagree, (0, 1) dropped.
    pref = [[1, 1], [1, -1], [0, 1]]
    r = binary_pairwise_agreement(pref, **RESEARCHQA_PREFERENCE)
    assert r.strict == 0.5 and r.n_items == 2
    assert np.isnan(binarize(pref, **RESEARCHQA_PREFERENCE)[2, 0])


def test_majority_of_others():
    # Item 1 (1, 1, -1): annotator 0 vs others (1, -1): no majority, skipped;
    # annotator 1 likewise; annotator 2 vs (1, 1) -> 1: disagrees.
    # Item 2 (1, 1, 1): each vs (1, 1): agree x3. -> 3 agree of 4 compared, 2 skipped.
    r = majority_agreement([[1, 1, -1], [1, 1, 1]])
    assert r == (0.75, 4, 2, 0)  # no label alone on its item
    # Including oneself, item 1 majority is 1 for everyone: 5 of 6 agree.
    assert majority_agreement([[1, 1, -1], [1, 1, 1]], include_self=True).value == pytest.approx(
        5 / 6
    )


def test_agreed_items():
    labels = [[1, 1, NAN], [0, 1, NAN], [1, NAN, NAN], [-1, -1, -1]]
    assert agreed_items(labels).tolist() == [True, False, False, True]


def test_label_matrix_from_triples():
    m, items, annotators = label_matrix(["q2", "q1", "q1"], ["x", "x", "y"], [1, 0, -1])
    assert items == ["q1", "q2"] and annotators == ["x", "y"]
    assert np.array_equal(m, [[0, -1], [1, NAN]], equal_nan=True)
    with pytest.raises(ValueError):
        label_matrix(["q1", "q1"], ["x", "x"], [1, 0])
    m, _, _ = label_matrix(["q1", "q1"], ["x", "x"], [1, 0], duplicates="last")
    assert m[0, 0] == 0
    assert np.array_equal(
        per_item_labels({"a": [1, 0], "b": [1]}), [[1, 0], [1, NAN]], equal_nan=True
    )
