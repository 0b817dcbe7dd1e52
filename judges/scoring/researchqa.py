"""ResearchQA's rubric coverage, ensemble judge and leaderboard (seeds 000/001; METHODS §4).

Coverage labels are 0–4 (ResearchQA §3.3): Not at all, Barely, Moderately, Mostly,
Completely. The released judge answers with the phrases; :func:`label_value` maps them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from concord.query import is_digits

LABELS = ("Not at all", "Barely", "Moderately", "Mostly", "Completely")
#: The judge's definitions of the labels (ResearchQA's coverage prompt).
DEFINITIONS = (
    "totally uninferable",
    "unmentioned but inferrable",
    "mentioned but misses important details",
    "mentioned but misses some details",
    "mentioned with sufficient details",
)
#: Items per coverage call in the released code (``batch_size=8``).
ITEMS_PER_CALL = 8
#: Points a direct-judge win is worth in the ensemble score (§3.3).
DIRECT_POINTS = 4
ELO_BASE, ELO_SCALE = 10.0, 400.0

_BY_TEXT = {label.lower(): i for i, label in enumerate(LABELS)}


def label_value(label) -> int:
    """0–4 from a phrase ("Mostly"), a digit ("3", 3) or a fraction ("3/4"); ValueError else."""
    if isinstance(label, bool):
        raise ValueError(f"{label!r} is not a coverage label")
    if isinstance(label, int | float):
        if float(label).is_integer() and 0 <= label <= 4:
            return int(label)
        raise ValueError(f"{label!r} is not a coverage label 0–4")
    if not isinstance(label, str):
        raise ValueError(f"{label!r} is not a coverage label")
    text = label.strip().strip("*").strip().rstrip(".").strip()
    if text.lower() in _BY_TEXT:
        return _BY_TEXT[text.lower()]
    if text.endswith("/4"):
        text = text[:-2].strip()
    if is_digits(text) and 0 <= int(text) <= 4:
        return int(text)
    raise ValueError(f"{label!r} is not one of {', '.join(LABELS)}")


def answer_coverage(labels: Sequence[int]) -> float:
    """One answer's coverage in [0, 1]: mean(label) / 4 (the released ``compute_coverage_score``
    normalises 1–5 as (x − 1)/4, the same number)."""
    values = [float(v) for v in labels]
    if not values:
        return float("nan")
    if any(not 0 <= v <= 4 for v in values):
        raise ValueError("coverage labels must lie in 0–4")
    return math.fsum(values) / len(values) / 4.0


def coverage_percent(answers: Iterable[Sequence[int]]) -> float:
    """Coverage % = mean over answers of mean(label)/4 · 100 (METHODS §4; ResearchQA Table 3)."""
    per_answer = [answer_coverage(a) for a in answers if len(a)]
    return math.fsum(per_answer) / len(per_answer) * 100.0 if per_answer else float("nan")


def ensemble_score(prefers: bool, prefers_swapped: bool, coverage_labels: Sequence[int]) -> float:
    """score(A) = 4·(I_A + I′_A) + Σ coverage labels of A (ResearchQA §3.3, J_ensemble).

    ``prefers``: the direct judge preferred A with A shown first; ``prefers_swapped``: it
    preferred A with the order swapped.
    """
    return DIRECT_POINTS * (int(bool(prefers)) + int(bool(prefers_swapped))) + math.fsum(
        float(v) for v in coverage_labels
    )


def ensemble_decision(score_a: float, score_b: float) -> int:
    """+1 A preferred, −1 B preferred, 0 tie ("prefers the answer with the larger sum or
    outputs a tie", §3.3)."""
    return (score_a > score_b) - (score_a < score_b)


def win_probability(rating_a: float, rating_b: float) -> float:
    """P(A beats B) = 1 / (1 + 10^((R_B − R_A)/400)) on the Elo scale of the Bradley–Terry
    leaderboard (ResearchQA §4.1; METHODS §4). 1505 vs 1244 gives 0.818."""
    return 1.0 / (1.0 + ELO_BASE ** ((float(rating_b) - float(rating_a)) / ELO_SCALE))
