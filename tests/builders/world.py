"""Small builders of annotation data for the API and task-page tests.

``build_world`` makes one study with three blinded systems, questions with full reports
(sections -> paragraphs -> anchors, the three kinds of citation), rubrics, assignments for
two annotators, judgments of each kind and judge scores. System names are distinctive so a
test can scan response bodies for them.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from annotation.models import (
    Assignment,
    HumanMetricScore,
    Medal,
    MedalRanking,
    PairwisePreference,
    Paragraph,
    Question,
    Report,
    Rubric,
    RubricItem,
    Section,
    Study,
    System,
)
from judges.models import Judge, JudgeScore
from tests.builders.sources import add_anchor, add_citation

SYSTEM_NAMES = ("ZetaSecretSystemAlpha", "ZetaSecretSystemBeta", "ZetaSecretSystemGamma")
_seq = itertools.count(1)


def study(name: str | None = None, **kwargs) -> Study:
    return Study.objects.create(name=name or f"Study {next(_seq)}", **kwargs)


def system(study: Study, name: str) -> System:
    return System.objects.create(study=study, name=name)


def question(study: Study, text: str | None = None, **kwargs) -> Question:
    n = next(_seq)
    return Question.objects.create(
        study=study, external_id=f"q{n}", text=text or f"Question {n}?", **kwargs
    )


def report(question: Question, system: System, *, sections: int = 2, paragraphs: int = 2):
    """A report with ``sections`` x ``paragraphs`` paragraphs; citations of every kind."""
    # The system's name hides in fields annotators must never get (the blinding test).
    r = Report.objects.create(question=question, system=system, source_format=system.name)
    snippet = add_citation(
        r,
        key="1",
        title="A paper",
        snippets=["evidence"],
        url="https://example.org/1",
        metadata={"retrieved_by": system.name},
    )
    title_only = add_citation(r, key="2", title="Title only paper")
    bare = add_citation(r, key="3")
    cites = [snippet, title_only, bare]
    number = 0
    for s in range(1, sections + 1):
        section = Section.objects.create(report=r, position=s, title=f"Section {s}")
        for _ in range(paragraphs):
            number += 1
            text = f"Paragraph {number} says something [1]."
            p = Paragraph.objects.create(report=r, section=section, number=number, text=text)
            add_anchor(p, cites[number % 3], start=len(text) - 4, end=len(text) - 1)
    return r


def rubric(question: Question, kind: str = "expert", items: int = 2) -> Rubric:
    r = Rubric.objects.create(question=question, kind=kind)
    for i in range(1, items + 1):
        RubricItem.objects.create(rubric=r, position=i, text=f"Item {i}", weight=float(i))
    return r


def assignment(annotator, question: Question, *, task: str = "medal_ranking", order=None):
    reports = list(question.reports.values_list("id", flat=True))
    return Assignment.objects.create(
        study=question.study,
        annotator=annotator,
        question=question,
        task=task,
        report_order=Assignment.shuffled(reports, seed=1) if order is None else order,
    )


def judgments(a: Assignment) -> dict:
    """One judgment of each kind on the assignment's question, by its annotator."""
    reports = list(Report.objects.filter(question=a.question).order_by("id"))
    base = {"study": a.study, "annotator": a.annotator, "question": a.question, "assignment": a}
    ranking = MedalRanking.objects.create(reasoning="Because.", **base)
    for r, medal in zip(reports, ["gold", "silver", "bronze"], strict=False):
        Medal.objects.create(ranking=ranking, report=r, medal=medal)
    pref = PairwisePreference.objects.create(
        left=reports[0], right=reports[1], choice="left", reason="Clearer.", **base
    )
    score = HumanMetricScore.objects.create(report=reports[0], metric="overall", value=0.5, **base)
    return {"medal-ranking": ranking, "pairwise-preference": pref, "human-metric-score": score}


@dataclass
class World:
    study: Study
    systems: list[System]
    annotator: object  # the user "A"
    other: object  # the user "B"
    questions: list[Question] = field(default_factory=list)
    own: dict = field(default_factory=dict)  # basename -> one of A's objects
    others: dict = field(default_factory=dict)  # basename -> one of B's objects
    judge: Judge | None = None


def equip_question(w: World, q: Question, owner, *, items: int = 2) -> dict:
    """Reports by every system, a rubric, the owner's assignment, judgments, judge scores."""
    reports = [report(q, s) for s in w.systems]
    rub = rubric(q, items=items)
    a = assignment(owner.annotator, q)
    made = {"question": q, "report": reports[0], "rubric": rub, "assignment": a}
    made.update(judgments(a))
    for r in reports:
        JudgeScore.objects.create(
            judge=w.judge, report=r, metric="overall", value=0.7, rationale=r.system.name
        )
    return made


