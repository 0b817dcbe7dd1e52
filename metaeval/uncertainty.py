"""Confidence intervals for a report: one cluster bootstrap over questions (METHODS §5).

Every figure of the report is a function of per-question sums (pair-count categories for
agreement and τ-b; per-system points and games for the win rates), so each bootstrap
round is a matrix product of question multiplicities with those sums
(:func:`metaeval.stats.bootstrap.bootstrap_from_cluster_sums`). Thresholds stay at their
calibrated values: the interval is for the agreement at that threshold, not for the
calibration procedure (documented in the report notes).
"""

from __future__ import annotations

import numpy as np

from annotation import progress as cli_progress

from .frame import PairFrame
from .stats.bootstrap import PAIR_COUNT_STATISTICS, bootstrap_from_cluster_sums, pair_count_rows
from .stats.decisions import score_decisions
from .stats.iaa import category_counts
from .stats.system import tau_b_rows


def _per_question(question: np.ndarray, values: np.ndarray, n_questions: int) -> np.ndarray:
    return np.stack(
        [np.bincount(question, values[:, j], n_questions) for j in range(values.shape[1])], 1
    )


def add_confidence_intervals(
    tables, system, signals, frame: PairFrame, options, progress=None
) -> list[str]:
    """Add ``ci`` = {"agreement": [lo, hi], "tau_b": [lo, hi]} to every figure, in place.

    The clusters are the questions the analysed rows have (not every label of the
    frame: a question without rows is no cluster). Returns the notes for the report:
    with fewer than two questions every interval is null and a note says why.
    """
    present, frame_question = np.unique(frame.question, return_inverse=True)
    n_q = int(present.size)
    frame_question = frame_question.ravel()

    def cluster_of(question_codes: np.ndarray) -> np.ndarray:
        return np.searchsorted(present, question_codes)

    blocks, names = [], []
    agree_stat = PAIR_COUNT_STATISTICS["partial" if options.ties == "partial" else "agreement"]
    for table, by_metric in signals.items():
        for metric, sig in by_metric.items():
            judge = sig.judge_decisions
            if judge is None:
                continue
            rows = pair_count_rows(sig.human, judge)
            blocks.append(_per_question(cluster_of(sig.clusters), rows, n_q))
            names.append((table, metric))
    n_sys = len(frame.systems)
    sys_cols = 0
    threshold = (tables.get("preference", {}).get("overall") or {}).get("threshold")
    if "overall" in frame.judge and system.get("systems"):
        judge = frame.judge["overall"]
        # a comparison without a human decision (a tie the majority signal leaves out,
        # NaN medals) is left out, as the tables leave it out
        rows = ~np.isnan(judge).any(axis=1) & ~np.isnan(frame.preference).any(axis=1)
        human_d = score_decisions(frame.preference[rows, 0], frame.preference[rows, 1])
        judge_d = score_decisions(judge[rows, 0], judge[rows, 1], threshold or 0.0)
        sa, sb, q = frame.system_a[rows], frame.system_b[rows], frame_question[rows]
        cols = []
        for d in (human_d.astype(float), judge_d.astype(float)):
            pts = np.zeros((rows.sum(), n_sys))
            pts[np.arange(len(sa)), sa] += (1 + d) / 2
            pts[np.arange(len(sb)), sb] += (1 - d) / 2
            cols.append(_per_question(q, pts, n_q))
        games = np.zeros((rows.sum(), n_sys))
        games[np.arange(len(sa)), sa] += 1
        games[np.arange(len(sb)), sb] += 1
        cols.append(_per_question(q, games, n_q))
        blocks.append(np.concatenate(cols, axis=1))
        sys_cols = 3 * n_sys
    if not blocks:
        return []
    sums = np.concatenate(blocks, axis=1)
    n_pair = len(names)

    def statistic(totals: np.ndarray) -> np.ndarray:
        out = []
        for i in range(n_pair):
            t = totals[:, 5 * i : 5 * i + 5]
            out += [agree_stat(t), PAIR_COUNT_STATISTICS["tau_b"](t)]
        if sys_cols:
            s = totals[:, 5 * n_pair :]
            h, j, g = s[:, :n_sys], s[:, n_sys : 2 * n_sys], s[:, 2 * n_sys :]
            with np.errstate(invalid="ignore", divide="ignore"):
                human_rates, judge_rates = h / g, j / g
            out.append(tau_b_rows(human_rates, judge_rates))
            stacked = np.stack(out, axis=1)
            return np.concatenate([stacked, human_rates, judge_rates], axis=1)
        return np.stack(out, axis=1)

    if progress:
        progress(0.05)
    with cli_progress.bar(options.bootstrap, "bootstrap", "round") as shown:
        result = bootstrap_from_cluster_sums(
            sums, statistic, options.bootstrap, options.seed, on_rounds=shown.update
        )
    if progress:
        progress(0.95)
    for i, (table, metric) in enumerate(names):
        tables[table][metric]["ci"] = {
            "agreement": _interval(result, 2 * i),
            "tau_b": _interval(result, 2 * i + 1),
            "rounds": options.bootstrap,
            "level": 0.95,
        }
    if sys_cols:
        system["ci"] = {"tau_b": _interval(result, 2 * n_pair), "rounds": options.bootstrap,
                        "level": 0.95}  # fmt: skip
        if None in system["ci"]["tau_b"] and system.get("tau_b") is not None:
            # a τ-b without its interval says why (the system_tau table's note column)
            system["ci"]["note"] = result.note or NO_TAU_INTERVAL
        base = 2 * n_pair + 1
        index = {name: i for i, name in enumerate(frame.systems)}
        for row in system["systems"]:
            i = index[row["system"]]
            row["ci"] = {
                "human_win_rate": _interval(result, base + i),
                "judge_win_rate": _interval(result, base + n_sys + i),
            }
    return [result.note] if result.note else []


