"""Controlled claim check: human vs judge on claim and citation support (seed 003 A.5;
METHODS §2.6, §7 "003 follow-ups").

Two binary label kinds, each aligned human vs judge on the same unit:

* claim support (→ citation recall): human "fully supported" yes / no vs the judge's
  verdict, *supported* = 1, *partial* / *unsupported* = 0, *unknown* left out (METHODS §4);
* citation support (→ citation precision): per (claim, citation), human "this citation
  supports the claim" vs the judge's per-citation ``supports``.

agreement = share of units with equal labels (the paper: 69 % claims, 75 % citations;
75 % / 81 % without Elicit's reports); Cohen's κ; and the direction of disagreements:
``judge_lenient`` = share of disagreements where the judge says supported and the human
does not (the paper: 85 %). Each annotator's check is a unit (the default human signal);
skipped checks never reach here. ``exclude`` drops units (e.g. one named system's reports).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .iaa import cohen_kappa

#: JudgeClaimVerdict.verdict → claim supported (None: excluded as unknown)
VERDICT_SUPPORTED = {"supported": 1.0, "partial": 0.0, "unsupported": 0.0, "unknown": None}


class SupportAgreement(NamedTuple):
    agreement: float
    kappa: float  # NaN with a single category on both sides
    judge_lenient: float  # share of disagreements: judge 1, human 0 (NaN: no disagreement)
    human_positive: float  # share the human marks supported
    judge_positive: float
    n: int
    n_disagreements: int


def support_agreement(human, judge, exclude=None) -> SupportAgreement:
    """Agreement of two aligned 0/1 vectors (NaN on either side dropped)."""
    h = np.asarray(human, dtype=float).ravel()
    j = np.asarray(judge, dtype=float).ravel()
    ok = ~(np.isnan(h) | np.isnan(j))
    if exclude is not None:
        ok &= ~np.asarray(exclude, dtype=bool).ravel()
    h, j = h[ok], j[ok]
    n = int(h.size)
    nan = float("nan")
    if n == 0:
        return SupportAgreement(nan, nan, nan, nan, nan, 0, 0)
    disagree = h != j
    nd = int(disagree.sum())
    return SupportAgreement(
        agreement=float(np.mean(~disagree)),
        kappa=cohen_kappa(np.stack((h, j), axis=1)).value,
        judge_lenient=float(np.mean(j[disagree] == 1)) if nd else nan,
        human_positive=float(np.mean(h == 1)),
        judge_positive=float(np.mean(j == 1)),
        n=n,
        n_disagreements=nd,
    )
