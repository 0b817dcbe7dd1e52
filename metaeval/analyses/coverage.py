"""Rubric-coverage analyses: ResearchQA 0–4 alignment and ResearcherBench binary agreement
(001 §3.3, Fig. 11; 004 §4.3; METHODS §7; docs/ANALYSES.md §2, §4)."""

from __future__ import annotations

import numpy as np

from metaeval.loaders.coverage import CoverageData
from metaeval.stats.bootstrap import (
    bootstrap_from_cluster_sums,
    cluster_sums,
)
from metaeval.stats.coverage_agreement import (
    FIGURES_OF_TOTALS,
    POSITIVE_FROM,
    coverage_agreement,
    figures_of_totals,
    human_coverage_agreement,
    human_pair_figures,
    human_pair_rows,
    moment_rows,
)
from metaeval.stats.figure import figure, nan_to_none, number, with_interval
from metaeval.stats.iaa import undefined_note
from metaeval.stats.researcherbench import binary_judge_agreement, coverage_scores
from metaeval.stats.signal import note as signal_note

from ._common import share
from .researchqa_pairwise import judge_differences

UNDEFINED = {
    "exact": "No unit labelled by both.",
    "binarised": "No unit labelled by both.",
    "weighted_kappa": "Weighted κ: a single label on both sides.",
    "pearson": "Pearson: a constant side.",
    "mean_difference": "No unit labelled by both.",
}


def _label_block(h, j, q, rounds, seed) -> dict:
    """Every 0–4 figure with its interval from one bootstrap of per-question sums (the
    figures are functions of sums: :func:`figures_of_totals`)."""
    res = coverage_agreement(h, j)
    ok = ~(np.isnan(h) | np.isnan(j))
    out = {"confusion": res.confusion.tolist(), "n": res.n}
    if res.n == 0:
        return out | {k: figure(None, 0, undefined=v).as_dict() for k, v in UNDEFINED.items()}
    sums, _ = cluster_sums(q[ok], moment_rows(h[ok], j[ok]))
    boot = bootstrap_from_cluster_sums(sums, figures_of_totals, n_rounds=max(rounds, 1),
                                       seed=seed)  # fmt: skip
    for k, name in enumerate(FIGURES_OF_TOTALS):
        fig = figure(boot.estimate[k], res.n, undefined=UNDEFINED[name])
        if rounds > 0:
            fig = with_interval(fig, boot.low[k], boot.high[k], boot.note)
        out[name] = fig.as_dict()
    return out


#: Why a binary judge's 0–4 figures are null (tester's study: the benchmark's own judge was
#: silently left out of the section, the judge card and the API).
BINARY_JUDGE = ("The judge gives binary covered / not covered verdicts (ResearcherBench), not "
                "0–4 labels: only the binarised figure is defined, the experts' 0–4 label "
                "binarised as METHODS §7 does ({0, 1} not covered, {2, 3, 4} covered).")  # fmt: skip
#: Columns of a binary judge's confusion matrix (rows: the experts' 0–4 label).
BINARY_COLUMNS = ("not covered", "covered")


def binarised(labels) -> np.ndarray:
    """0–4 coverage labels as covered (1) / not covered (0), NaN kept: {0, 1} vs {2, 3, 4}
    (METHODS §7, ResearchQA Table 2) — how a 0–4 label meets a binary verdict."""
    h = np.asarray(labels, dtype=float)
    return np.where(np.isnan(h), np.nan, (h >= POSITIVE_FROM).astype(float))


def _binary_block(h, jb, q, rounds, seed) -> dict:
    """A binary judge against 0–4 expert labels: the binarised agreement (with its
    interval), the experts' label × the judge's verdict table, the other 0–4 figures null
    with :data:`BINARY_JUDGE`."""
    ok = ~(np.isnan(h) | np.isnan(jb))
    confusion = np.zeros((5, 2), dtype=int)
    np.add.at(confusion, (h[ok].astype(int), jb[ok].astype(int)), 1)
    out = {"confusion": confusion.tolist(), "n": int(ok.sum())}
    out |= {k: figure(None, 0, note=BINARY_JUDGE).as_dict() for k in UNDEFINED}
    if ok.any():
        same = (binarised(h[ok]) == jb[ok]).astype(float)
        out["binarised"] = share(same, np.ones_like(same), q[ok], rounds, seed,
                                 UNDEFINED["binarised"])  # fmt: skip
    else:
        out["binarised"] = figure(None, 0, undefined=UNDEFINED["binarised"]).as_dict()
    return out


