"""A study with one judgment of every kind per question, and a judge's counterpart of each,
for the analysis loaders (issue 16). ``n_questions`` scales it; the per-question content is
the same, so tests know every number a loader must return.

Per question: systems alpha and beta; annotators ann1, ann2; judge j1.
* pairwise: ann1 sees (beta, alpha) and picks left, ann2 sees (alpha, beta) and picks right:
  both say beta (B) is better → −1; j1 direct: (alpha, beta) → right (−1, order 1),
  (beta, alpha) → tie (0, order 2); j1 ensemble (alpha, beta) → left (+1).
* coverage: (alpha, item 1): ann1 3, ann2 2, j1 4; (beta, item 2): ann1 0 / covered False,
  j1 1 / covered False; (beta, item 1): j1 only (no human label: not loaded).
* query quality, item quality, rubric comparison, ratings + medals + judge scores, a claim
  check with its judge verdict, and a relevance adjudication in each of two settings.
"""

from annotation.models import (
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
    RubricItemQuality,
    Section,
    Study,
    System,
)
from judges.models import Judge, JudgeClaimVerdict, JudgeCoverage, JudgePairwise, JudgeScore


def _question(study, k, systems, anns, judge):
    q = Question.objects.create(study=study, external_id=f"q{k}", text=f"Q{k}?", field="NLP")
    alpha = Report.objects.create(question=q, system=systems["alpha"])
    beta = Report.objects.create(question=q, system=systems["beta"])
    ann1, ann2 = anns
    base = {"study": study, "question": q}
    PairwisePreference.objects.create(**base, annotator=ann1, left=beta, right=alpha,
                                      choice="left", reason="r")  # fmt: skip
    PairwisePreference.objects.create(**base, annotator=ann2, left=alpha, right=beta,
                                      choice="right", reason="r")  # fmt: skip
    JudgePairwise.objects.create(judge=judge, left=alpha, right=beta, choice="right")
    JudgePairwise.objects.create(judge=judge, left=beta, right=alpha, choice="tie")
    JudgePairwise.objects.create(judge=judge, protocol="ensemble", left=alpha, right=beta,
                                 choice="left", score_left=10, score_right=6)  # fmt: skip
    rubrics = {
        kind: Rubric.objects.create(question=q, kind=kind) for kind in ("hybrid", "expert", "llm")
    }
    item1 = RubricItem.objects.create(rubric=rubrics["hybrid"], position=1, text="i1", weight=1)
    item2 = RubricItem.objects.create(rubric=rubrics["hybrid"], position=2, text="i2", weight=3)
    RubricCoverage.objects.create(**base, annotator=ann1, report=alpha, item=item1, label=3)
    RubricCoverage.objects.create(**base, annotator=ann2, report=alpha, item=item1, label=2)
    RubricCoverage.objects.create(**base, annotator=ann1, report=beta, item=item2, label=0,
                                  covered=False)  # fmt: skip
    JudgeCoverage.objects.create(judge=judge, report=alpha, item=item1, label=4)
    JudgeCoverage.objects.create(judge=judge, report=beta, item=item2, label=1, covered=False)
    JudgeCoverage.objects.create(judge=judge, report=beta, item=item1, label=2)
    QueryQuality.objects.create(**base, annotator=ann1, clarity=4, naturalness=3, relevance=2,
                                variability="closed")  # fmt: skip
    QueryQuality.objects.create(**base, annotator=ann2, clarity=5, naturalness=3, relevance=2,
                                variability="open_ended")  # fmt: skip
    RubricItemQuality.objects.create(**base, annotator=ann1, item=item1, emphasis="sentence",
                                     necessity="minor_degradation", confidence=4)  # fmt: skip
    RubricItemQuality.objects.create(**base, annotator=ann2, item=item1, emphasis="none",
                                     necessity="no_change", confidence=3, flags=["unclear"])  # fmt: skip
    comparison = RubricComparison.objects.create(**base, annotator=ann1)
    for kind, medal in (("hybrid", "gold"), ("expert", "silver"), ("llm", "bronze")):
        RubricAssessment.objects.create(comparison=comparison, rubric=rubrics[kind], medal=medal)
    ranking = MedalRanking.objects.create(**base, annotator=ann1)
    Medal.objects.create(ranking=ranking, report=alpha, medal="gold")
    Medal.objects.create(ranking=ranking, report=beta, medal="silver")
    for report, value, score in ((alpha, 4, 0.8), (beta, 2, 0.5)):
        ReportRating.objects.create(**base, annotator=ann1, report=report,
                                    dimension="informativeness", value=value)  # fmt: skip
        JudgeScore.objects.create(judge=judge, report=report, metric="overall", value=score)
    claim = ReportClaim.objects.create(report=alpha, text="Claim  one.", citation_keys=["c1", "c2"])
    ClaimCheck.objects.create(**base, annotator=ann1, claim=claim, fully_supported=False,
                              citation_supports={"c1": True, "c2": False})  # fmt: skip
    ClaimCheck.objects.create(**base, annotator=ann2, claim=claim, skipped=True)
    JudgeClaimVerdict.objects.create(judge=judge, report=alpha, key="p1:0-10", text="Claim one.",
                                     verdict="supported",
                                     citations=[{"key": "c1", "supports": True},
                                                {"key": "c2", "supports": True}])  # fmt: skip
    section = Section.objects.create(report=alpha, position=1)
    paragraph = Paragraph.objects.create(section=section, report=alpha, number=1, text="p")
    for setting, decision, ann in (
        ("near_expert", "switch", ann1),
        ("deep_expert", "subjective", ann2),
    ):
        assignment = Assignment.objects.create(study=study, annotator=ann, question=q,
                                               task="relevance_adjudication", setting=setting)  # fmt: skip
        disagreement = RelevanceDisagreement.objects.create(
            assignment=assignment, judge=judge, paragraph=paragraph, annotator_label="O",
            judge_relevant=True,
        )  # fmt: skip
        RelevanceAdjudication.objects.create(**base, annotator=ann, setting=setting,
                                             disagreement=disagreement, decision=decision,
                                             final_label="R")  # fmt: skip


def analysis_world(n_questions: int, name: str = "world") -> tuple[Study, Judge]:
    study = Study.objects.create(name=name)
    systems = {s: System.objects.create(study=study, name=s) for s in ("alpha", "beta")}
    anns = [Annotator.objects.create(pseudonym=f"{name}-{k}") for k in ("ann1", "ann2")]
    judge = Judge.objects.create(name=f"{name}-j1")
    for k in range(n_questions):
        _question(study, k, systems, anns, judge)
    return study, judge
