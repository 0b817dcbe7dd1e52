"""A small study with medal rankings, human and judge scores, built with the ORM."""

from annotation.models import (
    Annotator,
    HumanMetricScore,
    Medal,
    MedalRanking,
    Question,
    Report,
    Study,
    System,
)
from judges.models import Judge, JudgeScore

SYSTEMS = ("gamma", "alpha", "beta")
MEDALS = ("gold", "silver", "bronze")


def ranked_study(n_questions: int = 12, name: str = "ranked", seed: int = 0,
                 annotators: int = 2) -> Study:  # fmt: skip
    """Two (``annotators``) annotators rank three systems per question; one judge scores
    every report.

    Deterministic: medals and scores come from a seeded generator so tests can compare
    the same study through different paths (command, API, Celery).
    """
    import random

    rng = random.Random(seed)
    study = Study.objects.create(name=name)
    systems = {s: System.objects.create(study=study, name=s) for s in SYSTEMS}
    judge = Judge.objects.create(name=f"{name}-judge")
    annotators = [Annotator.objects.create(pseudonym=f"{name}-ann{k}")
                  for k in range(1, annotators + 1)]  # fmt: skip
    for q in range(n_questions):
        question = Question.objects.create(
            study=study, external_id=f"q{q}", text=f"Question {q}?", split="dev"
        )
        reports = {
            s: Report.objects.create(question=question, system=sys) for s, sys in systems.items()
        }
        for s, report in reports.items():
            base = {"alpha": 0.7, "beta": 0.55, "gamma": 0.4}[s]
            for metric in (
                "answer_relevance",
                "answer_recall",
                "citation_precision",
                "citation_recall",
            ):
                JudgeScore.objects.create(
                    judge=judge,
                    report=report,
                    metric=metric,
                    value=round(base + rng.uniform(-0.2, 0.2), 3),
                )
            JudgeScore.objects.create(
                judge=judge,
                report=report,
                metric="overall",
                value=round(base + rng.uniform(-0.15, 0.15), 3),
            )
        for annotator in annotators:
            ranking = MedalRanking.objects.create(
                study=study, annotator=annotator, question=question, setting="assigned"
            )
            order = sorted(
                SYSTEMS,
                key=lambda s: (
                    -({"alpha": 0.7, "beta": 0.55, "gamma": 0.4}[s] + rng.uniform(-0.3, 0.3))
                ),
            )
            medals = list(MEDALS)
            if rng.random() < 0.3:
                medals[1] = medals[0]  # a two-way tie at the top
            for s, medal in zip(order, medals, strict=True):
                Medal.objects.create(ranking=ranking, report=reports[s], medal=medal)
                HumanMetricScore.objects.create(
                    study=study, annotator=annotator, question=question, report=reports[s],
                    metric="answer_recall", value=rng.choice([0.0, 0.25, 0.5, 0.75, 1.0]),
                )  # fmt: skip
    return study


def researcher_api(researcher, n_questions: int = 3):
    """(an API client authenticated as ``researcher``, a :func:`ranked_study` they read):
    what the report-option tests ask the API with (``client.researcher`` is the user)."""
    from rest_framework.test import APIClient

    study = ranked_study(n_questions)
    study.researchers.add(researcher)
    client = APIClient()
    client.force_authenticate(researcher)
    client.researcher = researcher
    return client, study