def analyse_coverage(data: CoverageData, rounds: int = 1000, seed: int = 0,
                     by_field: bool = False, signal: str | None = None,
                     failed=frozenset()) -> dict:  # fmt: skip
    """Human vs each judge (0–4), per field on request, and human vs human.

    ``signal``: the human side of human vs judge (ANALYSES §0, §2; default and ``each``:
    every annotator's label). Human vs human is about each annotator whatever it is."""
    sig = data.signal("label", signal, failed)
    out = {
        "units": int(data.report.size),
        "human_vs_human": _human_vs_human(data.human_matrix("label"), data.question, rounds,
                                          seed),
        "judges": [],
    }  # fmt: skip
    credits = {}
    for judge in data.judges:
        h, j, q, unit = data.human_vs_judge(judge, "label", sig)
        if np.isnan(h).all():
            continue
        scale, compute = "0-4", _label_block
        if np.isnan(j).all():  # a binary judge (ResearcherBench) meets the binarised labels
            j = data.judge_vector(judge, "covered")[unit]
            if np.isnan(j).all():
                continue
            scale, compute = "binary", _binary_block
        block = {"judge": judge, "scale": scale, "all": compute(h, j, q, rounds, seed),
                 "not_labelled_by_judge": int((~np.isnan(h) & np.isnan(j)).sum())}  # fmt: skip
        if scale == "binary":
            block["note"] = BINARY_JUDGE
        if by_field:
            fields = data.field[unit]
            block["fields"] = {
                name: compute(h[fields == k], j[fields == k], q[fields == k], rounds, seed)
                for k, name in enumerate(data.fields)
            }
        out["judges"].append(block)
        if scale == "0-4":
            credits[(judge, "exact")] = np.where(np.isnan(h) | np.isnan(j), np.nan, h == j)
    clusters = data.question[data.h_unit if sig is None else data.h_unit[sig.rows]]
    out["judge_differences"] = judge_differences(credits, clusters, rounds, seed)
    if signal is not None:
        out["human_signal"] = signal_summary(data, "label", signal, sig)
    return out


HUMAN_FIGURES = ("exact", "binarised", "weighted_kappa", "krippendorff_alpha")


def _human_vs_human(m: np.ndarray, questions: np.ndarray, rounds: int, seed: int) -> dict:
    """Human vs human on doubly labelled units, each figure with ``<figure>_low`` /
    ``_high`` from a cluster bootstrap over questions when ``rounds`` > 0 (METHODS §5; the
    tester found the judge rows with intervals and these without), the note saying why
    an interval is missing."""
    hh = human_coverage_agreement(m)
    out = {k: number(getattr(hh, k)) for k in HUMAN_FIGURES}
    out |= {"units": hh.n_units, "pairs": hh.n_pairs,
            "note": None if hh.n_pairs else "No unit has two human labels."}  # fmt: skip
    if hh.n_pairs:  # κ / α null with labels twice: say why (one category, tester's study)
        out["note"] = undefined_note(m, {k: out[k] for k in HUMAN_FIGURES})
    for k in HUMAN_FIGURES:
        out[f"{k}_low"] = out[f"{k}_high"] = None
    if rounds <= 0 or not hh.n_pairs:
        return out
    # every round from per-question sums of each ordered annotator pair's statistics (one
    # matrix product; the same draws, so the same interval, as recomputing per round)
    rows, units = human_pair_rows(m)
    sums, _ = cluster_sums(questions[units], rows)
    boot = bootstrap_from_cluster_sums(sums, human_pair_figures, n_rounds=rounds, seed=seed)
    lows, highs = np.atleast_1d(boot.low), np.atleast_1d(boot.high)
    for i, k in enumerate(HUMAN_FIGURES):
        if out[k] is not None:
            out[f"{k}_low"], out[f"{k}_high"] = number(lows[i]), number(highs[i])
    if boot.note:
        out["note"] = f"{out['note']} {boot.note}" if out["note"] else boot.note
    return out


def signal_summary(data: CoverageData, kind: str, mode: str, sig) -> dict:
    """What the human side read (``each``: every label; else :class:`Collapsed`, whose
    ``adjudicated`` counts the units read from a decided rubric-coverage adjudication:
    :func:`metaeval.loaders.coverage.load_coverage`)."""
    if sig is None:
        values = data.h_label if kind == "label" else data.h_covered
        ok = ~np.isnan(values)
        summary = {"mode": mode, "units": int(np.unique(data.h_unit[ok]).size),
                   "kept": int(ok.sum()), "tied": 0, "adjudicated": 0}  # fmt: skip
    else:
        summary = sig.summary(mode)
    return summary | {"note": signal_note(summary)}


