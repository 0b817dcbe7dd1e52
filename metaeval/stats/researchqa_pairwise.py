"""ResearchQA pairwise preference (seed 000/001 §3.3, footnote 6; METHODS §7).

Labels are oriented on the canonical comparison (A = the system first by name, METHODS §5):

    A_BETTER = +1, B_BETTER = −1, TIE = 0, BOTH_BAD = 2

so a label matrix (items × annotators, NaN = not labelled, :func:`.iaa.label_matrix`) holds
every expert's label of every comparison. The paper's analyses:

* **Final label** — plurality over up to four experts: the unique most frequent label; two
  labels tied for most frequent is *no majority*, the comparison is left out and counted
  (METHODS §7). ResearchQA keeps "only those that had a majority voted direction label".
* **Human vs majority** (the 84 % upper bound) — each annotator's direction label against
  the plurality of the *other* annotators' direction labels (Tie and Both bad dropped
  first), :func:`.iaa.majority_agreement`.
* **Binarised PA** (Table 2, .69) — pairs of annotators with equal labels after dropping Tie
  and Both bad, :func:`.iaa.binary_pairwise_agreement`.
* **Judge accuracy** against the majority label, over comparisons whose majority is A or B,
  with footnote 6's partial credit (:func:`judge_credit`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .iaa import (
    RESEARCHQA_PREFERENCE,
    MajorityAgreement,
    PairwiseAgreement,
    binarize,
    binary_pairwise_agreement,
    category_counts,
    majority_agreement,
    majority_agreement_rows,
)

A_BETTER, B_BETTER, TIE, BOTH_BAD = 1, -1, 0, 2
LABELS = {"a": A_BETTER, "b": B_BETTER, "tie": TIE, "both_bad": BOTH_BAD}
DIRECTION = (A_BETTER, B_BETTER)


class MajorityLabels(NamedTuple):
    label: np.ndarray  # per item: the plurality label, NaN where none
    n_items: int  # items with at least ``min_labels`` labels
    n_no_majority: int  # of those, items whose top labels tie (left out, counted)
    n_direction: int  # items whose majority is A or B


def plurality_labels(labels, min_labels: int = 1) -> MajorityLabels:
    """Plurality label per item; ties between top labels give NaN (no majority).

    ``labels``: items × annotators, NaN = missing. Items with fewer than ``min_labels``
    labels are NaN and not counted in ``n_items``. A single label is its own plurality
    (``min_labels=2`` asks for at least two experts).
    """
    m = np.asarray(labels, dtype=float)
    if m.ndim != 2:
        raise ValueError("labels must be a 2-D items × annotators array")
    out = np.full(m.shape[0], np.nan)
    cats = np.unique(m[~np.isnan(m)])
    if cats.size == 0:
        return MajorityLabels(out, 0, 0, 0)
    counts = np.stack([(m == c).sum(axis=1) for c in cats], axis=1)
    n_i = counts.sum(axis=1)
    top = counts.max(axis=1)
    unique_top = (counts == top[:, None]).sum(axis=1) == 1
    enough = n_i >= max(min_labels, 1)
    ok = enough & unique_top
    out[ok] = cats[counts[ok].argmax(axis=1)]
    n_direction = int(np.isin(out, DIRECTION).sum())
    return MajorityLabels(out, int(enough.sum()), int((enough & ~unique_top).sum()), n_direction)


def direction_labels(labels) -> np.ndarray:
    """Keep only A / B (Tie and Both bad become NaN): ResearchQA's direction labels."""
    b = binarize(labels, **RESEARCHQA_PREFERENCE)  # A → 1, B → 0
    return np.where(np.isnan(b), np.nan, np.where(b == 1, A_BETTER, B_BETTER))


def human_vs_majority(labels, direction_only: bool = True) -> MajorityAgreement:
    """Each annotator vs the plurality of the others (ResearchQA §3.3: 84 %).

    METHODS §7 exactly: with ``direction_only`` (the paper: "annotators with direction
    label preferences"), Tie and Both bad are dropped first; each remaining direction label
    is compared with the plurality of the *other* direction labels of its comparison; a
    label whose others tie is left out and counted in ``n_no_majority``, one with no other
    direction label left out and counted in ``n_alone``.
    """
    m = direction_labels(labels) if direction_only else np.asarray(labels, dtype=float)
    return majority_agreement(m, rule="plurality", include_self=False)


