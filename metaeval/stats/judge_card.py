"""The judge card's figures (docs/ANALYSES.md §13): position, length and tie behaviour of
a judge beside the experts', its agreement with itself, and the verdict line.

Every figure is a pooled share Σ num / Σ den over rows (a verdict, a pair of verdicts, an
expert's label) with a percentile cluster bootstrap over questions (METHODS §5
"Uncertainty"), or a rank correlation bootstrapped by resampling questions. A judge-minus-
experts difference resamples the same questions for both sides (one draw, four sums per
question), so its interval is that of the difference, not of two independent figures.

Verdicts are canonical (+1: report A better, −1: B better, 0: tie; NaN: none), A the
report of the system first by name (ANALYSES §0 "Orientation of pairs"); a direct
judge's verdict carries the order it was asked in (1: A shown first, 2: B shown first).

Sources of the definitions: position bias and verbosity bias, MT-Bench (Zheng et al.
2023, §3.3 "Limitations of LLM-as-a-judge": a judge that changes its verdict when the
two answers are swapped; one that favours the longer answer); the judge's probability of
preferring the longer output beside the humans' and its variance across seeds
(AlpacaEval's evaluator leaderboard); tie rates of a judge and of experts differ, which is
why seed 003 (§A.3) calibrates a tie threshold.
"""

from __future__ import annotations

import numpy as np
from scipy.stats import spearmanr

from .bootstrap import bootstrap_from_cluster_sums, cluster_sums
from .figure import Figure, figure, with_interval
from .intervals import ratio_interval, statistic_interval

TIE = 0


def share(num, den, clusters, rounds: int, seed: int, undefined: str) -> Figure:
    """Σ num / Σ den over rows, with its cluster-bootstrap CI when ``rounds`` > 0."""
    num = np.asarray(num, dtype=float).ravel()
    den = np.asarray(den, dtype=float).ravel()
    if rounds <= 0 or num.size == 0:
        total = den.sum()
        return figure(num.sum() / total if total > 0 else None, int((den > 0).sum()),
                      undefined=undefined)  # fmt: skip
    return ratio_interval(num, den, clusters, n_rounds=rounds, seed=seed, undefined=undefined)


def difference(a: tuple, b: tuple, rounds: int, seed: int, undefined: str) -> Figure:
    """Σ num_a / Σ den_a − Σ num_b / Σ den_b, each ``(num, den, clusters)`` over its own
    rows, with the CI of the difference: each round draws one resample of questions and
    recomputes both shares on it (a question on one side only still counts there)."""
    na, da, qa = (np.asarray(x).ravel() for x in a)
    nb, db, qb = (np.asarray(x).ravel() for x in b)
    values = np.zeros((na.size + nb.size, 4))
    values[: na.size, 0], values[: na.size, 1] = na, da
    values[na.size :, 2], values[na.size :, 3] = nb, db
    n = int(min((da > 0).sum(), (db > 0).sum()))
    if values.shape[0] == 0 or da.sum() <= 0 or db.sum() <= 0:
        return figure(None, n, undefined=undefined)
    clusters = np.concatenate((qa, qb))

    def diff(t):
        with np.errstate(invalid="ignore", divide="ignore"):
            return t[..., 0] / t[..., 1] - t[..., 2] / t[..., 3]

    if rounds <= 0:
        return figure(diff(values.sum(axis=0)), n, undefined=undefined)
    sums, _ = cluster_sums(clusters, values)
    res = bootstrap_from_cluster_sums(sums, diff, n_rounds=rounds, seed=seed)
    return with_interval(figure(res.estimate, n, undefined=undefined), res.low, res.high,
                         res.note)  # fmt: skip


