"""ResearchQA pairwise preference analysis (001 §3.3, §4.1; METHODS §7; docs/ANALYSES.md §1)."""

from __future__ import annotations

from itertools import combinations

import numpy as np

from metaeval.loaders.pairwise import PairwiseData
from metaeval.stats.figure import number
from metaeval.stats.judge_comparison import compare_judges
from metaeval.stats.leaderboard import leaderboard
from metaeval.stats.researchqa_pairwise import (
    BOTH_BAD,
    binarised_agreement,
    binarised_agreement_rows,
    human_vs_majority,
    human_vs_majority_rows,
    judge_credit,
    plurality_labels,
)
from metaeval.stats.signal import collapse, failed_rows
from metaeval.stats.signal import note as signal_note

from ._common import share

#: Why a Bradley–Terry row has no bootstrap median / sd, one reason each (a tester read
#: "No bootstrap (bootstrap 0) or no rating." on a report with 200 rounds).
NO_BOOTSTRAP = "No bootstrap: 0 rounds were asked for (bootstrap=0)."
NO_RATING = "No bootstrap of this system: it has no maximum-likelihood rating ({why})."
TOO_FEW_ROUNDS = "No bootstrap median or sd: too few rounds had a maximum-likelihood estimate."


def rating_why(notes) -> str:
    """Why a system has no Bradley–Terry rating: the fit's notes (won or lost everything,
    a disconnected graph), the bootstrap's left out."""
    said = [n for n in notes if "bootstrap" not in n.lower()]
    return "; ".join(said) or "No maximum-likelihood rating."


def bootstrap_why(rounds: int, no_rating: str | None, notes) -> str:
    """The actual reason a row's bootstrap median and sd are null: no rounds asked for, no
    rating to resample (``no_rating``: why there is none), or too few estimable rounds."""
    if rounds <= 0:
        return NO_BOOTSTRAP
    if no_rating is not None:
        return NO_RATING.format(why=no_rating.rstrip("."))
    return "; ".join(n for n in notes if "bootstrap" in n.lower()) or TOO_FEW_ROUNDS


def _row_note(rating, median, rounds: int, notes) -> str | None:
    """A leaderboard row's note: why its rating, or its bootstrap median and sd, are null."""
    if rating is None:
        why = rating_why(notes)
        return why if rounds <= 0 else f"{why} {bootstrap_why(rounds, why, notes)}"
    return None if median is not None else bootstrap_why(rounds, None, notes)


def _board(system_a, system_b, outcome, names, rounds, seed, clusters) -> dict:
    if len(outcome) == 0:
        return {"rows": [], "notes": ["No battle."], "resampled": None}
    board = leaderboard(system_a, system_b, outcome, len(names), n_rounds=max(rounds, 0),
                        seed=seed, clusters=clusters, names=names)  # fmt: skip
    return {
        "rows": [
            {"system": names[r.system], "rating": number(r.rating), "median": number(r.median),
             "sd": number(r.sd), "low": number(r.low), "high": number(r.high),
             "battles": r.battles, "points": r.wins,
             "note": _row_note(number(r.rating), number(r.median), rounds, board.notes)}
            for r in board.rows
        ],
        "notes": list(board.notes),
        "resampled": board.resampled,
        "rounds": board.n_rounds,
        "rounds_without_estimate": board.rounds_without_estimate,
    }  # fmt: skip


def judge_differences(credits: dict, clusters, rounds: int, seed: int) -> list[dict]:
    """Paired permutation test between every two judges' per-unit credit (METHODS §5)."""
    out = []
    for a, b in combinations(sorted(credits), 2):
        d = compare_judges(credits[a], credits[b], clusters, n_rounds=max(rounds, 1), seed=seed)
        out.append({
            "a": " ".join(a), "b": " ".join(b),
            "agreement_a": number(d.agreement_a), "agreement_b": number(d.agreement_b),
            "difference": number(d.difference), "pvalue": number(d.pvalue),
            "n": d.n_units, "questions": d.n_clusters,
            "note": None if d.n_units else "The two judges share no judged unit.",
        })  # fmt: skip
    return out


def reference(data: PairwiseData, maj, signal: str | None, adjudicated=None,
              failed=frozenset()):  # fmt: skip
    """The human labels judges are scored against and the human leaderboard is built from:
    ``(comparison per row, label per row, signal summary)``.

    Default (``signal`` None): the plurality label of each comparison, the paper's (§4,
    footnote 6); ``each``: every annotator's label is a row; ``majority`` / ``adjudicated``:
    :func:`metaeval.stats.signal.collapse` (ANALYSES §0, §1). The human-agreement figures
    (human vs majority, binarised PA) are about each annotator whatever the signal; the
    majority and adjudicated signals do not read ``failed``'s labels (annotators who failed
    qualification)."""
    if signal is None:  # every comparison (no majority: NaN), so the intervals are as before
        return np.arange(maj.label.size), maj.label, None
    c = collapse(
        data.h_item, data.h_label, signal, adjudicated, failed_rows(data.h_annotator, failed)
    )
    return data.h_item[c.rows], c.label, c.summary(signal)


