"""The in-memory shape every meta-evaluation computation reads.

`metaeval.data` turns database rows into a :class:`PairFrame`; tests and the
ScholarQA-CS2 compatibility code can also build one straight from the released JSON
records. Nothing here imports Django: the statistics stay pure (ARCHITECTURE.md).

One row is one *human judgment of one comparison*: (question, system A, system B) seen by
one annotator in one setting. Systems are in canonical order (``system_a < system_b`` by
name, METHODS §5 "Comparison"), and every a/b array follows that order.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from annotation.annotate import scores

#: Judge/human metric names used throughout Concord (issue 2: the file's
#: ``answer_precision`` is called ``answer_relevance`` here), declared with the human
#: metrics (``annotation.annotate.scores``, pure like this module).
METRICS: tuple[str, ...] = scores.METRICS
ALL_METRICS: tuple[str, ...] = METRICS + ("overall_citation",)


@dataclass
class PairFrame:
    """Column arrays of pairwise human judgments, with the judge's scores beside them.

    Integer columns are codes into the label lists (``questions``, ``systems``,
    ``annotators``, ``settings``, ``splits``). Score columns have shape ``(n, 2)``: column 0
    is system A, column 1 system B; NaN where the value was not collected.
    """

    question: np.ndarray  # (n,) int codes into questions
    system_a: np.ndarray  # (n,) int codes into systems
    system_b: np.ndarray  # (n,) int codes into systems
    annotator: np.ndarray  # (n,) int codes into annotators
    setting: np.ndarray  # (n,) int codes into settings
    split: np.ndarray  # (n,) int codes into splits
    preference: np.ndarray  # (n, 2) medal scores: gold 1.0, silver 0.5, bronze 0.0
    human: dict[str, np.ndarray]  # metric -> (n, 2) metric-wise human scores
    judge: dict[str, np.ndarray]  # metric -> (n, 2) judge scores
    questions: list[str] = field(default_factory=list)
    systems: list[str] = field(default_factory=list)
    annotators: list[str] = field(default_factory=list)
    settings: list[str] = field(default_factory=list)
    splits: list[str] = field(default_factory=list)
    judge_name: str | None = None  # whose scores ``judge`` holds, when loaded from the DB
    #: a frame of the majority / adjudicated human signal: the every-annotator rows it was
    #: collapsed from (:func:`with_human_signal`; IAA reads them); ``take`` drops it
    each: PairFrame | None = None
    signal: dict | None = None  # what :func:`with_human_signal` kept (units, tied, …)

    def __len__(self) -> int:
        return int(self.question.shape[0])

    def take(self, mask_or_index: np.ndarray) -> PairFrame:
        """A new frame with the selected rows; label lists are shared, codes unchanged."""
        idx = np.asarray(mask_or_index)
        return PairFrame(
            question=self.question[idx],
            system_a=self.system_a[idx],
            system_b=self.system_b[idx],
            annotator=self.annotator[idx],
            setting=self.setting[idx],
            split=self.split[idx],
            preference=self.preference[idx],
            human={k: v[idx] for k, v in self.human.items()},
            judge={k: v[idx] for k, v in self.judge.items()},
            questions=self.questions,
            systems=self.systems,
            annotators=self.annotators,
            settings=self.settings,
            splits=self.splits,
            judge_name=self.judge_name,
        )


def with_human_signal(
    frame: PairFrame, mode: str, adjudicated: dict[str, dict[str, float]] | None = None,
    failed=frozenset(),
) -> tuple[PairFrame, dict]:  # fmt: skip
    """The frame with one row per comparison and setting: the ``majority`` or
    ``adjudicated`` human signal (docs/ANALYSES.md §0; ``each`` is the frame itself).

    A row's human label is the decision of its medal scores (A better, B better, tie:
    METHODS §5); the kept row carries the signal's decision as medal scores (1, 0), (0, 1)
    or (½, ½), so every figure downstream reads it as it reads a judgment. Metric-wise
    human scores are collapsed the same way, metric by metric (NaN where that metric ties).
    ``adjudicated``: question -> {system: medal score} of its adjudicated medal ranking
    (the adjudication decides the ranking of every setting's comparison of the question;
    metric-wise scores read their majority, of scores the loader already read with the
    adjudicated paragraph relevance: :func:`metaeval.loaders.signal.adjudicated_relevance`).
    A comparison
    whose medal decision and every metric tie is left out. ``annotators`` becomes
    ``[mode]``; the returned dict counts units, tied and adjudicated comparisons.
    """
    from .stats.signal import collapse

    if mode == "each" or len(frame) == 0:
        return frame, {"mode": mode, "units": len(frame), "kept": len(frame), "tied": 0,
                       "adjudicated": 0}  # fmt: skip
    keys = np.stack((frame.question, frame.system_a, frame.system_b, frame.setting), 1)
    _, first, unit = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    unit = unit.ravel()

    def decision(values: np.ndarray) -> np.ndarray:
        d = np.sign(values[:, 0] - values[:, 1])
        return np.where(np.isnan(d), np.nan, d)

    adj = {}
    for u, row in enumerate(first):
        medals = (adjudicated or {}).get(frame.questions[frame.question[row]])
        a, b = frame.systems[frame.system_a[row]], frame.systems[frame.system_b[row]]
        if medals and a in medals and b in medals:
            adj[u] = float(np.sign(medals[a] - medals[b]))
    # ``failed``: pseudonyms of annotators who failed qualification, read by neither signal
    gone = [i for i, name in enumerate(frame.annotators) if name in failed]
    excluded = np.isin(frame.annotator, gone) if gone else None
    pref = collapse(unit, decision(frame.preference), mode, adj, excluded)
    metrics = {m: collapse(unit, decision(v), "majority", excluded=excluded)
               for m, v in frame.human.items()}  # fmt: skip
    kept = np.unique(np.concatenate([unit[pref.rows], *(unit[c.rows] for c in metrics.values())]))
    out = frame.take(first[kept.astype(np.int64)])

    def scores(c) -> np.ndarray:
        by_unit = dict(zip(unit[c.rows].tolist(), c.label.tolist(), strict=True))
        d = np.array([by_unit.get(u, np.nan) for u in kept.tolist()], dtype=float)
        return np.column_stack(((d + 1) / 2, (1 - d) / 2))

    out.preference = scores(pref)
    out.human = {m: scores(c) for m, c in metrics.items()}
    out.annotator = np.zeros(len(out), dtype=np.int64)
    out.annotators = [mode]
    out.each, out.signal = frame, pref.summary(mode)
    # each metric's own majority: its units, kept and tied (the metric-wise table's n per
    # row, which the report explains: metaeval.reports.note_left_out)
    out.signal["metric_wise"] = {m: {"units": c.units, "kept": int(c.rows.size), "tied": c.tied}
                                 for m, c in metrics.items() if c.units}  # fmt: skip
    return out, out.signal
