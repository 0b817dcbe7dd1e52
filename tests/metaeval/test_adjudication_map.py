"""The ``adjudicated`` human signal reads every section's decided adjudications
(docs/ANALYSES.md §0; docs/QUALITY.md): in the signal world (tests/builders/signal.py) q1's
two annotators tie on every label, so its majority is left out; one decided adjudication
of a QC unit (``TaskSpec.qc``) gives q1 a label, and the figure moves. Figures by hand."""

import pytest

from annotation.models import Annotator, Question
from tests.builders.signal import decide, signal_world
from tests.metaeval.test_human_signal import _result


@pytest.fixture
def world(db):
    return signal_world()


def _adjudicate(study, task, unit, label, external_id="sq1"):
    q = Question.objects.get(study=study, external_id=external_id)
    decide(study, q, task, unit, label, Annotator.objects.get(pseudonym="signal-adj"))


def test_coverage_alignment_reads_a_coverage_adjudication(world):
    """0–4 (alpha, hybrid item 1), j1 4 then 3. Majority: q0 4 = 4, q1 (2, 3) tied: 1 of 1.
    Adjudicated 2 on q1: q0 agrees, q1 2 ≠ 3: 1 of 2."""
    study, _ = world
    _adjudicate(study, "rubric_coverage", "item hybrid:1@alpha", "2")

    def exact(mode):
        return _result(study, "coverage_alignment", mode)["judges"][0]["all"]["exact"]["value"]

    assert exact("majority") == 1.0
    assert exact("adjudicated") == 0.5
    signal = _result(study, "coverage_alignment", "adjudicated")["human_signal"]
    assert (signal["adjudicated"], signal["tied"], signal["kept"]) == (1, 0, 2)
    assert "unread_adjudications" not in signal


def test_researcherbench_reads_a_binary_adjudication(world):
    """Binary (beta, hybrid item 2), j1 always covered. Majority: q0 covered, q1 tied: 1 of
    1. Adjudicated "no" on q1: 1 of 2; the human S_c of beta: q0 1, q1 0, mean 0.5."""
    study, _ = world
    _adjudicate(study, "rubric_coverage", "item hybrid:2@beta", "no")
    got = _result(study, "researcherbench", "adjudicated")
    assert got["judges"][0]["unweighted"]["accuracy"]["value"] == 0.5
    assert got["human_coverage_by_system"]["beta"]["value"] == 0.5
    majority = _result(study, "researcherbench", "majority")
    assert majority["judges"][0]["unweighted"]["accuracy"]["value"] == 1.0
    assert majority["human_coverage_by_system"]["beta"]["value"] == 1.0
    assert got["human_signal"]["adjudicated"] == 1


def test_an_adjudication_of_another_unit_changes_nothing(world):
    """An adjudicated item no human labelled (hybrid item 2 on alpha) has no majority to
    replace: the figures are the majority's."""
    study, _ = world
    _adjudicate(study, "rubric_coverage", "item hybrid:2@alpha", "0")
    got = _result(study, "coverage_alignment", "adjudicated")
    assert got["judges"][0]["all"]["exact"]["value"] == 1.0
    assert got["human_signal"]["adjudicated"] == 0


def test_claim_support_reads_a_claim_adjudication(world):
    """alpha's claim, j1 supported: majority q0 supported, q1 (yes, no) tied: 1 of 1.
    Adjudicated "no" on q1: 1 of 2."""
    from annotation.models import ReportClaim

    study, _ = world
    claim = ReportClaim.objects.get(report__question__study=study,
                                    report__question__external_id="sq1")  # fmt: skip
    _adjudicate(study, "claim_check", f"claim {claim.public_id}@alpha", "no")

    def agreement(mode):
        r = _result(study, "claim_support", mode)
        return r["judges"][0]["all"]["claim_support"]["agreement"]["value"], r

    assert agreement("majority")[0] == 1.0
    value, got = agreement("adjudicated")
    assert value == 0.5
    assert got["judges"][0]["human_signal"]["claim_support"]["adjudicated"] == 1
    assert "1 labels from claim-check adjudications" in got["human_signal"]["note"]


