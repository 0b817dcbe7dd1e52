"""Inter-annotator agreement (METHODS §5 "IAA").

Input shape: a *label matrix*, float array ``items × annotators`` with NaN where an
annotator did not label an item (build one from ``(item, annotator, label)`` triples
with :func:`label_matrix`). Columns may be persons or annotator *slots* (first / second
annotator of an item), which is what two-rater statistics such as Cohen's κ need.
Labels are numbers: decisions in {-1, 0, +1}, 0–4 coverage, Likert points, scores.

Only items with at least two labels carry IAA information; an input where no item has
two labels (a single annotator, for instance) gives ``NaN`` with ``n = 0`` from every
function here — "no IAA", never a number computed from nothing.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from typing import NamedTuple

import numpy as np

NO_IAA = float("nan")

#: Why κ and α are null when every label of the doubly labelled units is the same category
#: (a tester's study where both experts gave every rubric item 4): chance agreement p_e is
#: 1, so (p_o − p_e) / (1 − p_e) and 1 − D_o / D_e divide by zero (METHODS §7).
ONE_CATEGORY = "All labels are one category: chance agreement is 1, so κ and α are undefined."
#: Why the mean over annotator pairs of Cohen's κ is null while the labels vary: each pair
#: gave one and the same label on every unit they share (each pair's p_e is 1).
NO_PAIR_KAPPA = ("Cohen's κ undefined: every annotator pair gave one and the same label on all "
                 "the units they share (each pair's chance agreement is 1).")  # fmt: skip


def undefined_note(labels, figures: dict) -> str | None:
    """Why the null ones among ``figures`` (name -> value; κ / α of the units × annotators
    ``labels``) are null, or None when none is: :data:`ONE_CATEGORY` when the doubly
    labelled units hold a single category, :data:`NO_PAIR_KAPPA` for Cohen's κ alone."""
    null = [k for k, v in figures.items() if v is None]
    if not null:
        return None
    m = np.asarray(labels, dtype=float)
    paired = m[(~np.isnan(m)).sum(axis=1) >= 2] if m.ndim == 2 else m[:0]
    values = paired[~np.isnan(paired)]
    if values.size and np.unique(values).size == 1:
        return ONE_CATEGORY
    if null == ["cohen_kappa"]:
        return NO_PAIR_KAPPA
    return f"{', '.join(null)} undefined: no variance between the labels of this selection."


class PairwiseAgreement(NamedTuple):
    """Agreement pooled over all annotator pairs of all items with ≥ 2 labels."""

    strict: float  # share of pairs with equal labels
    half_credit: float  # 1 equal, ½ exactly one tie, 0 opposite (decisions only)
    n_items: int
    n_pairs: int


class KappaResult(NamedTuple):
    """A chance-corrected coefficient, its observed / expected agreement, and n items."""

    value: float
    observed: float
    expected: float
    n_items: int


class MajorityAgreement(NamedTuple):
    """Each label vs the majority of the item's other labels (ResearchQA's 84 %)."""

    value: float
    n: int  # labels compared
    n_no_majority: int  # labels skipped: the others had no majority
    n_alone: int = 0  # labels skipped: no other label on their item to compare with


