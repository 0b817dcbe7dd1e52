"""Expertise triage (003 Setting 2; docs/ANALYSES.md §11): how the annotators rated the
questions against their own expertise, which questions the near- and deep-expert settings
can be staffed from, and whether a medal ranking agrees more often with the judge or with
the other experts when its annotator rated the question within their expertise.

Pure functions over plain sequences (no Django): the loader
(:mod:`metaeval.loaders.expertise`) gives the arrays.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from itertools import combinations

import numpy as np

from .figure import figure
from .intervals import ratio_interval

LEVELS = ("within", "near", "outside")
#: The near-expert setting picks its questions among those rated within or near (003
#: Setting 2 discards "outside"): that pool is a coverage level of its own.
POOLS = {"within": ("within",), "near": ("near",), "outside": ("outside",),
         "within_or_near": ("within", "near")}  # fmt: skip
UNRATED = "unrated"
REFERENCES = ("judge", "consensus")


def counts_by(keys: Sequence[str], level: Sequence[str]) -> list[dict]:
    """Per key (annotator or question): how many ratings of each level, and in all."""
    out: dict[str, Counter] = defaultdict(Counter)
    for k, lv in zip(keys, level, strict=True):
        out[k][lv] += 1
    return [{"key": k, **{lv: c[lv] for lv in LEVELS}, "rated": sum(c.values())}
            for k, c in sorted(out.items())]  # fmt: skip


def coverage(question: Sequence[str], level: Sequence[str], ks: Sequence[int] | None = None):
    """Questions with at least ``k`` annotators at each level (and pool of levels).

    ``share`` is over the questions with at least one rating (the pool a triage round
    saw); ``ks`` defaults to 1 … max(2, most ratings one question has), at most 5."""
    per_q = counts_by(question, level)
    rated = len(per_q)
    if ks is None:
        top = max((q["rated"] for q in per_q), default=0)
        ks = range(1, min(max(2, top), 5) + 1)
    rows = []
    for pool, levels in POOLS.items():
        for k in ks:
            n = sum(1 for q in per_q if sum(q[lv] for lv in levels) >= k)
            rows.append({"level": pool, "k": int(k), "questions": n,
                         "share": n / rated if rated else None})  # fmt: skip
    return rows, rated


def _sign(x: float) -> int:
    return int(x > 0) - int(x < 0)


def ranking_decisions(ranking, question, annotator, report, value) -> list[tuple]:
    """Each medal ranking as its pairwise decisions by transitivity (METHODS §2.4): rows
    (ranking, question, annotator, report a, report b, decision) with a < b by report id
    and decision +1 (a better), −1 (b better) or 0 (tie)."""
    by_ranking: dict[int, list] = defaultdict(list)
    for r, q, a, rep, v in zip(ranking, question, annotator, report, value, strict=True):
        by_ranking[int(r)].append((q, a, int(rep), float(v)))
    out = []
    for r, medals in sorted(by_ranking.items()):
        for (q, a, ra, va), (_, _, rb, vb) in combinations(sorted(medals, key=lambda m: m[2]), 2):
            out.append((r, q, a, ra, rb, _sign(va - vb)))
    return out


def _plurality(labels: list[int]) -> int | None:
    """The most frequent label; None when two labels tie for the top (no consensus)."""
    if not labels:
        return None
    top = Counter(labels).most_common()
    if len(top) > 1 and top[0][1] == top[1][1]:
        return None
    return top[0][0]


def agreement_by_level(decisions: list[tuple], levels: dict[tuple[str, str], str],
                       scores: dict[int, float], rounds: int = 0, seed: int = 0) -> list[dict]:  # fmt: skip
    """Agreement of each annotator's pairwise decisions with (a) the judge — the sign of
    its overall-score difference, exact (no tie threshold), pairs without both scores
    left out — and (b) the consensus of the other experts — the plurality of the other
    rankings' decisions on the same pair, leave-one-out, pairs with no other ranking or a
    tied plurality left out —, split by the annotator's self-rated expertise on that
    question (``unrated`` when they gave none). Strict agreement, a tie being a label;
    cluster bootstrap over questions when ``rounds`` > 0."""
    by_pair: dict[tuple, list] = defaultdict(list)
    for r, q, _a, ra, rb, d in decisions:
        by_pair[(q, ra, rb)].append((r, d))
    rows: dict[tuple[str, str], list] = {(lv, ref): [] for lv in (*LEVELS, UNRATED)
                                          for ref in REFERENCES}  # fmt: skip
    for r, q, a, ra, rb, d in decisions:
        lv = levels.get((a, q), UNRATED)
        sa, sb = scores.get(ra), scores.get(rb)
        if sa is not None and sb is not None and np.isfinite(sa) and np.isfinite(sb):
            rows[(lv, "judge")].append((q, float(d == _sign(sa - sb))))
        others = _plurality([od for orank, od in by_pair[(q, ra, rb)] if orank != r])
        if others is not None:
            rows[(lv, "consensus")].append((q, float(d == others)))
    out = []
    for (lv, ref), got in rows.items():
        if got:
            values = [v for _, v in got]
            if rounds > 0:
                fig = ratio_interval(values, np.ones(len(got)), [q for q, _ in got],
                                     n_rounds=rounds, seed=seed)  # fmt: skip
            else:
                fig = figure(sum(values) / len(values), len(values))
        else:
            why = ("no pair with both of the judge's overall scores" if ref == "judge"
                   else "no pair another expert also ranked (or only tied pluralities)")  # fmt: skip
            fig = figure(None, 0, undefined=f"No ranking by an annotator who rated the question "
                                            f"{lv}: {why}." if lv != UNRATED else
                         f"No ranking without a self-rating: {why}.")  # fmt: skip
        out.append({"level": lv, "reference": ref, **fig.as_dict()})
    return out


def analyse_expertise(question, annotator, level, *, decisions=None, scores=None, judge=None,
                      rounds: int = 0, seed: int = 0) -> dict:  # fmt: skip
    """The section's result: totals, per-annotator and per-question distributions, the
    coverage table and (when the study has medal rankings) agreement by expertise."""
    bad = sorted({lv for lv in level if lv not in LEVELS})
    if bad:
        raise ValueError(f"expertise level {bad[0]!r} is not within, near or outside")
    cov, rated = coverage(question, level)
    result = {
        "totals": {"ratings": len(level), "annotators": len(set(annotator)), "questions": rated,
                   **{lv: sum(1 for x in level if x == lv) for lv in LEVELS}},
        "by_annotator": [{"annotator": r.pop("key"), **r} for r in counts_by(annotator, level)],
        "by_question": [{"question": r.pop("key"), **r} for r in counts_by(question, level)],
        "coverage": cov,
        "judge": judge,
        "agreement": None,
        "agreement_note": None,
    }  # fmt: skip
    if not decisions:
        result["agreement_note"] = "The study has no medal ranking in this selection."
        return result
    levels = {(a, q): lv for q, a, lv in zip(question, annotator, level, strict=True)}
    result["agreement"] = agreement_by_level(decisions, levels, scores or {}, rounds, seed)
    if judge is None:
        result["agreement_note"] = "No judge scored the study: agreement with the judge is null."
    return result
