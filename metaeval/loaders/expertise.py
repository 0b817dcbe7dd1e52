"""Expertise self-ratings (003 Setting 2), the study's medal rankings and one judge's
overall scores → arrays for the expertise-triage section (docs/ANALYSES.md §11). Three
queries, whatever the study's size.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._db import fetch, floats, ints


@dataclass
class ExpertiseData:
    # self-ratings: one row per (annotator, question)
    question: list[str]  # question external ids
    annotator: list[str]  # pseudonyms (never database ids: stable, safe to show)
    level: list[str]  # within / near / outside
    # medals: one row per (ranking, report)
    m_ranking: np.ndarray
    m_question: list[str]
    m_annotator: list[str]
    m_report: np.ndarray
    m_value: np.ndarray  # gold 1, silver ½, bronze 0
    # the judge's overall score per report (NaN: none)
    s_report: np.ndarray
    s_value: np.ndarray
    judge: str | None


def load_expertise(study_id: int, settings=None, judge: str | None = None) -> ExpertiseData:
    """Every self-rating of the study's questions (a rating has no setting: it is the
    annotator's, whatever task the question is later assigned in), the medals of the
    study's rankings in ``settings`` (None: all) and ``judge``'s ``overall`` scores."""
    from annotation.models import ExpertiseRating, Medal
    from judges.models import JudgeScore

    r = fetch(
        ExpertiseRating.objects.filter(question__study_id=study_id)
        .order_by("pk")
        .values_list("question__external_id", "annotator__pseudonym", "level"),
        3,
    )
    medal_setting = {} if settings is None else {"ranking__setting__in": list(settings)}
    m = fetch(
        Medal.objects.filter(ranking__study_id=study_id, **medal_setting)
        .order_by("pk")
        .values_list("ranking_id", "ranking__question__external_id", "ranking__annotator__pseudonym",
                     "report_id", "medal"),
        5,
    )  # fmt: skip
    s = [[], []]
    if judge is not None:
        s = fetch(
            JudgeScore.objects.filter(report__question__study_id=study_id, judge__name=judge,
                                      metric="overall")
            .order_by("pk")
            .values_list("report_id", "value"),
            2,
        )  # fmt: skip
    return ExpertiseData(
        question=list(r[0]),
        annotator=list(r[1]),
        level=list(r[2]),
        m_ranking=ints(m[0]),
        m_question=list(m[1]),
        m_annotator=list(m[2]),
        m_report=ints(m[3]),
        m_value=np.array([Medal.SCORE[v] for v in m[4]], dtype=float),
        s_report=ints(s[0]),
        s_value=floats(s[1]),
        judge=judge,
    )