def label_matrix(
    items: Iterable[Hashable],
    annotators: Iterable[Hashable],
    labels: Iterable[float],
    duplicates: str = "raise",
) -> tuple[np.ndarray, list, list]:
    """Build the ``items × annotators`` matrix from triples; returns (matrix, items, annotators).

    Keys are sorted. A repeated (item, annotator) raises by default; ``duplicates="last"``
    keeps the last one read (the ScholarQA-CS2 script's behaviour, METHODS §6.3).
    """
    if _integer_array(items) and _integer_array(annotators):
        return _label_matrix_of_codes(np.asarray(items), np.asarray(annotators), labels, duplicates)
    items, annotators = list(items), list(annotators)
    labels = np.asarray(list(labels), dtype=float)
    if not (len(items) == len(annotators) == labels.size):
        raise ValueError("items, annotators and labels must have the same length")
    if duplicates not in ("raise", "last"):
        raise ValueError("duplicates must be 'raise' or 'last'")
    item_keys, annotator_keys = sorted(set(items)), sorted(set(annotators))
    out = np.full((len(item_keys), len(annotator_keys)), np.nan)
    if not items:
        return out, item_keys, annotator_keys
    # Vectorised (the report builds this for every comparison of a study): codes by
    # position in the sorted keys, then one fancy-index assignment of the last value read
    # for each cell (numpy does not promise an order for repeated indices, so repeats are
    # resolved first).
    ii = {k: i for i, k in enumerate(item_keys)}
    aa = {k: j for j, k in enumerate(annotator_keys)}
    rows = np.fromiter((ii[k] for k in items), dtype=np.int64, count=len(items))
    cols = np.fromiter((aa[k] for k in annotators), dtype=np.int64, count=len(items))
    return _fill(out, rows, cols, labels, item_keys, annotator_keys, duplicates)


def _integer_array(values) -> bool:
    return isinstance(values, np.ndarray) and values.dtype.kind in "iu"


def _label_matrix_of_codes(items, annotators, labels, duplicates):
    """:func:`label_matrix` for integer arrays: keys and codes by ``np.unique`` (no Python
    loop per label; the report passes its comparison and annotator codes this way)."""
    labels = np.asarray(labels, dtype=float).ravel()
    items, annotators = items.ravel(), annotators.ravel()
    if not (items.size == annotators.size == labels.size):
        raise ValueError("items, annotators and labels must have the same length")
    if duplicates not in ("raise", "last"):
        raise ValueError("duplicates must be 'raise' or 'last'")
    item_keys, rows = np.unique(items, return_inverse=True)
    annotator_keys, cols = np.unique(annotators, return_inverse=True)
    out = np.full((item_keys.size, annotator_keys.size), np.nan)
    if items.size == 0:
        return out, [], []
    return _fill(
        out, rows.ravel(), cols.ravel(), labels, item_keys.tolist(), annotator_keys.tolist(),
        duplicates,
    )  # fmt: skip


