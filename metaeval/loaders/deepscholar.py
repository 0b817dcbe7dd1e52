"""DeepScholar labels (seed 002 §8.11) → aligned human / judge label rows. Two queries.

Join rule (docs/ANALYSES.md §10): an expert's :class:`~annotation.models.DeepScholarLabel`
and a judge's :class:`~judges.models.JudgeDeepScholarLabel` label the same unit when kind,
question, report (or none) and unit key are equal — the keys the task pages store and the
judge-label files use. Each expert label is a row (the default human signal: a unit
labelled by two experts counts twice), once per judge that labelled the unit.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ._db import fetch, settings_filter

#: The DeepScholar label kinds, each also the key of its task type (annotation/annotate/).
KINDS = ("organization", "nugget_importance", "nugget_support", "retrieval_relevance",
         "reference_importance", "entailment")  # fmt: skip


@dataclass
class DeepScholarData:
    kind: np.ndarray  # one row per (expert label, judge label of the same unit)
    question: np.ndarray  # question ids (the bootstrap clusters)
    judge: np.ndarray  # judge names
    human: np.ndarray  # labels as stored (strings)
    verdict: np.ndarray
    judges: list[str] = field(default_factory=list)
    n_human: dict[str, int] = field(default_factory=dict)  # expert labels per kind
    #: (judge, kind) -> of the kind's expert labels, those with no label of that judge: each
    #: judge's own count, whatever units the other judges labelled
    n_unmatched: dict[tuple[str, str], int] = field(default_factory=dict)
    #: per row, a code of its unit (kind, question, report, unit key): the majority /
    #: adjudicated human signal's unit (docs/ANALYSES.md §0)
    unit: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int64))
    #: adjudicated signal only: unit code -> adjudicated label (:func:`_adjudicated`)
    adjudicated: dict[int, str] | None = None
    #: per row, the expert's annotator id (the majority / adjudicated signals leave out
    #: those who failed qualification, :func:`metaeval.stats.signal.failed_rows`)
    annotator: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int64))
    #: every expert label, matched or not (one entry each): its kind, unit code, label and
    #: annotator, so ``unmatched`` can be counted under the human signal of the figures
    #: (:func:`metaeval.analyses.deepscholar.unmatched`); None when not loaded
    experts: dict[str, np.ndarray] | None = None
    #: judge -> unit codes it labelled (of the units experts labelled)
    judged_units: dict[str, frozenset[int]] = field(default_factory=dict)


def load_deepscholar(study_id: int, settings=None, adjudicated: bool = False) -> DeepScholarData:
    """Expert and judge labels joined by unit; with ``adjudicated``, the decided
    adjudications of the six DeepScholar tasks (one more query)."""
    from annotation.models import DeepScholarLabel
    from judges.models import JudgeDeepScholarLabel

    h = fetch(
        DeepScholarLabel.objects.filter(study_id=study_id, **settings_filter(settings))
        .order_by("pk")
        .values_list("kind", "question_id", "report_id", "unit", "label",
                     "report__system__name", "annotator_id"),
        7,
    )  # fmt: skip
    j = fetch(
        JudgeDeepScholarLabel.objects.filter(question__study_id=study_id)
        .order_by("judge__name", "pk")
        .values_list("kind", "question_id", "report_id", "unit", "label", "judge__name"),
        6,
    )
    by_unit: dict[tuple, list[tuple[str, str]]] = {}
    for kind, q, r, unit, label, judge in zip(*j, strict=True):
        by_unit.setdefault((kind, q, r, unit), []).append((judge, label))
    judges = sorted(set(j[5]))
    rows, n_human, n_unmatched = [], {}, {}
    units: dict[tuple, int] = {}
    codes, judged = [], {judge: set() for judge in judges}
    for kind, q, r, unit, label, _, annotator in zip(*h, strict=True):
        n_human[kind] = n_human.get(kind, 0) + 1
        matches = by_unit.get((kind, q, r, unit), [])
        labelled = {judge for judge, _ in matches}
        code = units.setdefault((kind, q, r, unit), len(units))
        codes.append(code)
        for judge in judges:
            if judge not in labelled:
                n_unmatched[(judge, kind)] = n_unmatched.get((judge, kind), 0) + 1
            else:
                judged[judge].add(code)
        rows.extend((kind, q, judge, label, verdict, code, annotator)
                    for judge, verdict in matches)  # fmt: skip
    adj = None
    if adjudicated:
        where = {(kind, q, system or "", unit): units[(kind, q, r, unit)]
                 for kind, q, r, unit, _, system, _ in zip(*h, strict=True)}  # fmt: skip
        adj = _adjudicated(study_id, where)
    cols = list(zip(*rows, strict=True)) if rows else [()] * 7
    return DeepScholarData(
        kind=np.asarray(cols[0], dtype=object),
        question=np.asarray(cols[1], dtype=np.int64),
        judge=np.asarray(cols[2], dtype=object),
        human=np.asarray(cols[3], dtype=object),
        verdict=np.asarray(cols[4], dtype=object),
        judges=judges,
        n_human=n_human,
        n_unmatched=n_unmatched,
        unit=np.asarray(cols[5], dtype=np.int64),
        adjudicated=adj,
        annotator=np.asarray(cols[6], dtype=np.int64),
        experts={
            "kind": np.asarray(h[0], dtype=object),
            "unit": np.asarray(codes, dtype=np.int64),
            "label": np.asarray(h[4], dtype=object),
            "annotator": np.asarray(h[6], dtype=np.int64),
        },
        judged_units={judge: frozenset(c) for judge, c in judged.items()},
    )


def _adjudicated(study_id: int, where: dict) -> dict[int, str]:
    """unit code -> label of the decided adjudications of the DeepScholar tasks (task key
    = label kind), their QC unit ``<key>@System`` / ``<key>`` read back by
    :func:`annotation.quality.labels.parse_keyed`; ``where``: (kind, question, system,
    key) -> unit code."""
    from annotation.quality.labels import parse_keyed

    from .signal import decided

    out = {}
    for (kind, question, qc_unit), label in decided(study_id, *KINDS).items():
        for key, system in parse_keyed(qc_unit):
            code = where.get((kind, question, system, key))
            if code is not None:
                out[code] = label
                break
    return out