#: Why a defined system τ-b has no interval when the bootstrap drew enough questions.
NO_TAU_INTERVAL = (
    "No confidence interval: the system τ-b is undefined on every bootstrap "
    "resample (fewer than two ranked systems, or no variance, in each)."
)


def _interval(result, k: int) -> list[float | None]:
    lo, hi = float(result.low[k]), float(result.high[k])
    return [None if np.isnan(lo) else lo, None if np.isnan(hi) else hi]


#: Why the chance-corrected IAA figures get no interval beside strict and half credit.
NO_KAPPA_INTERVAL = (
    "Cohen's κ, Fleiss' κ and Krippendorff's α have no interval: each is a ratio of "
    "chance-corrected terms with marginals over the whole selection, not a function of sums "
    "per question, which is what this bootstrap resamples (only strict and half credit are)."
)


def add_iaa_interval(iaa: dict, frame: PairFrame, options) -> list[str]:
    """Add ``ci`` = {"strict": [lo, hi], "half_credit": [lo, hi], "rounds", "level",
    "note"} to the report's IAA block, in place (nothing when its IAA is null: its notes
    say why). Returns the notes for the report.

    The same cluster bootstrap over questions as every other figure (METHODS §5
    "Uncertainty"; same rounds and seed, so the same draws when the IAA's judgments cover
    the same questions as the analysed rows): strict and half credit are pooled over
    annotator pairs, so each is a ratio of per-question sums (agreeing pairs, pairs with
    exactly one tie, pairs; :func:`metaeval.stats.iaa.pairwise_agreement`). ``frame``: the
    judgments the IAA reads (:func:`metaeval.pipeline.iaa_rows`). The chance-corrected
    figures are not such sums: ``note`` says so (:data:`NO_KAPPA_INTERVAL`). A report's IAA
    had no interval and no word of why (a researcher with ``bootstrap`` > 0)."""
    from .pipeline import decide, decision_matrix

    if iaa.get("strict") is None or len(frame) == 0:
        return []
    codes, labels, _ = decision_matrix(frame, decide(frame.preference))
    counts, cats = category_counts(labels)
    n_i = counts.sum(axis=1)
    pairs = n_i * (n_i - 1) // 2
    equal = (counts * (counts - 1) // 2).sum(axis=1)
    column = {v: counts[:, k] for k, v in enumerate(cats.tolist())}
    zero = np.zeros(counts.shape[0], dtype=int)
    one_tie = column.get(0.0, zero) * (column.get(1.0, zero) + column.get(-1.0, zero))
    _, first = np.unique(codes, return_index=True)  # codes are 0..k-1: first row of each
    present, cluster = np.unique(frame.question[first], return_inverse=True)
    per_item = np.stack([equal, one_tie, pairs], axis=1).astype(float)
    sums = _per_question(cluster.ravel(), per_item, int(present.size))

    def statistic(totals: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            strict = totals[:, 0] / totals[:, 2]
            half = (totals[:, 0] + 0.5 * totals[:, 1]) / totals[:, 2]
        return np.stack([strict, half], axis=1)

    # the clusters are the questions of the IAA's judgments, every one (a question with no
    # comparison judged twice adds zero pairs but is drawn, as for the other figures)
    all_questions = np.unique(frame.question)
    if all_questions.size != present.size:
        grown = np.zeros((all_questions.size, sums.shape[1]))
        grown[np.searchsorted(all_questions, present)] = sums
        sums = grown
    result = bootstrap_from_cluster_sums(sums, statistic, options.bootstrap, options.seed)
    notes = [NO_KAPPA_INTERVAL]
    if result.note:
        notes.insert(0, result.note)
    iaa["ci"] = {"strict": _interval(result, 0), "half_credit": _interval(result, 1),
                 "rounds": options.bootstrap, "level": 0.95, "note": " ".join(notes)}  # fmt: skip
    return [f"IAA: {NO_KAPPA_INTERVAL}"]
