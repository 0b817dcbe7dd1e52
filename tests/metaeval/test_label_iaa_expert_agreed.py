"""``label_iaa`` with ``expert_agreed``: only the labels of the reports of the comparisons
the expert-agreed subset keeps (METHODS §5: "comparisons where every judgment agrees"),
pinned on a small study whose figures are computed by hand below from METHODS §5's
definitions, not read off the code.

The study: questions q1, q2, q3; systems alpha < beta < gamma; two experts X and Y rank
the three reports of each question (medals) and give each report one metric score
("overall", 0 or 1).

Medal rankings, and the comparisons (A, B) with A before B by name, decision +1 when A
has the better medal, -1 when B has:

* q1: X alpha > beta > gamma, Y alpha > beta > gamma: (alpha, beta) +1 / +1,
  (alpha, gamma) +1 / +1, (beta, gamma) +1 / +1: all three agreed.
* q2: X alpha > beta > gamma, Y gamma > beta > alpha: every comparison +1 / -1: none
  agreed.
* q3: X alpha > beta > gamma, Y gamma > alpha > beta: (alpha, beta) +1 / +1 agreed;
  (alpha, gamma) +1 / -1 and (beta, gamma) +1 / -1 not.

The expert-agreed subset is then q1's three comparisons and q3's (alpha, beta): its
reports are q1 alpha, q1 beta, q1 gamma, q3 alpha, q3 beta (q3 gamma is in no agreed
comparison; no report of q2 is).

Scores (X, Y) of those five reports, the units of the score kind:

    q1 alpha (1, 1)   q1 beta (1, 0)   q1 gamma (0, 0)   q3 alpha (1, 1)   q3 beta (0, 0)

and of the four other reports, each (1, 0) or (0, 1): disagreements the subset leaves out.

By hand, on the five kept units (10 labels, one annotator pair):

* strict = equal pairs / pairs = 4 / 5 = 0.8.
* Cohen's κ (X vs Y): p_o = 4/5; X says 1 on 3 of 5, Y on 2 of 5, so
  p_e = 3/5 · 2/5 + 2/5 · 3/5 = 12/25; κ = (4/5 − 12/25) / (1 − 12/25) = (8/25)/(13/25)
  = 8/13.
* Fleiss' κ: 5 ones among 10 labels, p_1 = p_0 = 1/2, P_e = 1/4 + 1/4 = 1/2; per unit
  P_i = 1 where the two agree, 0 where not, P̄ = 4/5; κ = (4/5 − 1/2) / (1 − 1/2) = 3/5.
* Krippendorff's α (interval; on 0/1 values δ² = 1 between 0 and 1, as nominal):
  n = 10 pairable values, n_0 = n_1 = 5; the coincidences of different values are
  o_01 = o_10 = 1 (q1 beta); α = 1 − (n − 1) · (o_01 + o_10) / (n_0 n_1 + n_1 n_0)
  = 1 − 9 · 2 / 50 = 0.64.

Without the option the score kind reads all nine units: 4 equal of 9, strict 4/9.
"""

import pytest

from annotation.models import Annotator, HumanMetricScore, Medal, MedalRanking, Report
from metaeval import sections
from metaeval.reports import ReportOptions
from metaeval.sections.label_iaa import NO_AGREED_COMPARISON, NO_COMPARISON
from tests.builders.judged import build_study

pytestmark = pytest.mark.django_db

#: question -> each expert's order, best first (gold, silver, bronze)
RANKINGS = {
    "q1": (("alpha", "beta", "gamma"), ("alpha", "beta", "gamma")),
    "q2": (("alpha", "beta", "gamma"), ("gamma", "beta", "alpha")),
    "q3": (("alpha", "beta", "gamma"), ("gamma", "alpha", "beta")),
}
#: (question, system) -> (X's score, Y's score)
SCORES = {
    ("q1", "alpha"): (1, 1), ("q1", "beta"): (1, 0), ("q1", "gamma"): (0, 0),
    ("q2", "alpha"): (1, 0), ("q2", "beta"): (0, 1), ("q2", "gamma"): (1, 0),
    ("q3", "alpha"): (1, 1), ("q3", "beta"): (0, 0), ("q3", "gamma"): (0, 1),
}  # fmt: skip


@pytest.fixture
def study():
    study = build_study("agreed-labels", questions=3, systems=("alpha", "beta", "gamma"),
                        items=1, paragraphs=1)  # fmt: skip
    experts = [Annotator.objects.create(pseudonym=f"agreed-{who}") for who in "XY"]
    reports = {(r.question.external_id, r.system.name): r
               for r in Report.objects.filter(question__study=study).select_related(
                   "question", "system")}  # fmt: skip
    for (q, system), values in SCORES.items():
        report = reports[(q, system)]
        for expert, value in zip(experts, values, strict=True):
            HumanMetricScore.objects.create(study=study, annotator=expert,
                                            question=report.question, report=report,
                                            metric="overall", value=float(value))  # fmt: skip
    for q, orders in RANKINGS.items():
        for expert, order in zip(experts, orders, strict=True):
            question = reports[(q, "alpha")].question
            ranking = MedalRanking.objects.create(study=study, annotator=expert,
                                                  question=question)  # fmt: skip
            for system, medal in zip(order, ("gold", "silver", "bronze"), strict=True):
                Medal.objects.create(ranking=ranking, report=reports[(q, system)], medal=medal)
    return study


def score_kind(study, **options) -> tuple[dict, int]:
    """The score kind's row of label_iaa, and the labels the selection read."""
    block = sections.report(study.pk, ReportOptions(**options))["label_iaa"]
    return next(k for k in block["kinds"] if k["kind"] == "score"), block["n_labels"]


def test_expert_agreed_reads_the_labels_of_the_agreed_comparisons_reports(study):
    row, n_labels = score_kind(study, expert_agreed=True)
    assert (row["units"], row["pairs"], n_labels) == (5, 5, 10)
    assert row["strict"] == pytest.approx(0.8)
    assert row["cohen_kappa"] == pytest.approx(8 / 13)
    assert row["fleiss_kappa"] == pytest.approx(0.6)
    assert row["krippendorff_alpha"] == pytest.approx(0.64)


def test_without_expert_agreed_every_report_counts(study):
    row, n_labels = score_kind(study)
    assert (row["units"], row["pairs"], n_labels) == (9, 9, 18)
    assert row["strict"] == pytest.approx(4 / 9)


def test_an_empty_expert_agreed_subset_is_null_saying_so(study):
    """q2 alone: every comparison's two judgments disagree, so the subset keeps no report
    and no label is read. Before, label_iaa was left out without a word (the score kind
    read no row, so the section had nothing, as in a study without labels)."""
    MedalRanking.objects.filter(study=study).exclude(question__external_id="q2").delete()
    got = sections.report(study.pk, ReportOptions(expert_agreed=True))
    assert got["label_iaa"] is None
    assert NO_AGREED_COMPARISON in got["notes"]
    assert score_kind(study)[0]["units"] == 9  # without the option: every label


def test_expert_agreed_without_any_comparison_is_null_saying_so(study):
    MedalRanking.objects.filter(study=study).delete()
    got = sections.report(study.pk, ReportOptions(expert_agreed=True))
    assert got["label_iaa"] is None
    assert NO_COMPARISON in got["notes"]