def test_ratings_read_a_rating_adjudication(world):
    """alpha's informativeness: majority q0 4, q1 (5, 3) tied: mean 4. Adjudicated 3 on
    q1: (4 + 3) / 2 = 3.5. The medal-ranking adjudication (beta gold on q1) still reads."""
    study, _ = world
    _adjudicate(study, "metric_wise", "rating informativeness@alpha", "3")

    def alpha(mode):
        r = _result(study, "ratings", mode)
        return r["dimensions"][0]["by_system"]["alpha"]["mean"], r

    assert alpha("majority")[0] == 4.0
    value, got = alpha("adjudicated")
    assert value == 3.5
    assert got["human_signal"]["ratings"]["adjudicated"] == 1
    assert got["human_signal"]["medals"]["adjudicated"] == 2
    assert "1 ratings from adjudications" in got["human_signal"]["note"]


def test_a_metric_wise_ranking_adjudication_reads_where_the_medal_ranking_has_none(world):
    """The world adjudicates q1's medal ranking (both reports); a metric-wise "medals"
    adjudication of q0 gives q0's two reports theirs too: 4 medals adjudicated."""
    study, _ = world
    _adjudicate(study, "metric_wise", "medals", "alpha=silver;beta=gold", "sq0")
    got = _result(study, "ratings", "adjudicated")["human_signal"]
    assert got["medals"]["adjudicated"] == 4


def _share(study, kind, mode):
    r = _result(study, "label_quality", mode)
    return next(k for k in r["kinds"] if k["kind"] == kind)["merged_share"]["value"], r


def test_label_quality_reads_a_query_quality_adjudication(world):
    """Clarity {4, 5} share: majority q0 5, q1 (4, 2) tied: 1 of 1. Adjudicated 2 on q1:
    1 of 2."""
    study, _ = world
    _adjudicate(study, "query_quality", "clarity", "2")
    assert _share(study, "clarity", "majority")[0] == 1.0
    value, got = _share(study, "clarity", "adjudicated")
    assert value == 0.5
    assert got["human_signal"]["kinds"]["clarity"]["adjudicated"] == 1
    assert got["human_signal"]["kinds"]["naturalness"]["adjudicated"] == 0


def test_label_quality_reads_a_rubric_item_quality_adjudication(db):
    """Two annotators, two items of the default rubric: item 0 sentence vs paragraph+ (tied),
    item 1 none, none. Emphasis share of {none, < sentence}: majority 1 of 1; adjudicated
    "sentence" on item 0: 1 of 2."""
    from annotation.models import Study
    from tests.builders.quality import label, qc_question

    study = Study.objects.create(name="iq")
    q = qc_question(study)
    one, two, adj = (Annotator.objects.create(pseudonym=p) for p in ("iq1", "iq2", "iq-adj"))
    label("rubric_item_quality", one, q)
    label("rubric_item_quality", two, q, second=True)
    decide(study, q, "rubric_item_quality", "emphasis item default:0", "sentence", adj)
    assert _share(study, "emphasis", "majority")[0] == 1.0
    value, got = _share(study, "emphasis", "adjudicated")
    assert value == 0.5
    assert got["human_signal"]["kinds"]["emphasis"]["adjudicated"] == 1


def test_rubric_comparison_reads_a_ranking_adjudication(world):
    """Hybrid vs expert rubric: majority q0 hybrid gold, q1 tied: hybrid wins 1 of 1.
    Adjudicated expert gold on q1: hybrid wins 1 of 2."""
    study, _ = world
    _adjudicate(study, "rubric_comparison", "", "expert=gold;hybrid=silver")

    def hybrid(mode):
        r = _result(study, "rubric_comparison", mode)
        return next(s for s in r["sources"] if s["source"] == "hybrid")["win_rate"], r

    assert hybrid("majority")[0] == 1.0
    value, got = hybrid("adjudicated")
    assert value == 0.5 and got["rankings"] == 2
    assert got["human_signal"]["adjudicated"] == 1


def test_a_ranking_adjudication_of_other_rubric_kinds_is_not_read(world):
    """An adjudication ranking kinds the question's ranked rubrics are not: no unit maps."""
    study, _ = world
    _adjudicate(study, "rubric_comparison", "", "llm=gold;hybrid=silver")
    got = _result(study, "rubric_comparison", "adjudicated")
    assert got["human_signal"]["adjudicated"] == 0 and got["rankings"] == 1


