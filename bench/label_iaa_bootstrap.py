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

Run: ``.venv/bin/python bench/label_iaa_bootstrap.py [--rounds 10000] [--repeat 5]``.
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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--questions", type=int, default=50)
    parser.add_argument("--units", type=int, default=4)
    parser.add_argument("--annotators", type=int, default=6)
    parser.add_argument("--level", default="ordinal")
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "concord.settings")
    from metaeval.stats.label_iaa import iaa_bootstrap

    m, clusters = kind(args.questions, args.units, args.annotators)
    print(f"{args.questions} questions x {args.units} units, {args.annotators} annotators "
          f"(2-3 a unit), {args.level}, {args.rounds:,} rounds; "
          f"load average {os.getloadavg()[0]:.2f}")  # fmt: skip
    runs = [measure(lambda: iaa_bootstrap(m, clusters, args.level, args.rounds, 1))
            for _ in range(args.repeat)]  # fmt: skip
    wall = statistics.median(r[0] for r in runs)
    used = statistics.median(r[1] for r in runs)
    new = runs[0][2]
    print(f"after  (vectorised):   {wall:7.3f} s wall, {used:7.3f} s CPU "
          f"(median of {args.repeat})")  # fmt: skip
    wall_b, used_b, old = measure(lambda: before(m, clusters, args.level, args.rounds, 1))
    print(f"before (per round):    {wall_b:7.3f} s wall, {used_b:7.3f} s CPU")
    print(f"speed-up: {wall_b / wall:.0f}x")
    gap = max(np.nanmax(np.abs(new.low - old.low)), np.nanmax(np.abs(new.high - old.high)))
    print(f"largest difference of the bounds: {gap:.1e}; "
          f"rounds used alike: {bool(np.array_equal(new.n_valid, old.n_valid))}")  # fmt: skip
    for k, name in enumerate(("strict", "cohen_kappa", "fleiss_kappa", "krippendorff_alpha")):
        print(f"  {name:19s} [{new.low[k]:.4f}, {new.high[k]:.4f}]")


if __name__ == "__main__":
    main()
