"""The ``adjudicated`` human signal reads each annotator's paragraph relevance labels as the
A.6 relevance adjudications left them (docs/ANALYSES.md §0): a *switch* replaces the
annotator's label by the judge's (R when the judge found the paragraph relevant, O when it
flagged it: ``annotation.adjudication``), *keep* and *subjective* keep it, an undecided
disagreement changes nothing, and answer_relevance (METHODS §3: mean credit R 1, U ½, O 0)
and the overall that averages it are recomputed; the stored scores stay as submitted.

One annotator, systems alpha (report A) and beta, judge j who prefers beta on every metric.
Both questions: alpha's paragraphs R, U (answer_relevance ¾), beta's R, O (½); the other
three metrics ½ each, so overall = (relevance + 1.5) / 4: alpha 0.5625, beta 0.5. The
annotator's beta paragraph 2 (O) disagrees with j, who found it relevant.

* q0: decision *switch*: beta paragraph 2 becomes R, beta's relevance 1 > ¾ and overall
  0.625 > 0.5625: the human now prefers beta, as j does.
* q1: decision *keep*; alpha paragraph 2 (U) also disagrees with j (flagged), undecided.

Human vs judge agreement (threshold 0, one comparison per question, no tie):
``each``: alpha preferred twice, j beta twice: 0 of 2 on answer_relevance and overall.
``adjudicated``: q0 now agrees: 1 of 2 = ½ on both; q1 (keep) as before.
"""

import pytest

from annotation.models import (
    Annotator,
    Assignment,
    HumanMetricScore,
    Medal,
    MedalRanking,
    Paragraph,
    ParagraphRelevance,
    Question,
    RelevanceAdjudication,
    RelevanceDisagreement,
    Report,
    Section,
    Study,
    System,
)
from judges.models import Judge, JudgeRelevance, JudgeScore
from metaeval import sections
from metaeval.reports import ReportOptions
from metaeval.sections import registry

pytestmark = pytest.mark.django_db

LABELS = {"alpha": ("R", "U"), "beta": ("R", "O")}
CREDIT = {"R": 1.0, "U": 0.5, "O": 0.0}
OTHER = 0.5  # answer_recall, citation_precision, citation_recall
JUDGE = {"alpha": 0.2, "beta": 0.9}


def _relevance(labels) -> float:
    return sum(CREDIT[x] for x in labels) / len(labels)


def _overall(labels) -> float:
    return (_relevance(labels) + 3 * OTHER) / 4


def _report(study, q, system, ann, judge) -> list[Paragraph]:
    report = Report.objects.create(question=q, system=system)
    section = Section.objects.create(report=report, position=1)
    paragraphs = []
    for n, label in enumerate(LABELS[system.name], start=1):
        p = Paragraph.objects.create(section=section, report=report, number=n, text=f"p{n}")
        ParagraphRelevance.objects.create(study=study, question=q, annotator=ann, paragraph=p,
                                          label=label)  # fmt: skip
        JudgeRelevance.objects.create(judge=judge, paragraph=p, relevant=(n == 2) == (label == "O"))
        paragraphs.append(p)
    scores = {"answer_relevance": _relevance(LABELS[system.name]),
              "overall": _overall(LABELS[system.name]), "answer_recall": OTHER,
              "citation_precision": OTHER, "citation_recall": OTHER}  # fmt: skip
    for metric, value in scores.items():
        HumanMetricScore.objects.create(study=study, question=q, annotator=ann, report=report,
                                        metric=metric, value=value)  # fmt: skip
        JudgeScore.objects.create(judge=judge, report=report, metric=metric,
                                  value=JUDGE[system.name])  # fmt: skip
    return paragraphs


def _disagree(study, q, ann, judge, paragraph, label, relevant, decision=None):
    assignment, _ = Assignment.objects.get_or_create(
        study=study, annotator=ann, question=q, task="relevance_adjudication"
    )
    d = RelevanceDisagreement.objects.create(assignment=assignment, judge=judge,
                                             paragraph=paragraph, annotator_label=label,
                                             judge_relevant=relevant)  # fmt: skip
    if decision is not None:
        final = "R" if decision == "switch" and relevant else "O" if decision == "switch" else label
        RelevanceAdjudication.objects.create(study=study, question=q, annotator=ann,
                                             assignment=assignment, disagreement=d,
                                             decision=decision, final_label=final)  # fmt: skip


