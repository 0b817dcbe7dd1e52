"""A study with rows in every table a backup holds: the demo study (questions, reports,
rankings, scores, report orders, accounts with roles) plus one judgment of every other
type, drafts with their history, a live judge run with units and cached answers, judge
verdicts of every kind and a stored agreement report."""

from __future__ import annotations

import datetime as dt

from django.contrib.auth.models import User
from django.utils import timezone

from annotation import roles
from annotation.models import (
    Annotator,
    Assignment,
    ClaimAssessment,
    ClaimCheck,
    Draft,
    DraftVersion,
    ExpertAgreedRecord,
    ExpertiseRating,
    Flag,
    Guidelines,
    PairwisePreference,
    Paragraph,
    ParagraphRelevance,
    QueryQuality,
    RelevanceAdjudication,
    RelevanceDisagreement,
    Reopening,
    ReportClaim,
    ReportRating,
    RubricAssessment,
    RubricComparison,
    RubricCoverage,
    RubricItem,
    RubricItemQuality,
    Study,
)
from judges.models import (
    Judge,
    JudgeChunk,
    JudgeClaimVerdict,
    JudgeCoverage,
    JudgePairwise,
    JudgeRelevance,
    JudgeRun,
    JudgeUnit,
    LLMResponse,
)
from metaeval.models import ReportRun
from metaeval.reports import ReportOptions, agreement_report
from studio import demo

PAST = dt.datetime(2025, 3, 4, 5, 6, 7, tzinfo=dt.UTC)