def label_agreement(verdict, v_item, e_label, e_item, clusters, rounds: int = 0,
                    seed: int = 0) -> Figure:  # fmt: skip
    """Share of (judge verdict, expert label) pairs of the same comparison that are equal
    (a tie agrees only with a tie: the ``threshold`` ties strategy of METHODS §5), every
    verdict against every expert label of its comparison. ``clusters``: question of
    each comparison (indexed by ``v_item`` / ``e_item``)."""
    v = np.asarray(verdict, dtype=float)
    vi = np.asarray(v_item, dtype=int)
    e = np.asarray(e_label, dtype=float)
    ei = np.asarray(e_item, dtype=int)
    q = np.asarray(clusters)
    ok_v = ~np.isnan(v) & (np.abs(v) <= 1)
    ok_e = ~np.isnan(e) & (np.abs(e) <= 1)
    counts = np.zeros((q.size, 3))  # expert labels per comparison: −1, 0, +1
    np.add.at(counts, (ei[ok_e], (e[ok_e] + 1).astype(int)), 1)
    vi, v = vi[ok_v], v[ok_v]
    num = counts[vi, (v + 1).astype(int)]
    den = counts[vi].sum(axis=1)
    return share(num, den, q[vi], rounds, seed, "No judged comparison has an expert label.")


def equal_share(judge, e_unit, e_label, unit_clusters, rounds: int = 0, seed: int = 0) -> Figure:
    """Labels (coverage 0–4, covered 0 / 1): share of expert labels the judge's label of
    the same unit equals, over expert labels of units the judge labelled. ``judge``: its
    label per unit (NaN: none)."""
    j = np.asarray(judge, dtype=float)
    u = np.asarray(e_unit, dtype=int)
    e = np.asarray(e_label, dtype=float)
    ok = ~np.isnan(e) & ~np.isnan(j[u])
    return share(np.where(ok, j[u] == e, 0), ok, np.asarray(unit_clusters)[u], rounds, seed,
                 "No unit has both a judge and an expert label.")  # fmt: skip


def experts_equal_share(e_unit, e_label, unit_clusters, rounds: int = 0, seed: int = 0) -> Figure:
    """Share of equal labels over every two experts' labels of a unit (exact agreement,
    the experts among themselves)."""
    u = np.asarray(e_unit, dtype=int)
    e = np.asarray(e_label, dtype=float)
    ok = ~np.isnan(e)
    u, e = u[ok], e[ok]
    q = np.asarray(unit_clusters)
    if u.size == 0:
        return figure(None, 0, undefined="No unit has two expert labels.")
    values, code = np.unique(e, return_inverse=True)
    counts = np.zeros((q.size, values.size))
    np.add.at(counts, (u, code.ravel()), 1)
    n = counts.sum(axis=1)
    num = (counts * (counts - 1)).sum(axis=1)
    den = n * (n - 1)
    return share(num, den, q, rounds, seed, "No unit has two expert labels.")


# ----------------------------------------------------------------------------- position


def chose_first(verdict, order) -> np.ndarray:
    """1 where a verdict picks the report shown first (A in order 1, B in order 2), 0
    where it picks the other, NaN for a tie or no verdict."""
    v = np.asarray(verdict, dtype=float)
    o = np.asarray(order)
    first = np.where(o == 1, v == 1, v == -1).astype(float)
    return np.where(np.isnan(v) | (v == TIE), np.nan, first)


def position_bias(first, second, clusters, rounds: int = 0, seed: int = 0) -> dict:
    """A judge asked in both orders (MT-Bench §3.3, "position bias").

    ``first`` / ``second``: canonical verdict per comparison asked with A shown first /
    B shown first (NaN where not asked). **Order consistency**: share of comparisons
    asked in both orders whose two canonical verdicts are equal (a tie in both counts as
    consistent). **First shown**: share of decisive verdicts (either order) that pick the
    report shown first — ½ is no position bias, 1 a judge that always picks the first."""
    f = np.asarray(first, dtype=float)
    s = np.asarray(second, dtype=float)
    q = np.asarray(clusters)
    both = ~np.isnan(f) & ~np.isnan(s)
    consistent = share(np.where(both, f == s, 0), both, q, rounds, seed,
                       "No comparison was asked in both orders.")  # fmt: skip
    picks = np.concatenate((chose_first(f, np.ones(f.size)), chose_first(s, np.full(s.size, 2))))
    decisive = ~np.isnan(picks)
    first_share = share(np.where(decisive, picks, 0), decisive, np.concatenate((q, q)), rounds,
                        seed, "No decisive verdict.")  # fmt: skip
    return {"order_consistency": consistent.as_dict(), "first_shown": first_share.as_dict()}


