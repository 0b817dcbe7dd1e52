"""Report ratings (1–5), the reports' medal scores and the judges' metric scores → arrays
for Fig. 9 (seed 003 B). Three queries.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from concord.query import is_digits

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
    #: adjudicated signal only: (report·dimensions + dimension) -> adjudicated rating, and
    #: report -> adjudicated medal value (:meth:`adjudicated`)
    adj_ratings: dict[int, float] | None = None
    adj_medals: dict[int, float] | None = None
    #: annotator ids of each rating row and of each medal row's ranking (the majority /
    #: adjudicated signals leave out those who failed qualification)
    annotator_id: np.ndarray | None = None
    m_annotator: np.ndarray | None = None

    def rating_unit(self) -> np.ndarray:
        """The unit of each rating row: one (report, dimension)."""
        return self.report * max(len(self.dimensions), 1) + self.dimension

    def adjudicated(self, labels: dict[tuple[str, int, str], str]):
        """(rating unit -> rating, report -> medal value) from decided adjudications
        ``(task, question, QC unit) -> label`` (:func:`metaeval.loaders.signal.decided`):
        metric-wise ``rating <dimension>@System`` → that report's rating; a medal ranking
        (medal_ranking's unit "", metric-wise's "medals"; the medal rows pool both tasks'
        rankings, so the medal-ranking task's adjudication wins where both exist) → the
        medal of every report it ranks."""
        from annotation.models import Medal
        from annotation.quality.labels import parse_ranking, parse_rating, split_unit

        report_of = {(int(q), self.systems[s]): int(r)
                     for q, s, r in zip(self.question, self.system, self.report, strict=True)}  # fmt: skip
        unit = dict(zip(zip(self.report.tolist(), self.dimension.tolist(), strict=True),
                        self.rating_unit().tolist(), strict=True))  # fmt: skip
        ratings, rankings = {}, {}
        for (task, q, qc_unit), label in labels.items():
            if task == "medal_ranking" and qc_unit == "":
                rankings[q] = label
            elif task == "metric_wise" and qc_unit == "medals":
                rankings.setdefault(q, label)
            elif task == "metric_wise":
                what, system = split_unit(qc_unit)
                dim = parse_rating(what)
                if dim not in self.dimensions or not is_digits(label):
                    continue
                u = unit.get((report_of.get((q, system)), self.dimensions.index(dim)))
                if u is not None:
                    ratings[u] = float(label)
        medals = {}
        for q, report, system in zip(self.m_question, self.m_report, self.m_system, strict=True):
            medal = parse_ranking(rankings.get(int(q), "")).get(system)
            if medal in Medal.SCORE:
                medals[int(report)] = Medal.SCORE[medal]
        return ratings, medals


def load_ratings(study_id: int, settings=None, adjudicated: bool = False) -> RatingsData:
    """Ratings, medals and judge scores; with ``adjudicated``, the decided metric-wise and
    medal-ranking adjudications (one more query) mapped by :meth:`RatingsData.adjudicated`."""
    from annotation.models import Medal, ReportRating
    from judges.models import JudgeScore

    r = fetch(
        ReportRating.objects.filter(study_id=study_id, **settings_filter(settings))
        .order_by("pk")
        .values_list("report_id", "question_id", "annotator__pseudonym", "report__system__name",
                     "dimension", "value", "annotator_id"),
        7,
    )  # fmt: skip
    medal_setting = {} if settings is None else {"ranking__setting__in": list(settings)}
    m = fetch(
        Medal.objects.filter(ranking__study_id=study_id, **medal_setting)
        .order_by("pk")
        .values_list("report_id", "medal", "report__question_id", "report__system__name",
                     "ranking__annotator_id"),
        5,
    )  # fmt: skip
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
    data = RatingsData(
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
        annotator_id=ints(r[6]),
        m_annotator=ints(m[4]),
    )
    if adjudicated:
        from .signal import decided

        data.adj_ratings, data.adj_medals = data.adjudicated(
            decided(study_id, "medal_ranking", "metric_wise")
        )
    return data
