"""DeepScholar-Bench human agreement study (seed 002 §8.11, Table 3; METHODS §7).

DeepScholar validates each LLM-judged metric by having experts label the units the judge
labels. Per *label kind* (organization, nugget importance, nugget support, retrieval
relevance, reference importance, claim–source entailment) the figure is the share of units
where the human label equals the judge's label — a three-way label (Lose / Tie / Win,
Supported / Partially / Not, relevance 0 / 1 / 2) is compared as is, never binarised — with
Cohen's κ (two raters: the human and the judge, each with its own marginals) and a cluster
bootstrap CI over questions (units of one question share a report and an exemplar). The
paper's agreements: organization 78 %, nugget importance 72 %, nugget support 70 %,
relevance 70 %, reference importance 82 %, entailment 80 %.

Pure: the inputs are aligned arrays (one row per human label with a judge label for the same
unit); the database side is :mod:`metaeval.loaders.deepscholar`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .figure import Figure, figure
from .iaa import cohen_kappa
from .intervals import statistic_interval

#: The label kinds, in the order of the paper's Table 3, and their label sets (METHODS §2.10).
KINDS: dict[str, tuple[str, ...]] = {
    "organization": ("lose", "tie", "win"),
    "nugget_importance": ("vital", "non_vital"),
    "nugget_support": ("supported", "partially_supported", "not_supported"),
    "retrieval_relevance": ("0", "1", "2"),
    "reference_importance": ("important", "not_important"),
    "entailment": ("entailed", "not_entailed"),
}

NO_UNITS = "No unit has both a human and a judge label of this kind."
NO_KAPPA = (
    "Cohen's κ is undefined: the human and the judge used one and the same label on every "
    "unit, so agreement cannot be told apart from chance."
)


@dataclass(frozen=True)
class KindAgreement:
    kind: str
    agreement: Figure  # share of units with human label == judge label, CI over questions
    kappa: Figure  # Cohen's κ human vs judge, CI over questions
    n_units: int
    n_questions: int

    def as_dict(self) -> dict:
        return {"kind": self.kind, "agreement": self.agreement.as_dict(),
                "kappa": self.kappa.as_dict(), "n_units": self.n_units,
                "n_questions": self.n_questions}  # fmt: skip


def _codes(human, judge) -> tuple[np.ndarray, np.ndarray]:
    """Both label columns as shared integer codes (labels are strings or numbers)."""
    h = np.asarray([str(x) for x in human], dtype=object)
    j = np.asarray([str(x) for x in judge], dtype=object)
    _, inverse = np.unique(np.concatenate([h, j]).astype(str), return_inverse=True)
    inverse = inverse.ravel().astype(float)
    return inverse[: h.size], inverse[h.size :]


def kind_agreement(
    kind: str, human, judge, questions, rounds: int = 1000, seed: int = 0
) -> KindAgreement:
    """Agreement and κ of one label kind. ``human[i]`` and ``judge[i]`` label the same unit
    of question ``questions[i]``. ``rounds = 0``: no interval."""
    q = np.asarray(questions).ravel()
    h, j = _codes(human, judge)
    if h.size != j.size or h.size != q.size:
        raise ValueError("human, judge and questions need one entry per unit")
    n, k = int(h.size), int(np.unique(q).size) if q.size else 0
    if n == 0:
        empty = figure(None, 0, undefined=NO_UNITS)
        return KindAgreement(kind, empty, empty, 0, 0)

    def agree(rows):
        return float((h[rows] == j[rows]).mean()) if rows.size else float("nan")

    def kappa(rows):
        return cohen_kappa(np.column_stack([h[rows], j[rows]])).value

    if rounds <= 0:
        return KindAgreement(
            kind,
            figure(agree(np.arange(n)), n, undefined=NO_UNITS),
            figure(kappa(np.arange(n)), n, undefined=NO_KAPPA),
            n,
            k,
        )
    return KindAgreement(
        kind,
        statistic_interval(agree, q, n_rounds=rounds, seed=seed, n=n, undefined=NO_UNITS),
        statistic_interval(kappa, q, n_rounds=rounds, seed=seed, n=n, undefined=NO_KAPPA),
        n,
        k,
    )


def table3(rows_by_kind, rounds: int = 1000, seed: int = 0) -> list[KindAgreement]:
    """Table 3: one :class:`KindAgreement` per kind of :data:`KINDS` (in its order; a kind
    without rows is reported with null figures and a note). ``rows_by_kind[kind]`` is
    ``(human labels, judge labels, questions)``."""
    out = []
    for kind in KINDS:
        human, judge, questions = rows_by_kind.get(kind, ((), (), ()))
        out.append(kind_agreement(kind, human, judge, questions, rounds=rounds, seed=seed))
    return out