# ----------------------------------------------------------------------------- length


def longer_side(length_a, length_b) -> np.ndarray:
    """+1 where report A has more words, −1 where B has, 0 equal, NaN unknown."""
    a = np.asarray(length_a, dtype=float)
    b = np.asarray(length_b, dtype=float)
    return np.sign(a - b)


def prefers_longer(verdict, longer) -> tuple[np.ndarray, np.ndarray]:
    """(num, den) per row: den 1 for a decisive verdict on reports of unequal length,
    num 1 where it picks the longer one."""
    v = np.asarray(verdict, dtype=float)
    g = np.asarray(longer, dtype=float)
    ok = ~np.isnan(v) & (v != TIE) & (np.abs(v) == 1) & ~np.isnan(g) & (g != 0)
    return np.where(ok, v == g, 0).astype(float), ok.astype(float)


def length_bias(judge_verdict, judge_longer, judge_q, expert_label, expert_longer, expert_q,
                rounds: int = 0, seed: int = 0) -> dict:  # fmt: skip
    """P(the judge prefers the longer report) beside P(an expert does) on the same pairs
    (the caller passes the expert labels of the comparisons the judge judged), and their
    difference with the CI of the difference (AlpacaEval's length preference; MT-Bench
    §3.3 "verbosity bias"). Ties and equal lengths are left out of both."""
    jn, jd = prefers_longer(judge_verdict, judge_longer)
    en, ed = prefers_longer(expert_label, expert_longer)
    none_j, none_e = "No decisive verdict on reports of unequal length.", (
        "No decisive expert label on these pairs.")  # fmt: skip
    return {
        "judge": share(jn, jd, judge_q, rounds, seed, none_j).as_dict(),
        "experts": share(en, ed, expert_q, rounds, seed, none_e).as_dict(),
        "difference": difference((jn, jd, judge_q), (en, ed, expert_q), rounds, seed,
                                 "Needs both a judge and an expert share.").as_dict(),
    }  # fmt: skip


def rank_correlation(score, length, clusters, rounds: int = 0, seed: int = 0,
                     undefined: str = "Fewer than 3 reports or a constant side.") -> dict:  # fmt: skip
    """Spearman ρ of a score with report length over reports (NaN rows left out), the CI
    by resampling questions. Undefined with fewer than 3 reports or a constant side."""
    x = np.asarray(score, dtype=float)
    y = np.asarray(length, dtype=float)
    ok = np.isfinite(x) & np.isfinite(y)
    x, y, q = x[ok], y[ok], np.asarray(clusters)[ok]

    def rho(rows):
        if rows.size < 3 or np.ptp(x[rows]) == 0 or np.ptp(y[rows]) == 0:
            return float("nan")
        return float(spearmanr(x[rows], y[rows]).statistic)

    if rounds <= 0 or q.size == 0:
        return figure(rho(np.arange(q.size)), int(q.size), undefined=undefined).as_dict()
    return statistic_interval(rho, q, n_rounds=rounds, seed=seed, n=int(q.size),
                              undefined=undefined).as_dict()  # fmt: skip


# ----------------------------------------------------------------------------- ties


def tie_share(labels) -> tuple[np.ndarray, np.ndarray]:
    """(num, den) per row: den 1 for a verdict in {−1, 0, +1}, num 1 for a tie. An
    expert's "both bad" (2) is not a verdict a judge can give and is left out."""
    v = np.asarray(labels, dtype=float)
    ok = ~np.isnan(v) & (np.abs(v) <= 1)
    return np.where(ok, v == TIE, 0).astype(float), ok.astype(float)


