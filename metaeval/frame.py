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

#: Judge/human metric names used throughout Concord (issue 2: the file's
#: ``answer_precision`` is called ``answer_relevance`` here).
METRICS: tuple[str, ...] = (
    "overall",
    "answer_relevance",
    "answer_recall",
    "citation_precision",
    "citation_recall",
)
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