def build_world(annotator_user, other_user) -> World:
    """A's question q1 and B's question q2, fully equipped, plus an unassigned q3."""
    s = study("World study")
    w = World(
        study=s,
        systems=[system(s, n) for n in SYSTEM_NAMES],
        annotator=annotator_user,
        other=other_user,
        judge=Judge.objects.create(name="judge-x", model="m"),
    )
    for owner, target in ((annotator_user, w.own), (other_user, w.others)):
        q = question(s)
        w.questions.append(q)
        target.update(equip_question(w, q, owner))
    unassigned = question(s)
    w.questions.append(unassigned)
    for sys_ in w.systems:
        report(unassigned, sys_)
    rubric(unassigned)
    return w


def grow(w: World, n: int) -> None:
    """Add ``n`` more questions for annotator A, each with a report per system and more."""
    for _ in range(n):
        q = question(w.study)
        w.questions.append(q)
        equip_question(w, q, w.annotator)


def other_kinds(a: Assignment) -> dict:
    """One judgment of each kind the API reads but does not write, by the assignment's
    annotator on its question (keys: the API basenames)."""
    from annotation.models import (
        ClaimAssessment,
        ClaimCheck,
        DeepScholarLabel,
        ExpertiseRating,
        ParagraphRelevance,
        QueryQuality,
        RelevanceAdjudication,
        RelevanceDisagreement,
        ReportClaim,
        ReportRating,
        RubricAssessment,
        RubricComparison,
        RubricCoverage,
        RubricItemQuality,
    )
    from annotation.models import Paragraph as ParagraphModel

    report_ = Report.objects.filter(question=a.question).order_by("id").first()
    paragraph = ParagraphModel.objects.filter(report=report_).order_by("number").first()
    rub = Rubric.objects.filter(question=a.question).order_by("id").first() or rubric(a.question)
    item = rub.items.order_by("position").first()
    judge, _ = Judge.objects.get_or_create(name="judge-x", defaults={"model": "m"})
    base = {"study": a.study, "annotator": a.annotator, "question": a.question, "assignment": a}
    comparison = RubricComparison.objects.create(reasoning="Both fine.", **base)
    RubricAssessment.objects.create(comparison=comparison, rubric=rub, medal="gold")
    claim = ReportClaim.objects.create(report=report_, paragraph=paragraph, text="A claim.")
    disagreement = RelevanceDisagreement.objects.create(
        assignment=a, judge=judge, paragraph=paragraph, annotator_label="R", judge_relevant=False
    )
    return {
        "paragraph-relevance": ParagraphRelevance.objects.create(
            paragraph=paragraph, label="R", **base
        ),
        "claim-assessment": ClaimAssessment.objects.create(
            report=report_,
            paragraph=paragraph,
            position=0,
            text="A claim.",
            citation_count=1,
            citations=[{"key": "1", "label": "supports"}],
            supporting_credit=1.0,
            coverage="fully",
            **base,
        ),  # fmt: skip
        "report-rating": ReportRating.objects.create(
            report=report_, dimension="clarity", value=4, **base
        ),
        "query-quality": QueryQuality.objects.create(
            clarity=4, naturalness=3, relevance=5, variability="semi_open", **base
        ),
        "rubric-item-quality": RubricItemQuality.objects.create(
            item=item, emphasis="right", necessity="necessary", confidence=3, **base
        ),
        "rubric-coverage": RubricCoverage.objects.create(
            report=report_, item=item, label=2, covered=True, **base
        ),
        "rubric-comparison": comparison,
        "claim-check": ClaimCheck.objects.create(claim=claim, fully_supported=True, **base),
        "relevance-adjudication": RelevanceAdjudication.objects.create(
            disagreement=disagreement,
            decision="keep",
            reason="Still relevant.",
            final_label="R",
            **base,
        ),  # fmt: skip
        "deepscholar-label": DeepScholarLabel.objects.update_or_create(
            kind="organization",
            report=report_,
            unit="",
            setting=a.setting,
            annotator=a.annotator,
            question=a.question,
            defaults={"label": "win", "study": a.study, "assignment": a},
        )[0],  # fmt: skip
        "expertise-rating": ExpertiseRating.objects.get_or_create(
            annotator=a.annotator, question=a.question, defaults={"level": "within"}
        )[0],
    }