def _fill(out, rows, cols, labels, item_keys, annotator_keys, duplicates):
    """Put each label in its cell; repeated cells raise, or keep the last label read."""
    cells = rows * len(annotator_keys) + cols
    if duplicates == "raise":
        unique, counts = np.unique(cells, return_counts=True)
        if (counts > 1).any():
            cell = int(unique[np.argmax(counts > 1)])
            item, annotator = (
                item_keys[cell // len(annotator_keys)],
                annotator_keys[cell % len(annotator_keys)],
            )
            raise ValueError(f"duplicate label for item {item!r}, annotator {annotator!r}")
    _, last_from_end = np.unique(cells[::-1], return_index=True)
    last = cells.size - 1 - last_from_end
    out[rows[last], cols[last]] = labels[last]
    return out, item_keys, annotator_keys


def _matrix(labels) -> np.ndarray:
    m = np.asarray(labels, dtype=float)
    if m.ndim != 2:
        raise ValueError("labels must be a 2-D items × annotators array (NaN = missing)")
    return m


def category_counts(labels) -> tuple[np.ndarray, np.ndarray]:
    """Per item, how many labels fall in each category: (counts items × K, categories)."""
    m = _matrix(labels)
    cats = np.unique(m[~np.isnan(m)])
    counts = (
        np.stack([(m == c).sum(axis=1) for c in cats], axis=1)
        if cats.size
        else (np.zeros((m.shape[0], 0), dtype=int))
    )
    return counts, cats


def pairwise_agreement(labels) -> PairwiseAgreement:
    """Strict and half-credit agreement over all annotator pairs (METHODS §5 IAA).

    Per item with ``n_i >= 2`` labels there are ``n_i(n_i − 1)/2`` pairs; with
    ``n_ik`` labels in category ``k``, ``Σ_k n_ik(n_ik − 1)/2`` of them agree. Half
    credit (decision labels only: 0 = tie) adds ½ for each of the ``n_i0·(n_i+ + n_i−)``
    pairs where exactly one side ties; opposite pairs score 0 and *stay* in the
    denominator (unlike the ScholarQA-CS2 script, METHODS §6.3). Both are pooled over
    pairs. seed 003 footnote 7 reports the two views (55.0 % strict vs 82.9 %); for
    non-decision labels ``half_credit`` is NaN.
    """
    counts, cats = category_counts(labels)
    n_i = counts.sum(axis=1)
    keep = n_i >= 2
    pairs = (n_i * (n_i - 1) // 2)[keep]
    n_pairs = int(pairs.sum())
    if n_pairs == 0:
        return PairwiseAgreement(NO_IAA, NO_IAA, 0, 0)
    c = counts[keep]
    equal = int((c * (c - 1) // 2).sum())
    strict = equal / n_pairs
    if set(cats.tolist()) <= {-1.0, 0.0, 1.0}:
        col = {v: c[:, k] for k, v in enumerate(cats.tolist())}
        zero = np.zeros(c.shape[0], dtype=int)
        ties, pos, neg = (col.get(v, zero) for v in (0.0, 1.0, -1.0))
        one_tie = int((ties * (pos + neg)).sum())
        half = (equal + 0.5 * one_tie) / n_pairs
    else:
        half = NO_IAA
    return PairwiseAgreement(strict, half, int(keep.sum()), n_pairs)


def cohen_kappa(labels) -> KappaResult:
    """Cohen's κ for exactly two raters (two columns); items labelled by both.

    κ = (p_o − p_e) / (1 − p_e), p_o the share of items with equal labels, p_e = Σ_k
    p_1k·p_2k from each rater's own marginals (Cohen 1960). NaN if ``p_e = 1`` (both
    raters used one and the same category: agreement cannot be told from chance).
    """
    m = _matrix(labels)
    if m.shape[1] != 2:
        raise ValueError(
            f"Cohen's κ needs exactly two rater columns, got {m.shape[1]}; "
            "use fleiss_kappa or krippendorff_alpha for more"
        )
    m = m[~np.isnan(m).any(axis=1)]
    if m.shape[0] == 0:
        return KappaResult(NO_IAA, NO_IAA, NO_IAA, 0)
    cats = np.unique(m)
    p1 = np.array([(m[:, 0] == c).mean() for c in cats])
    p2 = np.array([(m[:, 1] == c).mean() for c in cats])
    po = float((m[:, 0] == m[:, 1]).mean())
    pe = float(p1 @ p2)
    value = (po - pe) / (1 - pe) if pe < 1 else NO_IAA
    return KappaResult(value, po, pe, int(m.shape[0]))


class PairsKappa(NamedTuple):
    value: float  # mean of the defined pairwise κ (NaN: none defined)
    n_pairs: int  # annotator pairs with a defined κ
    n_undefined: int  # annotator pairs that share units but whose κ is undefined


def mean_pairwise_cohen_kappa(labels) -> PairsKappa:
    """Cohen's κ as the mean over annotator pairs (Light 1971; the one rule of the report's
    IAA and ``label_iaa``, docs/ANALYSES.md §6): for every two annotator columns, κ on the
    units both labelled (:func:`cohen_kappa`, each with its own marginals); the figure is
    the mean of the pairs' κ. With two annotators it is their κ. A pair whose κ is
    undefined (one category on both sides) is left out and counted; NaN when no pair has
    one. Why not the first two annotators of each unit: those "slots" mix different
    people into one rater, whose marginals are no one's."""
    m = _matrix(labels)
    present = ~np.isnan(m)
    values, undefined = [], 0
    for i in range(m.shape[1]):
        for j in range(i + 1, m.shape[1]):
            both = present[:, i] & present[:, j]
            if not both.any():
                continue
            k = cohen_kappa(m[both][:, [i, j]]).value
            if np.isnan(k):
                undefined += 1
            else:
                values.append(k)
    value = float(np.mean(values)) if values else NO_IAA
    return PairsKappa(value, len(values), undefined)


def fleiss_kappa(labels, unequal: str = "raise") -> KappaResult:
    """Fleiss' κ (Fleiss 1971) over items with ≥ 2 labels.

    P_i = Σ_k n_ik(n_ik − 1) / (n(n − 1)), P̄ = mean P_i, p_k = Σ_i n_ik / (N n),
    P_e = Σ_k p_k², κ = (P̄ − P_e) / (1 − P_e). Fleiss assumes every item has the same
    number ``n`` of raters. If they differ, ``unequal="raise"`` (default) refuses;
    ``unequal="generalized"`` uses each item's own n_i in P_i and pools p_k over all
    labels — the usual extension, which reduces to Fleiss' κ when all n_i are equal.
    Items with fewer than two labels are ignored (they carry no agreement).
    """
    counts, _ = category_counts(labels)
    n_i = counts.sum(axis=1)
    keep = n_i >= 2
    counts, n_i = counts[keep], n_i[keep]
    if counts.shape[0] == 0:
        return KappaResult(NO_IAA, NO_IAA, NO_IAA, 0)
    if np.unique(n_i).size > 1 and unequal != "generalized":
        if unequal == "raise":
            raise ValueError(
                "Fleiss' κ needs the same number of raters per item "
                f"(found {sorted(set(n_i.tolist()))}); pass unequal='generalized'"
            )
        raise ValueError("unequal must be 'raise' or 'generalized'")
    p_item = (counts * (counts - 1)).sum(axis=1) / (n_i * (n_i - 1))
    p_bar = float(p_item.mean())
    p_k = counts.sum(axis=0) / n_i.sum()
    p_e = float((p_k**2).sum())
    value = (p_bar - p_e) / (1 - p_e) if p_e < 1 else NO_IAA
    return KappaResult(value, p_bar, p_e, int(counts.shape[0]))


def krippendorff_alpha(labels, level_of_measurement: str = "nominal") -> KappaResult:
    """Krippendorff's α via the ``krippendorff`` package (Krippendorff 2011).

    α = 1 − D_o / D_e from the coincidence matrix; handles missing labels and any number
    of raters. ``level_of_measurement``: 'nominal' for decisions, 'ordinal' for 0–4
    coverage and Likert, 'interval' (or 'ratio') for scores (METHODS §5). ``observed`` /
    ``expected`` are not reported by the package and are NaN. NaN if fewer than two
    pairable labels, or if all pairable labels have one value (D_e = 0: undefined).
    """
    import krippendorff  # local: keeps the package optional for the other modules

    m = _matrix(labels)
    pairable = m[(~np.isnan(m)).sum(axis=1) >= 2]
    values = pairable[~np.isnan(pairable)]
    if pairable.shape[0] == 0 or np.unique(values).size < 2:
        return KappaResult(NO_IAA, NO_IAA, NO_IAA, int(pairable.shape[0]) if values.size else 0)
    value = krippendorff.alpha(
        reliability_data=pairable.T, level_of_measurement=level_of_measurement
    )
    return KappaResult(float(value), NO_IAA, NO_IAA, int(pairable.shape[0]))


def binarize(labels, positive: Iterable[float], negative: Iterable[float]) -> np.ndarray:
    """Map labels to 1 (positive meaning), 0 (negative), NaN (dropped or missing).

    ResearchQA (seed 000/001 §3.3, Table 2) "binarize[s] labels by positive and negative
    meaning": rubric coverage {2, 3, 4} → 1 vs {0, 1} → 0; pairwise preference keeps
    only direction labels (Left vs Right), dropping Tie and Both bad. Values in neither
    set become NaN, i.e. not labelled.
    """
    m = _matrix(labels)
    pos, neg = list(positive), list(negative)
    if set(pos) & set(neg):
        raise ValueError("a label cannot be both positive and negative")
    out = np.full(m.shape, np.nan)
    out[np.isin(m, pos)] = 1.0
    out[np.isin(m, neg)] = 0.0
    return out


#: ResearchQA Table 2 binarisations (seed 000/001 §3.3). Decisions: +1 = A (left) better.
RESEARCHQA_COVERAGE = {"positive": (2, 3, 4), "negative": (0, 1)}
RESEARCHQA_PREFERENCE = {"positive": (1,), "negative": (-1,)}


def binary_pairwise_agreement(
    labels, positive: Iterable[float], negative: Iterable[float]
) -> PairwiseAgreement:
    """ResearchQA's binary pairwise agreement (PA, Table 2): strict pairwise agreement
    of the binarised labels; items left with < 2 labels after binarising drop out."""
    return pairwise_agreement(binarize(labels, positive, negative))


def _majority(values: np.ndarray, rule: str) -> float:
    cats, counts = np.unique(values, return_counts=True)
    best = counts.max()
    if rule == "strict":
        return float(cats[counts.argmax()]) if best * 2 > values.size else NO_IAA
    winners = cats[counts == best]
    return float(winners[0]) if winners.size == 1 else NO_IAA


def majority_agreement_rows(labels, rule: str = "plurality", include_self: bool = False):
    """Per item: (labels agreeing with the majority, labels compared, labels skipped for
    no majority, labels alone) — :func:`majority_agreement` is their sums, so a bootstrap
    over items resamples these rows (a ratio of sums) instead of recomputing it."""
    if rule not in ("plurality", "strict"):
        raise ValueError("rule must be 'plurality' or 'strict'")
    m = _matrix(labels)
    out = np.zeros((4, m.shape[0]), dtype=np.int64)
    for i, row in enumerate(m):
        present = np.flatnonzero(~np.isnan(row))
        if present.size < 2:
            out[3, i] = int(present.size == 1 and not include_self)
            continue
        for j in present:
            ref = row[present] if include_self else row[present[present != j]]
            maj = _majority(ref, rule)
            if np.isnan(maj):
                out[2, i] += 1
                continue
            out[1, i] += 1
            out[0, i] += row[j] == maj
    return out[0], out[1], out[2], out[3]


def majority_agreement(
    labels, rule: str = "plurality", include_self: bool = False
) -> MajorityAgreement:
    """Each annotator's label against the majority label of the item (ResearchQA §3.3).

    ResearchQA: "Human annotators with direction label preferences have 84 % accuracy
    agreement with the majority vote label", keeping only items that have a majority.
    METHODS §5 fixes the comparison as each annotator against the majority of the
    *others* (``include_self=False``, so an annotator cannot agree with themself); the
    paper does not say which, so ``include_self=True`` is offered. ``rule``:
    'plurality' (a unique most frequent label) or 'strict' (more than half). Labels
    whose reference group has no majority are skipped and counted in ``n_no_majority``;
    a label alone on its item (no other label) is skipped and counted in ``n_alone``. Apply :func:`binarize` first to reproduce the direction-only setting.
    """
    rows = majority_agreement_rows(labels, rule, include_self)
    agree, n, skipped, alone = (int(x.sum()) for x in rows)
    return MajorityAgreement(agree / n if n else NO_IAA, n, skipped, alone)


def agreed_items(labels, min_labels: int = 2) -> np.ndarray:
    """Mask of items where every label is equal and there are ≥ ``min_labels`` of them.

    The expert-agreed subset (METHODS §5): comparisons where every judgment agrees,
    each counted once. Items with fewer labels are not "agreed" — there was no chance to
    disagree.
    """
    m = _matrix(labels)
    present = ~np.isnan(m)
    n = present.sum(axis=1)
    lo = np.where(present, m, np.inf).min(axis=1)
    hi = np.where(present, m, -np.inf).max(axis=1)
    return (n >= min_labels) & (lo == hi)


def per_item_labels(labels: Mapping[Hashable, Iterable[float]]) -> np.ndarray:
    """Label matrix from ``{item: [label, label, ...]}`` (unnamed annotator slots)."""
    rows = [list(v) for v in labels.values()]
    width = max((len(r) for r in rows), default=0)
    out = np.full((len(rows), width), np.nan)
    for i, r in enumerate(rows):
        out[i, : len(r)] = r
    return out