def _deepscholar_labels(study, judge, kind, labels, unit="n1", system=None):
    from annotation.models import DeepScholarLabel, Report
    from judges.models import JudgeDeepScholarLabel

    anns = list(Annotator.objects.filter(pseudonym__startswith="signal-ann").order_by("pk"))
    for q, values in zip(Question.objects.filter(study=study).order_by("external_id"), labels,
                         strict=True):  # fmt: skip
        report = None if system is None else Report.objects.get(question=q, system__name=system)
        for ann, value in zip(anns, values, strict=False):
            DeepScholarLabel.objects.create(study=study, question=q, annotator=ann, kind=kind,
                                            report=report, unit=unit, label=value)  # fmt: skip
        JudgeDeepScholarLabel.objects.create(judge=judge, question=q, kind=kind, report=report,
                                             unit=unit, label=values[0])  # fmt: skip


def _agreement(study, kind, mode):
    r = _result(study, "deepscholar_agreement", mode)
    kinds = r["judges"][0]["kinds"]
    return next(k for k in kinds if k["kind"] == kind)["agreement"]["value"], r


def test_deepscholar_reads_adjudications_of_question_and_report_units(world):
    """Nugget importance of n1 (a unit of the question) and nugget support of n1 in alpha's
    report (``n1@alpha``); the judge says the first annotator's label. Per kind: majority
    q0 agrees, q1 tied: 1 of 1. Adjudicated against the judge on q1: 1 of 2 each."""
    study, judge = world
    _deepscholar_labels(study, judge, "nugget_importance",
                        (("vital", "vital", "non_vital"), ("vital", "non_vital")))  # fmt: skip
    _deepscholar_labels(study, judge, "nugget_support",
                        (("supported",) * 3, ("supported", "not_supported")), system="alpha")  # fmt: skip
    _adjudicate(study, "nugget_importance", "n1", "non_vital")
    _adjudicate(study, "nugget_support", "n1@alpha", "not_supported")
    for kind in ("nugget_importance", "nugget_support"):
        assert _agreement(study, kind, "majority")[0] == 1.0, kind
        assert _agreement(study, kind, "adjudicated")[0] == 0.5, kind
    signal = _agreement(study, "nugget_support", "adjudicated")[1]["human_signal"]
    assert signal["adjudicated"] == 2 and "unread_adjudications" not in signal


def test_claim_support_reads_a_citation_adjudication(world):
    """A second claim of alpha in q1 citing [1]: both experts say fully supported (no tie)
    but split on [1] (supports, does not); j1 says [1] supports. Citation support: majority
    the q1 citation tied, no unit: null; adjudicated "no": 0 of 1."""
    from annotation.models import ClaimCheck, ReportClaim
    from judges.models import JudgeClaimVerdict

    study, judge = world
    q = Question.objects.get(study=study, external_id="sq1")
    alpha = q.reports.get(system__name="alpha")
    claim = ReportClaim.objects.create(report=alpha, text="Cited claim.", citation_keys=["[1]"])
    anns = Annotator.objects.filter(pseudonym__startswith="signal-ann").order_by("pk")[:2]
    for ann, ok in zip(anns, (True, False), strict=True):
        ClaimCheck.objects.create(study=study, question=q, annotator=ann, claim=claim,
                                  fully_supported=True, citation_supports={"[1]": ok})  # fmt: skip
    JudgeClaimVerdict.objects.create(judge=judge, report=alpha, key="p1:9-20",
                                     text="Cited claim.", verdict="supported",
                                     citations=[{"key": "[1]", "supports": True}])  # fmt: skip
    _adjudicate(study, "claim_check", f"claim {claim.public_id} cites [1]@alpha", "no")

    def citation(mode):
        r = _result(study, "claim_support", mode)["judges"][0]
        return r["all"]["citation_support"]["agreement"]["value"], r

    assert citation("majority")[0] is None
    value, got = citation("adjudicated")
    assert value == 0.0
    assert got["human_signal"]["citation_support"]["adjudicated"] == 1