def world(q0_decision: str = "switch") -> Study:
    study = Study.objects.create(name="relevance-signal")
    systems = [System.objects.create(study=study, name=n) for n in ("alpha", "beta")]
    ann = Annotator.objects.create(pseudonym="rel-ann1")
    judge = Judge.objects.create(name="rel-j")
    for k, decision in enumerate((q0_decision, "keep")):
        q = Question.objects.create(study=study, external_id=f"rq{k}", text=f"Q{k}?")
        alpha, beta = (_report(study, q, s, ann, judge) for s in systems)
        ranking = MedalRanking.objects.create(study=study, question=q, annotator=ann)
        Medal.objects.create(ranking=ranking, report=alpha[0].report, medal="gold")
        Medal.objects.create(ranking=ranking, report=beta[0].report, medal="silver")
        _disagree(study, q, ann, judge, beta[1], "O", True, decision)
        if k == 1:  # undecided: changes nothing
            _disagree(study, q, ann, judge, alpha[1], "U", False)
    return study


def _analysis(study, mode):
    sections.registered()
    return sections.Analysis(study.pk, ReportOptions(human_signal=mode, threshold=0.0))


def _metric_wise(study, mode):
    analysis = _analysis(study, mode)
    got = analysis.result(registry()["agreement"])["metric_wise"]
    return {m: got[m]["agreement"] for m in ("answer_relevance", "overall")}, analysis.report


def _sections_on_the_rows(study, mode):
    """The confusion matrix (rows: human A better / tie / B better; columns: the judge's)
    and the annotator's own medal-vs-metric agreement, of answer_relevance."""
    analysis = _analysis(study, mode)
    confusion = analysis.result(registry()["confusion"])["metric_wise"]["answer_relevance"]
    own = analysis.result(registry()["annotators"])["annotator_self"]
    return confusion["matrix"], own["agreement"][0][own["metrics"].index("answer_relevance")]


def test_a_switch_moves_answer_relevance_and_overall_towards_the_judge():
    study = world()
    # by hand: q0's beta after the switch
    switched = ("R", "R")
    assert _relevance(switched) == 1.0 > _relevance(LABELS["alpha"]) == 0.75
    assert _overall(switched) == 0.625 > _overall(LABELS["alpha"]) == 0.5625
    each, _ = _metric_wise(study, "each")
    adjudicated, report = _metric_wise(study, "adjudicated")
    assert each == {"answer_relevance": 0.0, "overall": 0.0}
    assert adjudicated == {"answer_relevance": 0.5, "overall": 0.5}
    rows = report["selection"]["human_signal_rows"]
    assert (rows["relevance_labels_changed"], rows["relevance_reports_changed"]) == (1, 1)
    assert any("1 paragraph label switched to the judge's" in n for n in report["notes"])
    # the sections on the same rows follow: human A twice vs the judge's B twice; then
    # q0's human B; the annotator's gold for alpha agrees with their relevance twice, then once
    assert _sections_on_the_rows(study, "each") == ([[0, 0, 2], [0, 0, 0], [0, 0, 0]], 1.0)
    assert _sections_on_the_rows(study, "adjudicated") == ([[0, 0, 1], [0, 0, 0], [0, 0, 1]],
                                                           0.5)  # fmt: skip
    # majority reads the submitted labels: one annotator, so the same figures as each
    assert _metric_wise(study, "majority")[0] == each
    # the annotator's work is as submitted
    assert set(HumanMetricScore.objects.filter(metric="answer_relevance")
               .values_list("value", flat=True)) == {0.75, 0.5}  # fmt: skip
    assert ParagraphRelevance.objects.filter(label="O").count() == 2


@pytest.mark.parametrize("decision", ["keep", "subjective"])
def test_keep_and_subjective_change_nothing(decision):
    study = world(decision)
    each, _ = _metric_wise(study, "each")
    adjudicated, report = _metric_wise(study, "adjudicated")
    assert adjudicated == each == {"answer_relevance": 0.0, "overall": 0.0}
    assert report["selection"]["human_signal_rows"]["relevance_labels_changed"] == 0


def test_the_judge_card_says_what_follows_the_signal():
    """Its score judges' agreement follows the signal; its label judges' and the experts'
    behaviour figures read each expert: the section says so, and nothing without it."""
    study = world()
    signal = _analysis(study, "adjudicated").result(registry()["judge_card"])["human_signal"]
    assert signal["mode"] == "adjudicated" and "does not apply" in signal["note"]
    assert "human_signal" not in _analysis(study, None).result(registry()["judge_card"])