def full_study(settings) -> Study:
    settings.DEBUG = True
    demo.load()
    study = Study.objects.get(name=demo._read_json(demo.FIXTURES / "demo.json")["study"]["name"])
    a = Assignment.objects.filter(study=study).order_by("pk").first()
    q, ann = a.question, a.annotator
    reports = list(q.reports.order_by("pk"))
    left, right = reports[0], reports[1]
    paragraph = Paragraph.objects.filter(report=left).order_by("number").first()
    item = RubricItem.objects.filter(rubric__question=q).order_by("pk").first()
    rubric = item.rubric
    base = {"study": study, "annotator": ann, "question": q, "assignment": a}

    author = Annotator.objects.create(pseudonym="Backup-Author", degree="PhD")
    q.authored_by = author
    q.save(update_fields=["authored_by"])
    ExpertiseRating.objects.create(annotator=ann, question=q, level="near")
    PairwisePreference.objects.create(left=left, right=right, choice="tie", reason="Same.", **base)
    ExpertAgreedRecord.objects.create(
        study=study, question=q, report_a=left, report_b=right, judge_name="released-judge",
        position=0, preference=[0.75, 0.25], human={"rank_citation_recall": [1.5, 2.0]},
        judge_scores={"overall": [0.8, None]},
    )  # fmt: skip
    ParagraphRelevance.objects.create(paragraph=paragraph, label="U", **base)
    ClaimAssessment.objects.create(
        report=left, paragraph=paragraph, position=1, text="A claim.", citation_count=1,
        citations=[{"key": "1", "support": "none"}], supporting_credit=0.0, coverage="fully",
        **base,
    )  # fmt: skip
    ReportRating.objects.create(report=left, dimension="answer_recall", value=4, **base)
    QueryQuality.objects.create(
        clarity=5, naturalness=4, relevance=3, variability="closed", comment="ok", **base
    )
    RubricItemQuality.objects.create(
        item=item, emphasis="high", necessity="necessary", confidence=3, flags=["typo"], **base
    )
    RubricCoverage.objects.create(report=left, item=item, label=3, **base)
    comparison = RubricComparison.objects.create(reasoning="Better rubric.", **base)
    RubricAssessment.objects.create(comparison=comparison, rubric=rubric, medal="gold")
    claim = ReportClaim.objects.create(
        report=left, paragraph=paragraph, position=1, text="Claim [1].", citation_keys=["1"]
    )
    ClaimCheck.objects.create(
        claim=claim, fully_supported=True, citation_supports={"1": True}, **base
    )
    payload = {"medals": {left.public_id: "gold", right.public_id: "silver"},
               "pairs": {f"{left.public_id}.{right.public_id}": {"choice": "left"}},
               "claims": {claim.public_id: {"supported": True}}}  # fmt: skip
    Draft.objects.create(assignment=a, payload=payload, version=2, last_activity_at=PAST)
    for version in (1, 2):
        DraftVersion.objects.create(assignment=a, version=version, author=ann, payload=payload)
    DraftVersion.objects.filter(assignment=a).update(created_at=PAST)
    Flag.objects.create(assignment=a, annotator=ann, report=left, reason="broken_report")
    Reopening.objects.create(assignment=a, version=1, reason="Say why.")
    Guidelines.objects.create(study=study, filename="g.txt", content_type="text/plain",
                              data="SGVsbG8=", size=5)  # fmt: skip

    Assignment.objects.create(study=study, annotator=ann, question=None,
                              task="question_authoring")  # fmt: skip

    researcher = User.objects.create_user("backup-researcher", password="x")
    roles.grant(researcher, roles.RESEARCHER)
    study.researchers.add(researcher)  # reads the study: the membership is backed up too
    judge = Judge.objects.create(name="backup-live-judge", model="local-model",
                                 parameters={"temperature": 0.0})  # fmt: skip
    run = JudgeRun.objects.create(
        judge=judge, study=study, tasks=["coverage", "pairwise"], status="done",
        total_units=2, done_units=2, requested_by=researcher, finished_at=timezone.now(),
    )  # fmt: skip
    chunk = JudgeChunk.objects.create(run=run, number=1, status="done")
    JudgeUnit.objects.create(
        run=run, chunk=chunk, key=f"coverage:{left.pk}:{rubric.pk}:0", task="coverage",
        payload={"report": left.pk, "items": [item.pk]}, status="done",
    )  # fmt: skip
    JudgeUnit.objects.create(
        run=run, chunk=chunk, key=f"pairwise:{left.pk}:{right.pk}", task="pairwise",
        payload={"left": left.pk, "right": right.pk}, status="done", cached=True,
    )  # fmt: skip
    LLMResponse.objects.create(key="k" * 64, model="local-model", content='{"ok": true}')
    JudgeCoverage.objects.create(judge=judge, report=left, item=item, label=2, run=run)
    JudgePairwise.objects.create(judge=judge, left=left, right=right, choice="left", run=run)
    JudgeRelevance.objects.create(judge=judge, paragraph=paragraph, relevant=False, run=run)
    JudgeClaimVerdict.objects.create(
        judge=judge, report=left, key="p1:0-9", text="Claim", verdict="supported", run=run
    )
    adjudicate = Assignment.objects.create(
        study=study, annotator=ann, question=q, task="relevance_adjudication",
        report_order=a.report_order, status="submitted",
    )  # fmt: skip
    disagreement = RelevanceDisagreement.objects.create(
        assignment=adjudicate, judge=judge, paragraph=paragraph, position=1,
        annotator_label="U", judge_relevant=False, judge_rationale="Off topic.",
    )  # fmt: skip
    RelevanceAdjudication.objects.create(
        disagreement=disagreement, decision="switch", reason="Persuaded.", final_label="O",
        **{**base, "assignment": adjudicate},
    )  # fmt: skip
    # an authoring slot: the one kind of assignment without a question
    Assignment.objects.create(study=study, annotator=author, task="question_authoring")
    disagreement = RelevanceDisagreement.objects.create(
        assignment=a, judge=judge, paragraph=paragraph, annotator_label="R",
        judge_relevant=False, judge_rationale="Off topic.",
    )  # fmt: skip
    RelevanceAdjudication.objects.create(
        disagreement=disagreement, decision="keep", reason="It is relevant.", final_label="R",
        **base,
    )  # fmt: skip
    # quality control (issue 17): a gold item, a qualification result, an adjudication, audit
    from annotation.models import AdjudicationRequest, GoldItem, QualificationResult, QualityEvent

    GoldItem.objects.create(study=study, task="pairwise", question=q, unit="A~B", answer="A",
                            source_annotator=ann, created_by=researcher)  # fmt: skip
    QualificationResult.objects.create(study=study, annotator=ann, correct=1, answered=1,
                                       items=1, passed=True, overridden=True)  # fmt: skip
    AdjudicationRequest.objects.create(
        study=study, task="pairwise", question=q, unit="A~B", adjudicator=author,
        originals=[{"pseudonym": ann.pseudonym, "label": "A"}], status="decided", label="B",
        requested_by=researcher, decided_at=timezone.now(),
    )  # fmt: skip
    QualityEvent.objects.create(study=study, actor=researcher, action="qualification_override",
                                annotator=ann, detail={"verdict": "pass", "reason": "ok"})  # fmt: skip
    # DeepScholar-Bench units and labels (issue 17): a nugget, the exemplar, its reference,
    # an expert's label and a judge's label of the same unit
    from annotation.models import DeepScholarLabel, Exemplar, ExemplarReference, Nugget
    from judges.models import JudgeDeepScholarLabel

    nugget = Nugget.objects.create(question=q, key="n1", position=1, text="A key fact.")
    Exemplar.objects.create(question=q, text="The authors' related work.")
    ExemplarReference.objects.create(question=q, key="r1", position=1, title="A paper")
    DeepScholarLabel.objects.create(study=study, annotator=ann, question=q,
                                    kind="nugget_importance", unit=nugget.key, label="vital")  # fmt: skip
    JudgeDeepScholarLabel.objects.create(judge=judge, kind="nugget_importance", question=q,
                                         unit=nugget.key, label="vital")  # fmt: skip
    options = ReportOptions()
    ReportRun.objects.create(
        study=study, options=options.to_dict(), status="done", progress=1.0,
        result=agreement_report(study.pk, options), requested_by=researcher,
    )  # fmt: skip
    return study
