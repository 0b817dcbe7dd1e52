"""Report ratings (1–5), the reports' medal scores and the judges' metric scores → arrays
for Fig. 9 (seed 003 B). Three queries.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ._db import codes, fetch, floats, ints, settings_filter


@dataclass
class RatingsData:
    # ratings: one row per (annotator, report, dimension)
    report: np.ndarray
    question: np.ndarray
    annotator: np.ndarray  # codes into ``annotators``
    system: np.ndarray  # codes into ``systems``
    dimension: np.ndarray  # codes into ``dimensions``
    value: np.ndarray
    systems: list[str]
    dimensions: list[str]
    # medals of the study's rankings: one row per (ranking, report)
    m_report: np.ndarray
    m_value: np.ndarray  # gold 1, silver ½, bronze 0
    # judge scores of the rated reports' study
    s_judge: np.ndarray  # codes into ``judges``
    s_report: np.ndarray
    s_metric: list[str]
    s_value: np.ndarray
    judges: list[str]
    #: pseudonyms (never database ids: stable across a backup restore, safe to show)
    annotators: list[str] = field(default_factory=list)
    #: each medal row's question and system (the adjudicated human signal, ANALYSES §0)
    m_question: np.ndarray | None = None
    m_system: list[str] | None = None

    def adjudicated_medals(self, labels: dict[tuple[int, str], str]) -> dict[int, float]:
        """report -> adjudicated medal value, from the medal-ranking adjudications
        ``(question, "") -> "SysA=gold;SysB=silver;…"``
        (:func:`metaeval.loaders.signal.load_adjudicated`)."""
        from annotation.models import Medal

        out = {}
        for q, report, system in zip(self.m_question, self.m_report, self.m_system, strict=True):
            label = labels.get((int(q), ""))
            if label is None:
                continue
            medals = dict(part.split("=", 1) for part in label.split(";") if "=" in part)
            if system in medals and medals[system] in Medal.SCORE:
                out[int(report)] = Medal.SCORE[medals[system]]
        return out


def load_ratings(study_id: int, settings=None) -> RatingsData:
    from annotation.models import Medal, ReportRating
    from judges.models import JudgeScore

    r = fetch(
        ReportRating.objects.filter(study_id=study_id, **settings_filter(settings))
        .order_by("pk")
        .values_list("report_id", "question_id", "annotator__pseudonym", "report__system__name",
                     "dimension", "value"),
        6,
    )  # fmt: skip
    medal_setting = {} if settings is None else {"ranking__setting__in": list(settings)}
    m = fetch(
        Medal.objects.filter(ranking__study_id=study_id, **medal_setting)
        .order_by("pk")
        .values_list("report_id", "medal", "report__question_id", "report__system__name"),
        4,
    )
    s = fetch(
        JudgeScore.objects.filter(report__question__study_id=study_id)
        .order_by("pk")
        .values_list("judge__name", "report_id", "metric", "value"),
        4,
    )
    system, systems = codes(r[3])
    dimension, dimensions = codes(r[4])
    annotator, annotators = codes(r[2])
    judge, judges = codes(s[0])
    return RatingsData(
        report=ints(r[0]),
        question=ints(r[1]),
        annotator=annotator,
        system=system,
        dimension=dimension,
        value=floats(r[5]),
        systems=systems,
        dimensions=dimensions,
        m_report=ints(m[0]),
        m_value=np.array([Medal.SCORE[v] for v in m[1]], dtype=float),
        m_question=ints(m[2]),
        m_system=list(m[3]),
        s_judge=judge,
        s_report=ints(s[1]),
        s_metric=list(s[2]),
        s_value=floats(s[3]),
        judges=judges,
        annotators=annotators,
    )
