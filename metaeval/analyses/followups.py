"""ScholarQA-CS2 follow-ups: A.4 rubric comparison, A.5 claim check, A.6 adjudication and
Fig. 9 ratings (003 Appendix; METHODS §7; docs/ANALYSES.md §5)."""

from __future__ import annotations

from itertools import combinations

import numpy as np

from metaeval.loaders.adjudication import AdjudicationData
from metaeval.loaders.claims import ClaimData
from metaeval.loaders.ratings import RatingsData
from metaeval.loaders.rubric_comparison import RubricComparisonData
from metaeval.stats.adjudication_rates import setting_difference, setting_rates
from metaeval.stats.claim_support import support_agreement
from metaeval.stats.figure import figure, number
from metaeval.stats.ratings import align, correlation, group_means, report_means
from metaeval.stats.rubric_comparison import compare_sources, matches_from_rankings, source_records

from ._common import share


def analyse_rubric_comparison(data: RubricComparisonData, method: str = "binomial",
                              rounds: int = 10_000, seed: int = 0) -> dict:  # fmt: skip
    r, a, b, d = matches_from_rankings(data.comparison, data.source, data.medal)
    records = source_records(a, b, d)
    out = {
        "rankings": int(np.unique(data.comparison).size),
        "sources": [
            {"source": data.sources[s.source], "matches": s.matches, "wins": s.wins,
             "ties": s.ties, "losses": s.losses, "win_rate": s.win_rate,
             "tie_rate": s.tie_rate, "score": s.score}
            for s in records
        ],
        "comparisons": [],
    }  # fmt: skip
    for x, y in combinations([s.source for s in records], 2):
        c = compare_sources(a, b, d, x, y, method=method, ranking=r, n_rounds=rounds, seed=seed)
        out["comparisons"].append({
            "x": data.sources[x], "y": data.sources[y], "x_wins": c.x_wins, "y_wins": c.y_wins,
            "ties": c.ties, "pvalue": number(c.pvalue), "method": c.method,
            "note": None if number(c.pvalue) is not None else "No decisive match between them.",
        })  # fmt: skip
    return out


def _support_block(h, j, q, exclude, rounds, seed) -> dict:
    res = support_agreement(h, j, exclude)
    ok = ~(np.isnan(h) | np.isnan(j)) & ~exclude
    return {
        "agreement": share((h == j)[ok].astype(float), np.ones(ok.sum()), q[ok], rounds, seed,
                           "No unit judged by both."),
        "kappa": figure(res.kappa, res.n, undefined="κ: a single category.").as_dict(),
        "judge_lenient": figure(res.judge_lenient, res.n_disagreements,
                                undefined="No disagreement.").as_dict(),
        "n": res.n,
    }  # fmt: skip


def analyse_claims(data: ClaimData, exclude_system: str | None = None, rounds: int = 1000,
                   seed: int = 0) -> dict:  # fmt: skip
    out = {"checks": data.n_checks, "unmatched_checks": data.n_unmatched, "judges": []}
    for k, judge in enumerate(data.judges):
        sel, csel = data.judge == k, data.c_judge == k
        block = {"judge": judge}
        for label, mask in (("all", None), ("without", exclude_system)):
            if label == "without" and (mask is None or mask not in data.systems):
                continue
            code = data.systems.index(mask) if mask else -1
            block[label] = {
                "claim_support": _support_block(data.human[sel], data.verdict[sel],
                                                data.question[sel], data.system[sel] == code,
                                                rounds, seed),
                "citation_support": _support_block(data.c_human[csel], data.c_judge_supports[csel],
                                                   data.c_question[csel],
                                                   data.c_system[csel] == code, rounds, seed),
            }  # fmt: skip
        if "without" in block:
            block["excluded_system"] = exclude_system
        out["judges"].append(block)
    return out


def analyse_adjudication(data: AdjudicationData) -> dict:
    rates = setting_rates(data.setting, data.decision)
    out = {
        "settings": [{"setting": r.setting, "n": r.n,
                      **dict(zip(("keep", "switch", "subjective"), r.rates, strict=True)),
                      "counts": list(r.counts)} for r in rates],
        "differences": [],
    }  # fmt: skip
    for a, b in combinations(rates, 2):
        diff = setting_difference(a, b)
        out["differences"].append({
            "a": diff.a, "b": diff.b, "pvalue_all": number(diff.pvalue_all),
            "pvalue_per_decision": {k: number(v) for k, v in diff.pvalue_per_decision.items()},
        })  # fmt: skip
    return out


def analyse_ratings(data: RatingsData) -> dict:
    """Fig. 9: mean rating per system (and per annotator) and per dimension, and each
    dimension's correlation with the preference (mean medal) and each judge metric."""
    out = {"dimensions": []}
    m_keys, m_mean = report_means(data.m_report, data.m_value)
    for k, dim in enumerate(data.dimensions):
        sel = data.dimension == k
        by_system = group_means(data.value[sel], data.system[sel])
        by_annotator = group_means(data.value[sel], data.annotator[sel], data.system[sel])
        r_keys, r_mean = report_means(data.report[sel], data.value[sel])
        corr = {"preference": correlation(*align(r_keys, r_mean, m_keys, m_mean))}
        for j, judge in enumerate(data.judges):
            for metric in sorted(set(data.s_metric)):
                ssel = (data.s_judge == j) & (np.array(data.s_metric, dtype=object) == metric)
                corr[f"{judge}:{metric}"] = correlation(
                    *align(r_keys, r_mean, data.s_report[ssel], data.s_value[ssel])
                )
        out["dimensions"].append({
            "dimension": dim,
            "by_system": {data.systems[key[0]]: {"mean": float(mu), "n": int(n)}
                          for key, mu, n in zip(by_system.keys, by_system.mean, by_system.n,
                                                strict=True)},
            "by_annotator": [{"annotator": data.annotators[key[0]], "system": data.systems[key[1]],
                              "mean": float(mu), "n": int(n)}
                             for key, mu, n in zip(by_annotator.keys, by_annotator.mean,
                                                   by_annotator.n, strict=True)],
            "correlations": {name: {"pearson": number(c.pearson), "spearman": number(c.spearman),
                                    "n": c.n,
                                    "note": None if number(c.pearson) is not None else
                                    "Fewer than 3 reports or a constant side."}
                             for name, c in corr.items()},
        })  # fmt: skip
    return out
