"""A study where each annotator, the majority and the adjudicated label give different
figures (the ``human_signal`` option, issues 16 and 17; docs/ANALYSES.md §0).

Systems alpha < beta (alpha is report A); annotators ann1, ann2, ann3; judge j1, who always
sides with alpha. Two questions:

q0, three annotators, a clear majority:
* pairwise alpha vs beta: alpha, alpha, beta (majority alpha); j1 ensemble: alpha.
* medal ranking: ann1, ann2 alpha gold / beta silver; ann3 beta gold / alpha silver.
* coverage 0–4 (alpha, item 1): 4, 4, 1; j1 4. Binary (beta, item 2): covered, covered,
  not covered; j1 covered.
* rating (alpha, informativeness): 4, 4, 2.
* claim of alpha: fully supported, fully supported, not; j1 supported.
* query clarity: 5, 5, 1.
* rubric comparison (hybrid vs expert rubric): hybrid, hybrid, expert.
* one relevance adjudication (ann1, near expert): keep.

q1, two annotators who disagree, with a decided adjudication where quality control has
one (pairwise and medal ranking):
* pairwise: ann1 alpha, ann2 beta (tie); adjudicated: beta. j1 ensemble: alpha.
* medal ranking: ann1 alpha gold, ann2 beta gold (tie); adjudicated: beta gold.
* coverage (alpha, item 1): 2, 3; j1 3. Binary (beta, item 2): covered, not; j1 covered.
* rating (alpha, informativeness): 5, 3.
* claim: fully supported, not; j1 supported.
* query clarity: 4, 2.
* rubric comparison: hybrid, expert.

Judge scores (overall): alpha 0.8, beta 0.5 in both questions.
"""

from annotation.models import (
    AdjudicationRequest,
    Annotator,
    Assignment,
    ClaimCheck,
    Medal,
    MedalRanking,
    PairwisePreference,
    Paragraph,
    QueryQuality,
    Question,
    RelevanceAdjudication,
    RelevanceDisagreement,
    Report,
    ReportClaim,
    ReportRating,
    Rubric,
    RubricAssessment,
    RubricComparison,
    RubricCoverage,
    RubricItem,
    Section,
    Study,
    System,
)
from judges.models import Judge, JudgeClaimVerdict, JudgeCoverage, JudgePairwise, JudgeScore

Q0 = {
    "pairwise": ("alpha", "alpha", "beta"),
    "medals": (("gold", "silver"), ("gold", "silver"), ("silver", "gold")),
    "coverage": (4, 4, 1),
    "covered": (True, True, False),
    "rating": (4, 4, 2),
    "supported": (True, True, False),
    "clarity": (5, 5, 1),
    "rubrics": (("gold", "silver"), ("gold", "silver"), ("silver", "gold")),  # hybrid, expert
}
Q1 = {
    "pairwise": ("alpha", "beta"),
    "medals": (("gold", "silver"), ("silver", "gold")),
    "coverage": (2, 3),
    "covered": (True, False),
    "rating": (5, 3),
    "supported": (True, False),
    "clarity": (4, 2),
    "rubrics": (("gold", "silver"), ("silver", "gold")),
}


