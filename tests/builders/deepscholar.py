"""DeepScholar-Bench Table 3 data (seed 002 §8.11): a synthetic study whose human–judge
agreements are set by construction — for every label kind, 100 units over 10 questions of
which exactly the paper's share get the same label from the expert and from the judge
(``gpt-4o``), beside a constant judge (``always-first``)."""

from annotation.models import DeepScholarLabel
from annotation.models.deepscholar import LABELS, REPORT_KINDS
from judges.models import Judge, JudgeDeepScholarLabel
from metaeval.analyses.deepscholar import PAPER_AGREEMENT
from tests.builders.content import make_question, make_study

QUESTIONS, PER_QUESTION = 10, 10


def synthetic_study(annotator):
    study = make_study("DeepScholar synthetic")
    questions = [make_question(study, n_reports=PER_QUESTION, paragraphs=1)
                 for _ in range(QUESTIONS)]  # fmt: skip
    reports = {q.pk: list(q.reports.order_by("pk")) for q in questions}
    judge = Judge.objects.create(name="gpt-4o")
    other = Judge.objects.create(name="always-first")
    human, verdicts = [], []
    for kind, labels in LABELS.items():
        agree = round(PAPER_AGREEMENT[kind] * QUESTIONS * PER_QUESTION)
        for n in range(QUESTIONS * PER_QUESTION):
            q, i = questions[n % QUESTIONS], n // QUESTIONS
            report = reports[q.pk][i] if kind in REPORT_KINDS else None
            unit = "" if kind == "organization" else f"u{i}"
            mine = labels[(n // 3) % len(labels)]
            theirs = mine if n < agree else labels[(labels.index(mine) + 1) % len(labels)]
            human.append(DeepScholarLabel(study=study, annotator=annotator, question=q,
                                          kind=kind, report=report, unit=unit, label=mine))  # fmt: skip
            for j, label in ((judge, theirs), (other, labels[0])):
                verdicts.append(JudgeDeepScholarLabel(judge=j, kind=kind, question=q,
                                                      report=report, unit=unit, label=label))  # fmt: skip
    # an expert label with no judge counterpart is counted, not compared
    human.append(DeepScholarLabel(study=study, annotator=annotator, question=questions[0],
                                  kind="nugget_importance", unit="unjudged", label="vital"))  # fmt: skip
    DeepScholarLabel.objects.bulk_create(human)
    JudgeDeepScholarLabel.objects.bulk_create(verdicts)
    return study
