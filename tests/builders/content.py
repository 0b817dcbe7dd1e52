"""Synthetic content for tests and benchmarks: a question, its reports, an assignment.

The reports have sections, numbered paragraphs and citations of all three kinds (with
snippets, title only, bare), so a task page built on them exercises the whole reader.
"""

from __future__ import annotations

from annotation.models import (
    Assignment,
    Paragraph,
    Question,
    Report,
    Rubric,
    RubricItem,
    Section,
    Study,
    System,
)
from tests.builders.sources import add_anchor, add_citation

HOSTILE_TEXT = (
    'Hostile <script>window.__pwned = 1</script><img src=x onerror="window.__pwned=2">'
    ' <a href="javascript:window.__pwned=3">click</a> text [1].'
)


def make_study(name: str = "Sample study", tasks=None, **config) -> Study:
    return Study.objects.create(name=name, tasks=list(tasks or Study.Task.values), config=config)


def make_report(question: Question, system: System, *, paragraphs: int = 6, hostile=False):
    report = Report.objects.create(question=question, system=system)
    snippet = add_citation(
        report,
        key="[1]",
        title="Memorization in fine-tuned language models",
        snippets=["Summarization and dialogue exhibit high memorization.", "A second snippet."],
        url="https://example.org/paper1",
    )
    title_only = add_citation(report, key="[2]", title="A survey of attention patterns")
    bare = add_citation(report, key="(Min et al., 2021)")
    cycle = [snippet, title_only, bare]
    sections = [
        Section.objects.create(report=report, position=i, title=f"Section {i + 1}")
        for i in range(2)
    ]
    anchors = []
    for n in range(1, paragraphs + 1):
        citation = cycle[(n - 1) % 3]
        body = f"Paragraph {n} of the answer discusses **memorization** in detail"
        if hostile and n == 1:
            text = HOSTILE_TEXT
            start = text.index("[1]")
            citation = snippet
        else:
            text = f"{body} {citation.key}. More text follows here."
            start = text.index(citation.key)
        para = Paragraph.objects.create(
            section=sections[0 if n <= paragraphs // 2 else 1], report=report, number=n, text=text
        )
        anchors.append((para, citation, start, start + len(citation.key)))
    for para, citation, start, end in anchors:
        add_anchor(para, citation, start, end)
    return report


def make_question(
    study: Study,
    *,
    n_reports: int = 3,
    paragraphs: int = 6,
    hostile: bool = False,
    rubric_items: int = 0,
    external_id: str | None = None,
) -> Question:
    number = Question.objects.filter(study=study).count() + 1
    question = Question.objects.create(
        study=study,
        external_id=external_id or f"q{number}",
        text=f"How do fine-tuning tasks differ in how much they promote memorization? ({number})",
    )
    for i in range(n_reports):
        system, _ = System.objects.get_or_create(study=study, name=f"SecretSystem{i}")
        make_report(question, system, paragraphs=paragraphs, hostile=hostile and i == 0)
    if rubric_items:
        rubric = Rubric.objects.create(question=question)
        RubricItem.objects.bulk_create(
            RubricItem(rubric=rubric, position=i, text=f"Mentions aspect {i + 1} of memorization")
            for i in range(rubric_items)
        )
    return question


def make_assignment(
    annotator, question: Question, task: str, position: int = 0, setting: str = "assigned"
) -> Assignment:
    return Assignment.objects.create(
        study=question.study,
        annotator=annotator,
        question=question,
        task=task,
        position=position,
        setting=setting,
        report_order=Assignment.shuffled(list(question.reports.values_list("pk", flat=True))),
    )


def make_claims(question: Question, per_report: int = 1, source: str = "judge-x") -> list:
    """Claims ending in the citation of paragraphs 1, 2, … of each report."""
    from annotation.models import ReportClaim

    claims = []
    for report in question.reports.order_by("pk"):
        for n, para in enumerate(report.paragraphs.order_by("number")[:per_report]):
            key = para.anchors[0][2]  # the first anchor's citation key
            claims.append(
                ReportClaim.objects.create(
                    report=report,
                    paragraph=para,
                    position=n,
                    text=para.text.split(key)[0].strip(),
                    citation_keys=[key],
                    source=source,
                )
            )
    return claims


def make_relevance_work(
    annotator, question: Question, judge_name: str = "judge-x", setting: str = "assigned"
):
    """A submitted metric-wise assignment with R/U/O labels on every paragraph, and a judge's
    relevance verdicts (with a rationale naming the system, to test blinding) that disagree
    with some of them. Returns (metric-wise assignment, judge)."""
    from annotation.models import ParagraphRelevance
    from judges.models import Judge, JudgeRelevance

    source = make_assignment(annotator, question, "metric_wise")
    Assignment.objects.filter(pk=source.pk).update(status="submitted", setting=setting)
    source.refresh_from_db()
    judge, _ = Judge.objects.get_or_create(name=judge_name)
    labels, verdicts = [], []
    for p in Paragraph.objects.filter(report__question=question).select_related("report__system"):
        labels.append(
            ParagraphRelevance(
                study=question.study, annotator=annotator, question=question, setting=setting,
                assignment=source, paragraph=p, label="RUO"[p.number % 3],
            )
        )  # fmt: skip
        verdicts.append(
            JudgeRelevance(
                judge=judge, paragraph=p, relevant=p.number % 2 == 0,
                rationale=f"{p.report.system.name} wrote paragraph {p.number} off the question.",
            )
        )  # fmt: skip
    ParagraphRelevance.objects.bulk_create(labels)
    JudgeRelevance.objects.bulk_create(verdicts)
    return source, judge


def make_adjudication(annotator, question: Question, judge_name: str = "judge-x") -> Assignment:
    """The relevance adjudication assignment made (by the study action) from
    :func:`make_relevance_work`."""
    from studio.studyadmin import adjudication

    source, judge = make_relevance_work(annotator, question, judge_name)
    adjudication.commit(question.study, judge)
    return Assignment.objects.get(
        task="relevance_adjudication", annotator=annotator, question=question
    )


def make_authoring(annotator, study: Study, setting: str = "deep_expert") -> Assignment:
    """An authoring slot (an assignment without a question), opened by the study action."""
    from studio.studyadmin import authoring

    authoring.open_slots(study, [annotator], setting=setting)
    return Assignment.objects.get(task="question_authoring", annotator=annotator, study=study)