def _question(study, k, spec, systems, anns, judge, adjudicator):
    q = Question.objects.create(study=study, external_id=f"sq{k}", text=f"Q{k}?", field="NLP")
    alpha = Report.objects.create(question=q, system=systems["alpha"])
    beta = Report.objects.create(question=q, system=systems["beta"])
    base = {"study": study, "question": q}
    rubric = Rubric.objects.create(question=q, kind="hybrid")
    expert = Rubric.objects.create(question=q, kind="expert")
    item1 = RubricItem.objects.create(rubric=rubric, position=1, text="i1", weight=1)
    item2 = RubricItem.objects.create(rubric=rubric, position=2, text="i2", weight=1)
    claim = ReportClaim.objects.create(report=alpha, text="A claim.", citation_keys=[])
    for n, ann in enumerate(anns[: len(spec["pairwise"])]):
        choice = "left" if spec["pairwise"][n] == "alpha" else "right"
        PairwisePreference.objects.create(**base, annotator=ann, left=alpha, right=beta,
                                          choice=choice, reason="r")  # fmt: skip
        ranking = MedalRanking.objects.create(**base, annotator=ann)
        Medal.objects.create(ranking=ranking, report=alpha, medal=spec["medals"][n][0])
        Medal.objects.create(ranking=ranking, report=beta, medal=spec["medals"][n][1])
        RubricCoverage.objects.create(**base, annotator=ann, report=alpha, item=item1,
                                      label=spec["coverage"][n])  # fmt: skip
        RubricCoverage.objects.create(**base, annotator=ann, report=beta, item=item2,
                                      covered=spec["covered"][n])  # fmt: skip
        ReportRating.objects.create(**base, annotator=ann, report=alpha,
                                    dimension="informativeness", value=spec["rating"][n])  # fmt: skip
        ClaimCheck.objects.create(**base, annotator=ann, claim=claim,
                                  fully_supported=spec["supported"][n])  # fmt: skip
        QueryQuality.objects.create(**base, annotator=ann, clarity=spec["clarity"][n],
                                    naturalness=3, relevance=3, variability="closed")  # fmt: skip
        comparison = RubricComparison.objects.create(**base, annotator=ann)
        for r, medal in zip((rubric, expert), spec["rubrics"][n], strict=True):
            RubricAssessment.objects.create(comparison=comparison, rubric=r, medal=medal)
    if spec is Q0:
        _relevance_decision(study, q, alpha, anns[0], judge)
    JudgePairwise.objects.create(judge=judge, protocol="ensemble", left=alpha, right=beta,
                                 choice="left", score_left=9, score_right=5)  # fmt: skip
    JudgeCoverage.objects.create(judge=judge, report=alpha, item=item1, label=spec["coverage"][0]
                                 if spec is Q0 else 3)  # fmt: skip
    JudgeCoverage.objects.create(judge=judge, report=beta, item=item2, covered=True)
    JudgeClaimVerdict.objects.create(judge=judge, report=alpha, key="p1:0-8", text="A claim.",
                                     verdict="supported", citations=[])  # fmt: skip
    for report, score in ((alpha, 0.8), (beta, 0.5)):
        JudgeScore.objects.create(judge=judge, report=report, metric="overall", value=score)
    return q


def _relevance_decision(study, q, report, ann, judge):
    paragraph = Paragraph.objects.create(
        section=Section.objects.create(report=report, position=1), report=report, number=1,
        text="p")  # fmt: skip
    assignment = Assignment.objects.create(study=study, annotator=ann, question=q,
                                           task="relevance_adjudication", setting="near_expert")  # fmt: skip
    disagreement = RelevanceDisagreement.objects.create(
        assignment=assignment, judge=judge, paragraph=paragraph, annotator_label="O",
        judge_relevant=True)  # fmt: skip
    RelevanceAdjudication.objects.create(study=study, question=q, annotator=ann,
                                         setting="near_expert", disagreement=disagreement,
                                         decision="keep", final_label="O")  # fmt: skip


def decide(study, question, task: str, unit: str, label: str, adjudicator) -> None:
    AdjudicationRequest.objects.create(study=study, task=task, question=question, unit=unit,
                                       adjudicator=adjudicator, status="decided", label=label)  # fmt: skip


def signal_world(name: str = "signal", copies: int = 1) -> tuple[Study, Judge]:
    """``copies`` > 1 repeats the two questions (the same labels: the figures do not
    change; the query-count tests compare sizes)."""
    study = Study.objects.create(name=name)
    systems = {s: System.objects.create(study=study, name=s) for s in ("alpha", "beta")}
    anns = [Annotator.objects.create(pseudonym=f"{name}-ann{k}") for k in (1, 2, 3)]
    adjudicator = Annotator.objects.create(pseudonym=f"{name}-adj")
    judge = Judge.objects.create(name=f"{name}-j1")
    for c in range(copies):
        _question(study, 2 * c, Q0, systems, anns, judge, adjudicator)
        q1 = _question(study, 2 * c + 1, Q1, systems, anns, judge, adjudicator)
        decide(study, q1, "pairwise", "alpha~beta", "beta", adjudicator)
        decide(study, q1, "medal_ranking", "", "alpha=silver;beta=gold", adjudicator)
    return study, judge
