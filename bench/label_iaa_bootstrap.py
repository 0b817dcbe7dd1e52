"""The label IAA bootstrap: 10,000 rounds before and after vectorising it over rounds.

``label_iaa`` (METHODS §5 IAA) gives each label kind's strict agreement, Cohen's κ (mean
over annotator pairs), Fleiss' κ and Krippendorff's α an interval from a cluster bootstrap
over questions (10,000 rounds for final reports). Before, every round recomputed the four
figures on the resampled matrix (``iaa_summary``, α through the ``krippendorff`` package):
about 15 s for 10,000 rounds. After, every round's figures come from per-question totals
in one matrix product (``metaeval.stats.label_iaa.iaa_bootstrap``). Both are timed here on
the same synthetic kind, with the same seed, and the largest difference of their bounds is
printed (the rounds draw the same questions: it is floating-point rounding).

The kind: ``--questions`` questions × ``--units`` units each (default 50 × 4: a study's
rubric coverage items, say), ``--annotators`` annotators (6) of whom each unit has two or
three, labels 0–4 (ordinal) agreeing above chance. Wall and CPU of this process, the
median of ``--repeat`` runs for "after" (one run for "before": it is the slow one).

``--figures coverage-human`` times the rubric-coverage section's human vs human instead
(exact, binarised, quadratic κ, ordinal α over ordered annotator pairs; session 18):
``metaeval.analyses.coverage._human_vs_human`` against the per-round loop it replaced.

Run: ``.venv/bin/python bench/label_iaa_bootstrap.py [--figures label-iaa|coverage-human]
[--rounds 10000] [--repeat 5]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from proc_cpu import measure  # noqa: E402  (bench/ is the script's folder)


def kind(questions: int, units: int, annotators: int, seed: int = 0):
    """units × annotators, two or three labels a unit, 0–4, each question's units a row."""
    rng = np.random.default_rng(seed)
    n = questions * units
    truth = rng.integers(0, 5, n)
    noisy = rng.integers(0, 5, (n, annotators))
    m = np.where(rng.random((n, annotators)) < 0.6, truth[:, None], noisy).astype(float)
    keep = np.zeros((n, annotators), bool)
    for i in range(n):
        keep[i, rng.choice(annotators, size=rng.integers(2, 4), replace=False)] = True
    m[~keep] = np.nan
    return m, np.repeat(np.arange(questions), units)


def before(m, clusters, level, rounds, seed):
    """The previous implementation: ``cluster_bootstrap`` calling the four figures per round."""
    from metaeval.stats.bootstrap import cluster_bootstrap
    from metaeval.stats.label_iaa import iaa_summary

    def statistic(rows):
        got = iaa_summary(m[rows], level)
        return np.array([got.strict, got.cohen_kappa, got.fleiss_kappa,
                         got.krippendorff_alpha], dtype=float)  # fmt: skip

    return cluster_bootstrap(statistic, clusters, n_rounds=rounds, seed=seed)


def coverage_before(m, clusters, rounds, seed):
    """The previous coverage human-vs-human bootstrap: ``human_coverage_agreement`` (and
    the ``krippendorff`` package) per round."""
    from metaeval.analyses.coverage import HUMAN_FIGURES
    from metaeval.stats.coverage_agreement import human_coverage_agreement

    doubly = (~np.isnan(m)).sum(axis=1) >= 2
    sub, questions = m[doubly], clusters[doubly]

    def statistic(rows):
        got = human_coverage_agreement(sub[rows])
        return np.array([getattr(got, k) for k in HUMAN_FIGURES], dtype=float)

    from metaeval.stats.bootstrap import cluster_bootstrap

    boot = cluster_bootstrap(statistic, questions, n_rounds=rounds, seed=seed)
    return boot.low, boot.high


def coverage_after(m, clusters, rounds, seed):
    """The coverage section's human vs human now (``metaeval.analyses.coverage``)."""
    from metaeval.analyses.coverage import HUMAN_FIGURES, _human_vs_human

    out = _human_vs_human(m, clusters, rounds, seed)
    return (np.array([out[f"{k}_low"] for k in HUMAN_FIGURES], dtype=float),
            np.array([out[f"{k}_high"] for k in HUMAN_FIGURES], dtype=float))  # fmt: skip


def label_before(m, clusters, level, rounds, seed):
    boot = before(m, clusters, level, rounds, seed)
    return boot.low, boot.high


def label_after(m, clusters, level, rounds, seed):
    from metaeval.stats.label_iaa import iaa_bootstrap

    boot = iaa_bootstrap(m, clusters, level, rounds, seed)
    return boot.low, boot.high


#: ``--figures``: (names, after, before); coverage-human is the coverage section's human
#: vs human (exact, binarised, quadratic κ, ordinal α; the labels read as 0–4).
FIGURES = {
    "label-iaa": (("strict", "cohen_kappa", "fleiss_kappa", "krippendorff_alpha"),
                  label_after, label_before),
    "coverage-human": (("exact", "binarised", "weighted_kappa", "krippendorff_alpha"),
                       lambda m, c, level, r, s: coverage_after(m, c, r, s),
                       lambda m, c, level, r, s: coverage_before(m, c, r, s)),
}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--figures", choices=sorted(FIGURES), default="label-iaa")
    parser.add_argument("--rounds", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--questions", type=int, default=50)
    parser.add_argument("--units", type=int, default=4)
    parser.add_argument("--annotators", type=int, default=6)
    parser.add_argument("--level", default="ordinal")
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "concord.settings")
    names, after_fn, before_fn = FIGURES[args.figures]

    m, clusters = kind(args.questions, args.units, args.annotators)
    print(f"{args.figures}: {args.questions} questions x {args.units} units, "
          f"{args.annotators} annotators (2-3 a unit), {args.level}, {args.rounds:,} rounds; "
          f"load average {os.getloadavg()[0]:.2f}")  # fmt: skip
    runs = [measure(lambda: after_fn(m, clusters, args.level, args.rounds, 1))
            for _ in range(args.repeat)]  # fmt: skip
    wall = statistics.median(r[0] for r in runs)
    used = statistics.median(r[1] for r in runs)
    low, high = runs[0][2]
    print(f"after  (vectorised):   {wall:7.3f} s wall, {used:7.3f} s CPU "
          f"(median of {args.repeat})")  # fmt: skip
    wall_b, used_b, (old_low, old_high) = measure(
        lambda: before_fn(m, clusters, args.level, args.rounds, 1)
    )
    print(f"before (per round):    {wall_b:7.3f} s wall, {used_b:7.3f} s CPU")
    print(f"speed-up: {wall_b / wall:.0f}x")
    gap = max(np.nanmax(np.abs(low - old_low)), np.nanmax(np.abs(high - old_high)))
    print(f"largest difference of the bounds: {gap:.1e}")
    for k, name in enumerate(names):
        print(f"  {name:19s} [{low[k]:.4f}, {high[k]:.4f}]")


if __name__ == "__main__":
    main()