def analyse_pairwise(data: PairwiseData, rounds: int = 1000, seed: int = 0,
                     leaderboard_by: str = "battles", signal: str | None = None,
                     adjudicated: dict | None = None, failed=frozenset()) -> dict:  # fmt: skip
    """Majority labels, human agreement, each judge's accuracy, judge-vs-judge tests and
    human / judge leaderboards. ``signal``, ``adjudicated`` (comparison -> label): the
    human signal of the judge figures and the human leaderboard (:func:`reference`)."""
    m = data.human_matrix()
    q = data.question
    maj = plurality_labels(m)
    ref_item, ref_label, summary = reference(data, maj, signal, adjudicated, failed)
    ref_q = q[ref_item]
    hm = human_vs_majority(m)
    pa = binarised_agreement(m)
    out = {
        "comparisons": int(q.size),
        "majority": {
            "items": maj.n_items,
            "no_majority": maj.n_no_majority,
            "direction": maj.n_direction,
        },  # fmt: skip
        # both are ratios of per-comparison sums: their bootstrap resamples the sums
        "human_vs_majority": share(
            *human_vs_majority_rows(m),
            q,
            rounds,
            seed,
            "No annotator label has a majority of the others to compare with.",
        )
        | {"n": hm.n},  # fmt: skip
        "human_vs_majority_skipped": hm.n_no_majority,
        "human_vs_majority_alone": hm.n_alone,
        "binarised_pa": share(
            *binarised_agreement_rows(m),
            q,
            rounds,
            seed,
            "No comparison has two direction labels.",
        )
        | {"n": pa.n_pairs},  # fmt: skip
        "judges": [],
    }
    credits = {}
    for judge in data.judges:
        for protocol in ("direct", "ensemble"):
            first, second = data.verdicts(judge, protocol)
            if np.isnan(first).all() and np.isnan(second).all():
                continue
            c = judge_credit(ref_label, first[ref_item], second[ref_item])
            ok = ~np.isnan(c)
            credits[(judge, protocol)] = c
            out["judges"].append({
                "judge": judge, "protocol": protocol,
                "accuracy": share(np.where(ok, c, 0), ok.astype(float), ref_q, rounds, seed,
                                  "No comparison with a direction majority was judged."),
            })  # fmt: skip
    out["judge_differences"] = judge_differences(credits, ref_q, rounds, seed)
    clusters = q if leaderboard_by == "questions" else None
    has = ref_item[~np.isnan(ref_label)]
    outcome = np.where(ref_label == BOTH_BAD, 0, ref_label)[~np.isnan(ref_label)].astype(int)
    out["leaderboard"] = {"human": _board(data.system_a[has], data.system_b[has], outcome,
                                          data.systems, rounds, seed,
                                          None if clusters is None else q[has])}  # fmt: skip
    if summary is not None:
        out["human_signal"] = summary | {"note": signal_note(summary)}
    for judge in data.judges:
        out["leaderboard"][judge] = judge_board(data, judge, rounds, seed, leaderboard_by)
    return out


def judge_battles(data: PairwiseData, judge: str) -> tuple[np.ndarray, np.ndarray]:
    """(comparison, outcome) per battle of a judge (ANALYSES §1 "Leaderboard"): its
    ensemble verdicts, else its direct verdicts with the two orders as two battles."""
    first, second = data.verdicts(judge, "ensemble")
    if np.isnan(first).all():
        first, second = data.verdicts(judge, "direct")
    rows = np.arange(data.question.size)
    a = np.concatenate((rows, rows))
    v = np.concatenate((first, second))
    ok = ~np.isnan(v)
    return a[ok], v[ok].astype(int)


def judge_board(data: PairwiseData, judge: str, rounds: int, seed: int,
                leaderboard_by: str = "battles") -> dict:  # fmt: skip
    """A judge's Bradley–Terry leaderboard from its verdicts alone (no human label)."""
    item, outcome = judge_battles(data, judge)
    clusters = data.question[item] if leaderboard_by == "questions" else None
    return _board(data.system_a[item], data.system_b[item], outcome, data.systems, rounds,
                  seed, clusters)  # fmt: skip