def human_vs_majority_rows(labels) -> tuple[np.ndarray, np.ndarray]:
    """Per comparison: (direction labels agreeing with the others' plurality, labels
    compared): :func:`human_vs_majority` is Σ / Σ, so its bootstrap over questions is a
    ratio of cluster sums (issue 29: the per-round recomputation took seconds)."""
    agree, n, _, _ = majority_agreement_rows(direction_labels(labels), "plurality", False)
    return agree, n


def binarised_agreement_rows(labels) -> tuple[np.ndarray, np.ndarray]:
    """Per comparison: (annotator pairs with equal direction labels, pairs where both gave
    a direction): :func:`binarised_agreement` is Σ / Σ."""
    counts, _ = category_counts(binarize(labels, **RESEARCHQA_PREFERENCE))
    n_i = counts.sum(axis=1)
    pairs = np.where(n_i >= 2, n_i * (n_i - 1) // 2, 0)
    equal = np.where(n_i >= 2, (counts * (counts - 1) // 2).sum(axis=1), 0)
    return equal, pairs


def binarised_agreement(labels) -> PairwiseAgreement:
    """ResearchQA Table 2 pairwise preference PA: annotator pairs with equal direction
    labels over pairs where both gave a direction (Tie and Both bad dropped)."""
    return binary_pairwise_agreement(labels, **RESEARCHQA_PREFERENCE)


def judge_credit(majority, first, second=None) -> np.ndarray:
    """Footnote-6 credit of a judge on each comparison whose majority is A or B.

    Each verdict (oriented like the labels: +1 A, −1 B, 0 tie, NaN missing) scores 1 when
    it equals the majority, ½ when it is a tie, 0 when it is the other side. A direct judge
    asked in both orders scores the *mean* of its two verdicts' credits, which is exactly
    footnote 6: both right 1; one right and one wrong 50 %; one right and one tie 75 %;
    and by the same rule one wrong and one tie 25 %, both ties 50 % (METHODS §7). A single
    verdict (an ensemble judge, ``second=None``, or a direct judge with one order missing)
    scores its own credit: an ensemble tie is 50 %.

    Returns NaN where the majority is not a direction or no verdict exists.
    """
    maj = np.asarray(majority, dtype=float).ravel()
    v1 = np.asarray(first, dtype=float).ravel()
    v2 = np.full_like(v1, np.nan) if second is None else np.asarray(second, float).ravel()
    if not (maj.shape == v1.shape == v2.shape):
        raise ValueError("majority and verdicts must have one entry per comparison")

    def credit(v):
        return np.where(np.isnan(v), np.nan, np.where(v == maj, 1.0, np.where(v == 0, 0.5, 0.0)))

    both = np.stack((credit(v1), credit(v2)))
    have = (~np.isnan(both)).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        c = np.where(have > 0, np.nansum(both, axis=0) / np.maximum(have, 1), np.nan)
    return np.where(np.isin(maj, DIRECTION), c, np.nan)


class JudgeAccuracy(NamedTuple):
    value: float  # mean footnote-6 credit, NaN if no comparison counts
    n: int  # comparisons scored (majority A or B and a verdict)
    n_not_direction: int  # comparisons left out: majority Tie / Both bad / none
    n_no_verdict: int  # comparisons with a direction majority but no judge verdict


def judge_accuracy(majority, first, second=None) -> JudgeAccuracy:
    """Mean :func:`judge_credit` over the comparisons it is defined on (ResearchQA Fig. 4)."""
    maj = np.asarray(majority, dtype=float).ravel()
    c = judge_credit(maj, first, second)
    direction = np.isin(maj, DIRECTION)
    scored = ~np.isnan(c)
    n = int(scored.sum())
    return JudgeAccuracy(
        float(c[scored].mean()) if n else float("nan"),
        n,
        int((~direction).sum()),
        int((direction & ~scored).sum()),
    )