def analyse_binary_coverage(data: CoverageData, rounds: int = 1000, seed: int = 0,
                            signal: str | None = None,
                            benchmark: dict[str, dict[str, float | None]] | None = None,
                            failed=frozenset()) -> dict:  # fmt: skip
    """ResearcherBench: human S_c per system, each judge's accuracy / P / R / F1 (unweighted
    and weighted), κ, and judge vs human S_c per system.

    Two judge S_c per system, named apart (issue 27): ``judge_coverage_paired_by_system``
    on the (report, item) units an expert labelled only — the figure to set beside the
    human S_c —, and ``judge_coverage_benchmark_by_system``, the benchmark's own figure
    over every item the judge scored (``benchmark``: judge -> system -> S_c, from
    :func:`metaeval.analyses.scoreboard.researcherbench_coverage`; 004 Table 3).

    ``signal`` (ANALYSES §0, §4): default and ``each``: S_c per (report, annotator) and
    every annotator's label against the judge; ``majority`` / ``adjudicated``: one label
    per (report, item), S_c per report."""
    sig = data.signal("covered", signal, failed)
    if sig is None:
        h_rows = np.flatnonzero(~np.isnan(data.h_covered))
        ann, covered = data.h_annotator[h_rows], data.h_covered[h_rows]
    else:
        h_rows, covered = sig.rows, sig.label
        ann = np.zeros(h_rows.size, dtype=np.int64)  # one signal per unit
    # S_c per (report, annotator): the key report·scale + annotator groups the rows
    rep = data.report[data.h_unit[h_rows]]
    scale = int(ann.max()) + 1 if ann.size else 1
    per_report = coverage_scores(rep * scale + ann, covered,
                                 data.weight[data.h_unit[h_rows]])  # fmt: skip
    rep_system = {r: s for r, s in zip(data.report, data.system, strict=True)}
    systems = np.array([rep_system[k // scale] for k in per_report.report], dtype=int)
    out = {
        "reports_scored": int(per_report.report.size),
        "human_coverage_by_system": {
            name: figure(np.nanmean(per_report.score[systems == k]) if (systems == k).any()
                         else None, int((systems == k).sum()),
                         undefined="No report of this system labelled.").as_dict()
            for k, name in enumerate(data.systems)
        },
        "judges": [],
    }  # fmt: skip
    for judge in data.judges:
        hb, jb, q, unit = data.human_vs_judge(judge, "covered", sig)
        ok = ~(np.isnan(hb) | np.isnan(jb))
        if not ok.any():
            continue
        w = data.weight[unit]
        res = binary_judge_agreement(hb, jb, w)
        block = {"judge": judge, "n": res.n, "kappa": figure(res.kappa, res.n,
                 undefined="κ: a single category on both sides.").as_dict()}  # fmt: skip
        for name, weights in (("unweighted", np.ones_like(w)), ("weighted", w)):
            hh, jj, ww, qq = hb[ok], jb[ok], weights[ok], q[ok]
            tp = ww * ((jj == 1) & (hh == 1))
            block[name] = {
                "accuracy": share(ww * (hh == jj), ww, qq, rounds, seed, "No unit."),
                "precision": share(tp, ww * (jj == 1), qq, rounds, seed,
                                   "Precision: the judge never says covered."),
                "recall": share(tp, ww * (hh == 1), qq, rounds, seed,
                                "Recall: the human never says covered."),
                "f1": figure(getattr(res, name).f1, res.n,
                             undefined="F1: precision or recall undefined.").as_dict(),
            }  # fmt: skip
        jrows = data.j_judge == data.judges.index(judge)
        jscore = coverage_scores(data.report[data.j_unit[jrows]], data.j_covered[jrows],
                                 data.weight[data.j_unit[jrows]])  # fmt: skip
        jsys = np.array([rep_system[r] for r in jscore.report], dtype=int)
        block["judge_coverage_paired_by_system"] = nan_to_none(
            [np.nanmean(jscore.score[jsys == k]) if (jsys == k).any() else np.nan
             for k in range(len(data.systems))]
        )  # fmt: skip
        mine = (benchmark or {}).get(judge, {})
        block["judge_coverage_benchmark_by_system"] = [mine.get(name) for name in data.systems]
        out["judges"].append(block)
    if signal is not None:
        out["human_signal"] = signal_summary(data, "covered", signal, sig)
    return out