def tie_behaviour(judge_verdict, judge_q, expert_label, expert_q, rounds: int = 0,
                  seed: int = 0) -> dict:  # fmt: skip
    """The judge's tie rate beside the experts' on the same comparisons, and their
    difference (seed 003 §A.3: the calibrated tie threshold exists because they differ)."""
    jn, jd = tie_share(judge_verdict)
    en, ed = tie_share(expert_label)
    return {
        "judge": share(jn, jd, judge_q, rounds, seed, "No verdict.").as_dict(),
        "experts": share(en, ed, expert_q, rounds, seed, "No expert label.").as_dict(),
        "difference": difference((jn, jd, judge_q), (en, ed, expert_q), rounds, seed,
                                 "Needs both a judge and an expert tie rate.").as_dict(),
    }  # fmt: skip


# ----------------------------------------------------------------------------- consistency


def self_agreement(runs: list, clusters, rounds: int = 0, seed: int = 0) -> dict:
    """Agreement of a judge with itself over two or more runs (other seed or
    temperature): for every two runs, the share of units both judged with the same
    verdict, pooled over the pairs of runs (AlpacaEval's variance across seeds). It bounds
    the judge's agreement with experts from above in the sense that a verdict the judge
    would change on a rerun cannot be relied on."""
    runs = [np.asarray(r, dtype=float) for r in runs]
    q = np.asarray(clusters)
    if len(runs) < 2:
        return figure(None, 0, undefined="Needs two runs of the judge.").as_dict()
    nums, dens, qs = [], [], []
    for i in range(len(runs)):
        for j in range(i + 1, len(runs)):
            both = ~np.isnan(runs[i]) & ~np.isnan(runs[j])
            nums.append(np.where(both, runs[i] == runs[j], 0))
            dens.append(both)
            qs.append(q)
    return share(np.concatenate(nums), np.concatenate(dens), np.concatenate(qs), rounds, seed,
                 "The runs share no judged unit.").as_dict()  # fmt: skip


# ----------------------------------------------------------------------------- operations


def per_thousand(total, units) -> float | None:
    """``total`` per 1,000 units (AlpacaEval's price and time per 1,000 examples)."""
    if total is None or not units:
        return None
    return float(total) * 1000.0 / float(units)


# ----------------------------------------------------------------------------- the line


def _fmt(fig: dict | None) -> str | None:
    if not fig or fig.get("value") is None:
        return None
    text = f"{fig['value']:.2f}"
    if fig.get("low") is not None and fig.get("high") is not None:
        text += f" [{fig['low']:.2f}, {fig['high']:.2f}]"
    return text


def verdict_line(protocol: str, card: dict) -> str:
    """One sentence per protocol, written only from the figures present (no threshold:
    the reader judges): agreement (and the experts among themselves), order consistency,
    length preference beside the experts', tie rate beside the experts', self-agreement."""
    parts = []
    agree = _fmt(card.get("agreement"))
    if agree:
        text = f"{agree} agreement with {card.get('agreement_reference') or 'the experts'}"
        humans = _fmt(card.get("experts_agreement"))
        if humans:
            text += f" (experts among themselves: {humans})"
        parts.append(text)
    pos = card.get("position") or {}
    if _fmt(pos.get("order_consistency")):
        parts.append(f"order-consistent {_fmt(pos['order_consistency'])}")
    if _fmt(pos.get("first_shown")):
        parts.append(f"picks the report shown first {_fmt(pos['first_shown'])}")
    length = card.get("length") or {}
    if _fmt(length.get("judge")):
        text = f"prefers the longer report {_fmt(length['judge'])}"
        if _fmt(length.get("experts")):
            text += f" vs experts {_fmt(length['experts'])}"
        parts.append(text)
    if _fmt(length.get("judge_rho")):
        text = f"score–length ρ {_fmt(length['judge_rho'])}"
        if _fmt(length.get("experts_rho")):
            text += f" vs experts {_fmt(length['experts_rho'])}"
        parts.append(text)
    ties = card.get("ties") or {}
    if _fmt(ties.get("judge")):
        text = f"ties {_fmt(ties['judge'])}"
        if _fmt(ties.get("experts")):
            text += f" vs experts {_fmt(ties['experts'])}"
        parts.append(text)
    if _fmt(card.get("self_agreement")):
        parts.append(f"agrees with its own rerun {_fmt(card['self_agreement'])}")
    return f"{protocol}: " + ("; ".join(parts) if parts else "no figure is defined")
