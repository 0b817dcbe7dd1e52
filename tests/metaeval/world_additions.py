"""One more judgment of a kind on the analysis world (tests of the issue-16 sections)."""

from annotation.models import (
    Annotator,
    Assignment,
    ClaimCheck,
    Paragraph,
    QueryQuality,
    Question,
    RelevanceAdjudication,
    RelevanceDisagreement,
    ReportClaim,
    ReportRating,
    Rubric,
    RubricAssessment,
    RubricComparison,
)
from judges.models import Judge


def _first(study):
    q = Question.objects.filter(study=study).order_by("pk").first()
    return q, {"study": study, "question": q}


def new_annotator(name):
    return Annotator.objects.create(pseudonym=name)


def query_quality(study):
    q, base = _first(study)
    QueryQuality.objects.create(**base, annotator=new_annotator("extra-qq"), clarity=1,
                                naturalness=1, relevance=1, variability="closed")  # fmt: skip


def rubric_comparison(study):
    q, base = _first(study)
    comparison = RubricComparison.objects.create(**base, annotator=new_annotator("extra-rc"))
    for kind, medal in (("hybrid", "bronze"), ("expert", "gold"), ("llm", "silver")):
        RubricAssessment.objects.create(comparison=comparison,
                                        rubric=Rubric.objects.get(question=q, kind=kind),
                                        medal=medal)  # fmt: skip


def claim_check(study):
    q, base = _first(study)
    claim = ReportClaim.objects.filter(report__question=q).first()
    ClaimCheck.objects.create(**base, annotator=new_annotator("extra-cc"), claim=claim,
                              fully_supported=True, citation_supports={"c1": True, "c2": True})  # fmt: skip


def adjudication(study):
    q, base = _first(study)
    ann = new_annotator("extra-adj")
    paragraph = Paragraph.objects.filter(report__question=q).first()
    assignment = Assignment.objects.create(study=study, annotator=ann, question=q,
                                           task="relevance_adjudication", setting="near_expert")  # fmt: skip
    disagreement = RelevanceDisagreement.objects.create(
        assignment=assignment, judge=Judge.objects.first(), paragraph=paragraph,
        annotator_label="O", judge_relevant=True)  # fmt: skip
    RelevanceAdjudication.objects.create(**base, annotator=ann, setting="near_expert",
                                         disagreement=disagreement, decision="keep",
                                         final_label="O")  # fmt: skip


def rating(study):
    q, base = _first(study)
    report = q.reports.get(system__name="alpha")
    ReportRating.objects.create(**base, annotator=new_annotator("extra-rt"), report=report,
                                dimension="informativeness", value=1)  # fmt: skip


def expertise_rating(study, level="within"):
    """One more self-rating: a new annotator rates the first question."""
    from annotation.models import ExpertiseRating

    q, _ = _first(study)
    ExpertiseRating.objects.create(annotator=new_annotator(f"extra-tr-{level}"), question=q,
                                   level=level)  # fmt: skip


def authored_question(study, author="extra-qa"):
    """One more question written through the authoring task (origin expert-authored)."""
    n = Question.objects.filter(study=study).count()
    Question.objects.create(study=study, external_id=f"authored-x-{n}", field="Robotics",
                            text="Which sim-to-real methods transfer grasping policies?",
                            origin=Question.Origin.EXPERT_AUTHORED, review="pending",
                            authored_by=new_annotator(author))  # fmt: skip
