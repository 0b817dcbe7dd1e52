"""Submitted labels of every task type quality control reads, on one probe unit each.

``PROBES[task]`` is ``(unit, label_one, label_two)``: :func:`label` writes a submitted
assignment of ``task`` for an annotator whose judgment gives the probe unit ``label_one``
(``second=False``) or ``label_two`` — the rest of the judgment is the same for everyone — so a
test can make annotators agree or disagree on a unit of any task type. The question comes
from :func:`qc_question` (two reports, a rubric, a second rubric, claims, nuggets, an
exemplar reference). :func:`failed_annotator_world` builds two annotators who disagree on a
probe unit in a study that requires qualification, to fail one of them.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils import timezone

from annotation.models import (
    ClaimCheck,
    DeepScholarLabel,
    ExemplarReference,
    Medal,
    MedalRanking,
    Nugget,
    PairwisePreference,
    Paragraph,
    QualificationResult,
    QueryQuality,
    RelevanceAdjudication,
    RelevanceDisagreement,
    ReportClaim,
    ReportRating,
    Rubric,
    RubricAssessment,
    RubricComparison,
    RubricCoverage,
    RubricItem,
    RubricItemQuality,
)

from .content import make_assignment, make_claims, make_question, make_study
from .users import make_user

S0, S1 = "SecretSystem0", "SecretSystem1"

PROBES: dict[str, tuple[str, str, str]] = {
    "pairwise": (f"{S0}~{S1}", S0, S1),
    "medal_ranking": ("", f"{S0}=gold;{S1}=silver", f"{S0}=silver;{S1}=gold"),
    "metric_wise": (f"rating answer_quality@{S0}", "4", "2"),
    "rubric_coverage": (f"item default:0@{S0}", "3", "2"),
    "query_quality": ("clarity", "5", "4"),
    "rubric_item_quality": ("emphasis item default:0", "sentence", "paragraph_plus"),
    "rubric_comparison": ("", "default=gold;hybrid=silver", "default=silver;hybrid=gold"),
    "claim_check": (f"claim {{claim}}@{S0}", "yes", "no"),
    "relevance_adjudication": (f"paragraph 1@{S0}", "R", "O"),
    "organization": (f"report@{S0}", "win", "lose"),
    "nugget_importance": ("n1", "vital", "non_vital"),
    "nugget_support": (f"n1@{S0}", "supported", "partially_supported"),
    "retrieval_relevance": (f"[1]@{S0}", "2", "1"),
    "reference_importance": ("ref1", "important", "not_important"),
    "entailment": (f"1:[1]@{S0}", "entailed", "not_entailed"),
}
DEEPSCHOLAR = {
    "organization": ("", True),
    "nugget_importance": ("n1", False),
    "nugget_support": ("n1", True),
    "retrieval_relevance": ("[1]", True),
    "reference_importance": ("ref1", False),
    "entailment": ("1:[1]", True),
}


def qc_question(study):
    """A question with two reports and everything any task type labels."""
    q = make_question(study, n_reports=2, paragraphs=2, rubric_items=2)
    hybrid = Rubric.objects.create(question=q, kind="hybrid")
    RubricItem.objects.create(rubric=hybrid, position=0, text="Another item")
    make_claims(q)
    Nugget.objects.create(question=q, key="n1", position=0, text="Fine-tuning memorizes.")
    ExemplarReference.objects.create(question=q, key="ref1", position=0, title="A reference")
    return q


def probe_unit(task: str, question) -> str:
    unit = PROBES[task][0]
    if "{claim}" in unit:
        claim = ReportClaim.objects.filter(report__question=question, report__system__name=S0)
        unit = unit.format(claim=claim.first().public_id)
    return unit


def label(task: str, annotator, question, *, second: bool = False, seconds: int = 30):
    """A submitted assignment of ``task`` whose judgment labels the probe unit."""
    a = make_assignment(annotator, question, task)
    value = PROBES[task][2 if second else 1]
    common = {"study": question.study, "annotator": annotator, "question": question,
              "assignment": a}  # fmt: skip
    reports = {r.system.name: r for r in question.reports.select_related("system")}
    WRITERS[task](common, reports, value, question)
    a.status, a.submitted_at, a.seconds_on_task = "submitted", timezone.now(), seconds
    a.save()
    return a


def _pairwise(common, reports, value, q):
    PairwisePreference.objects.create(
        left=reports[S0], right=reports[S1], choice="left" if value == S0 else "right",
        reason="because", **common,
    )  # fmt: skip


def _ranking(common, reports, value, q):
    r = MedalRanking.objects.create(**common)
    for part in value.split(";"):
        system, medal = part.split("=")
        Medal.objects.create(ranking=r, report=reports[system], medal=medal)


def _metric_wise(common, reports, value, q):
    for system, report in reports.items():
        ReportRating.objects.create(
            report=report, dimension="answer_quality", value=int(value) if system == S0 else 3,
            **common,
        )  # fmt: skip
    _ranking(common, reports, f"{S0}=gold;{S1}=silver", q)


def _coverage(common, reports, value, q):
    for system, report in reports.items():
        for item in RubricItem.objects.filter(rubric__question=q, rubric__kind="default"):
            first = system == S0 and item.position == 0
            RubricCoverage.objects.create(
                report=report, item=item, label=int(value) if first else 4, **common
            )


def _query_quality(common, reports, value, q):
    QueryQuality.objects.create(clarity=int(value), naturalness=3, relevance=3,
                                variability="closed", **common)  # fmt: skip


def _item_quality(common, reports, value, q):
    for item in RubricItem.objects.filter(rubric__question=q, rubric__kind="default"):
        RubricItemQuality.objects.create(
            item=item, emphasis=value if item.position == 0 else "none",
            necessity="no_change", confidence=3, **common,
        )  # fmt: skip


def _rubric_comparison(common, reports, value, q):
    c = RubricComparison.objects.create(**common)
    for part in value.split(";"):
        kind, medal = part.split("=")
        RubricAssessment.objects.create(
            comparison=c, rubric=Rubric.objects.get(question=q, kind=kind), medal=medal,
            strengths="clear", weaknesses="long",
        )  # fmt: skip


def _claim_check(common, reports, value, q):
    for claim in ReportClaim.objects.filter(report__question=q):
        ok = value == "yes" if claim.report == reports[S0] else True
        ClaimCheck.objects.create(
            claim=claim, fully_supported=ok, citation_supports={k: True for k in claim.citation_keys},
            **common,
        )  # fmt: skip


def _relevance(common, reports, value, q):
    from judges.models import Judge

    judge, _ = Judge.objects.get_or_create(name="judge-x")
    p = Paragraph.objects.get(report=reports[S0], number=1)
    d = RelevanceDisagreement.objects.create(
        assignment=common["assignment"], judge=judge, paragraph=p, annotator_label="O",
        judge_relevant=True,
    )  # fmt: skip
    RelevanceAdjudication.objects.create(
        disagreement=d, decision="switch" if value == "R" else "keep", final_label=value,
        **common,
    )  # fmt: skip


def _deepscholar(kind):
    def write(common, reports, value, q):
        key, on_report = DEEPSCHOLAR[kind]
        DeepScholarLabel.objects.create(
            kind=kind, report=reports[S0] if on_report else None, unit=key, label=value,
            **common,
        )  # fmt: skip

    return write


WRITERS = {
    "pairwise": _pairwise,
    "medal_ranking": _ranking,
    "metric_wise": _metric_wise,
    "rubric_coverage": _coverage,
    "query_quality": _query_quality,
    "rubric_item_quality": _item_quality,
    "rubric_comparison": _rubric_comparison,
    "claim_check": _claim_check,
    "relevance_adjudication": _relevance,
    **{kind: _deepscholar(kind) for kind in DEEPSCHOLAR},
}


@dataclass(frozen=True)
class FailedAnnotatorWorld:
    """Two annotators who disagree on one question's probe unit of ``task``: ``good``
    labels it ``label_one``, ``bad`` ``label_two`` (:data:`PROBES`). The study requires a
    qualification round; ``bad``'s result is undecided until :meth:`qualify` decides it."""

    study: object
    question: object
    good: object
    bad: object
    task: str

    @property
    def unit_key(self) -> str:
        """The probe unit's key as quality control names it (``studio.studyadmin.quality``)."""
        from studio.studyadmin import quality

        return quality.unit_key((self.task, self.question.pk, probe_unit(self.task, self.question)))

    def qualify(self, annotator, passed: bool | None):
        """Set ``annotator``'s qualification result: failed, passed, or undecided (None)."""
        QualificationResult.objects.filter(study=self.study, annotator=annotator).update(
            passed=passed
        )


def failed_annotator_world(task: str, prefix: str = "fa") -> FailedAnnotatorWorld:
    """A :class:`FailedAnnotatorWorld` for ``task`` (any key of :data:`PROBES`: a task type or
    a DeepScholar label kind): a study that requires qualification, one :func:`qc_question`,
    annotators ``<prefix>_g`` (good) and ``<prefix>_b`` (bad) with a submitted label each,
    and ``bad``'s qualification result with one item answered and nothing decided. Fail
    them with ``world.qualify(world.bad, False)``; ``prefix`` keeps user names apart when a
    test builds two worlds."""
    study = make_study(f"Failed annotators ({task})", tasks=[task], qualification_required=True)
    q = qc_question(study)
    good, bad = (make_user(f"{prefix}_{n}", "annotator", annotator=True).annotator for n in "gb")
    label(task, good, q)
    label(task, bad, q, second=True)
    QualificationResult.objects.create(study=study, annotator=bad, items=1, answered=1)
    return FailedAnnotatorWorld(study, q, good, bad, task)
