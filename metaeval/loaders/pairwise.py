"""Pairwise preferences (ResearchQA) and judges' pairwise verdicts → arrays (METHODS §5, §7).

Every comparison is keyed canonically: (question, report A, report B) with A the report
whose system name sorts first (METHODS §5 "Comparison"). A human label "left" / "right" is
oriented on it (+1 A better, −1 B better, 0 tie, 2 both bad; the left / right order an
annotator saw is undone); a judge's direct verdict is oriented the same way and tagged with
the order it was asked in (1: A shown first, 2: B shown first). Three queries.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from metaeval.stats.iaa import label_matrix
from metaeval.stats.researchqa_pairwise import A_BETTER, B_BETTER, BOTH_BAD, TIE

from ._db import codes, fetch, ints, settings_filter

CHOICE = {"tie": TIE, "both_bad": BOTH_BAD}


@dataclass
class PairwiseData:
    # comparisons
    question: np.ndarray  # per comparison: question id (the bootstrap cluster)
    report_a: np.ndarray
    report_b: np.ndarray
    system_a: np.ndarray  # codes into ``systems``
    system_b: np.ndarray
    systems: list[str]
    # human labels, one row per annotator's judgment
    h_item: np.ndarray  # comparison index
    h_annotator: np.ndarray  # annotator id
    h_label: np.ndarray  # +1 / −1 / 0 / 2
    h_setting: list[str]
    # judges' verdicts, one row per stored verdict
    j_judge: np.ndarray  # codes into ``judges``
    j_protocol: list[str]  # direct / ensemble
    j_item: np.ndarray
    j_order: np.ndarray  # 1: A shown first, 2: B shown first
    j_verdict: np.ndarray  # +1 / −1 / 0, canonical orientation
    judges: list[str] = field(default_factory=list)

    def human_matrix(self) -> np.ndarray:
        """comparisons × annotators label matrix (NaN = not labelled)."""
        m = np.full((self.question.size, 0), np.nan)
        if self.h_item.size == 0:
            return m
        mat, items, _ = label_matrix(self.h_item, self.h_annotator, self.h_label)
        out = np.full((self.question.size, mat.shape[1]), np.nan)
        out[np.asarray(items, dtype=int)] = mat
        return out

    def verdicts(self, judge: str, protocol: str = "direct") -> tuple[np.ndarray, np.ndarray]:
        """(order-1 verdict, order-2 verdict) per comparison, NaN where missing. For the
        ensemble protocol the single verdict is the first array and the second is NaN."""
        first = np.full(self.question.size, np.nan)
        second = np.full(self.question.size, np.nan)
        if judge not in self.judges:
            return first, second
        code = self.judges.index(judge)
        proto = np.array(self.j_protocol, dtype=object)
        sel = (self.j_judge == code) & (proto == protocol)
        if protocol == "direct":
            for order, out in ((1, first), (2, second)):
                rows = sel & (self.j_order == order)
                out[self.j_item[rows]] = self.j_verdict[rows]
        else:
            first[self.j_item[sel]] = self.j_verdict[sel]
        return first, second

    def adjudicated(self, labels: dict[tuple[int, str], str]) -> dict[int, float]:
        """comparison -> adjudicated label code, from ``(question, "SysA~SysB") -> label``
        (:func:`metaeval.loaders.signal.load_adjudicated`; the label is the winning
        system's name, ``tie`` or ``both_bad``). Adjudications of pairs not in the data are
        not used."""
        index = {}
        for i, (q, a, b) in enumerate(zip(self.question, self.system_a, self.system_b,
                                          strict=True)):  # fmt: skip
            index[(int(q), "~".join(sorted((self.systems[a], self.systems[b]))))] = i
        out = {}
        for key, label in labels.items():
            i = index.get(key)
            if i is None:
                continue
            a, b = self.systems[self.system_a[i]], self.systems[self.system_b[i]]
            code = {a: A_BETTER, b: B_BETTER, **CHOICE}.get(label)
            if code is not None:
                out[i] = float(code)
        return out


def _canonical(question, left, right, left_name, right_name):
    """(question, A, B, left is A) per row, A the report of the system first by name."""
    left_is_a = np.array([ln <= rn for ln, rn in zip(left_name, right_name, strict=True)], bool)
    a = np.where(left_is_a, left, right)
    b = np.where(left_is_a, right, left)
    return question, a, b, left_is_a


def load_pairwise(study_id: int, settings=None) -> PairwiseData:
    """Human pairwise preferences and judges' pairwise verdicts of one study."""
    from annotation.models import PairwisePreference
    from judges.models import JudgePairwise

    h = fetch(
        PairwisePreference.objects.filter(study_id=study_id, **settings_filter(settings))
        .order_by("pk")
        .values_list("question_id", "annotator_id", "left_id", "right_id", "choice", "setting",
                     "left__system__name", "right__system__name"),
        8,
    )  # fmt: skip
    j = fetch(
        JudgePairwise.objects.filter(left__question__study_id=study_id)
        .order_by("pk")
        .values_list("left__question_id", "judge__name", "protocol", "left_id", "right_id",
                     "choice", "left__system__name", "right__system__name"),
        8,
    )  # fmt: skip
    hq, ha, hb, h_left_a = _canonical(ints(h[0]), ints(h[2]), ints(h[3]), h[6], h[7])
    jq, ja, jb, j_left_a = _canonical(ints(j[0]), ints(j[3]), ints(j[4]), j[6], j[7])
    keys = np.concatenate((np.stack((hq, ha, hb), 1), np.stack((jq, ja, jb), 1)))
    keys = keys.reshape(-1, 3)
    uniq, inverse = np.unique(keys, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    h_item, j_item = inverse[: hq.size], inverse[hq.size :]
    # system codes of each comparison, from the names seen on its rows
    names_a = {}
    for item, la, ln, rn in zip(h_item, h_left_a, h[6], h[7], strict=True):
        names_a[item] = (ln, rn) if la else (rn, ln)
    for item, la, ln, rn in zip(j_item, j_left_a, j[6], j[7], strict=True):
        names_a.setdefault(item, (ln, rn) if la else (rn, ln))
    systems = sorted({n for pair in names_a.values() for n in pair})
    sys_index = {n: i for i, n in enumerate(systems)}
    system_a = np.array([sys_index[names_a[i][0]] for i in range(uniq.shape[0])], dtype=int)
    system_b = np.array([sys_index[names_a[i][1]] for i in range(uniq.shape[0])], dtype=int)
    h_label = np.array(
        [CHOICE.get(c, (A_BETTER if c == "left" else B_BETTER) * (1 if la else -1))
         for c, la in zip(h[4], h_left_a, strict=True)],
        dtype=float,
    )  # fmt: skip
    j_verdict = np.array(
        [TIE if c == "tie" else (A_BETTER if c == "left" else B_BETTER) * (1 if la else -1)
         for c, la in zip(j[5], j_left_a, strict=True)],
        dtype=float,
    )  # fmt: skip
    j_judge, judges = codes(j[1])
    return PairwiseData(
        question=uniq[:, 0] if uniq.size else np.empty(0, dtype=np.int64),
        report_a=uniq[:, 1] if uniq.size else np.empty(0, dtype=np.int64),
        report_b=uniq[:, 2] if uniq.size else np.empty(0, dtype=np.int64),
        system_a=system_a,
        system_b=system_b,
        systems=systems,
        h_item=h_item,
        h_annotator=ints(h[1]),
        h_label=h_label,
        h_setting=list(h[5]),
        j_judge=j_judge,
        j_protocol=list(j[2]),
        j_item=j_item,
        j_order=np.where(j_left_a, 1, 2),
        j_verdict=j_verdict,
        judges=judges,
    )
