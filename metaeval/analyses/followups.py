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
from metaeval.stats.signal import collapse, failed_rows

from ._common import share


def _ranking_rows(data: RubricComparisonData, signal: str | None, failed=frozenset()):
    """(comparison, source, medal) rows of the rankings counted (ANALYSES §0, §5 A.4):
    default and ``each``: every annotator's ranking; ``majority``: one ranking per unit — a
    question and the set of rubrics ranked —, the plurality of the whole rankings (medal of
    every rubric), ties left out; ``adjudicated``: the question's rubric-comparison
    adjudication where it ranks exactly the unit's rubric kinds (``data.adjudicated``),
    else the majority; neither reads the rankings of ``failed`` (annotators who failed
    qualification). A kept ranking is rebuilt from its label (an adjudicated ranking may
    be one no annotator gave), its ``comparison`` the unit's index."""
    if signal in (None, "each"):
        return data.comparison, data.source, data.medal, None
    by_ranking: dict[int, list[int]] = {}
    for row, comp in enumerate(data.comparison.tolist()):
        by_ranking.setdefault(comp, []).append(row)
    comps = sorted(by_ranking)
    source_of = dict(zip(data.rubric.tolist(), data.source.tolist(), strict=True))
    units, labels = {}, {}
    unit = np.empty(len(comps), dtype=np.int64)
    label = np.empty(len(comps), dtype=float)
    annotator = np.empty(len(comps), dtype=np.int64)
    for k, comp in enumerate(comps):
        rows = by_ranking[comp]
        annotator[k] = data.annotator[rows[0]]
        key = (int(data.question[rows[0]]), tuple(sorted(data.rubric[rows].tolist())))
        ranking = tuple(sorted(zip(data.rubric[rows].tolist(), data.medal[rows].tolist(),
                                   strict=True)))  # fmt: skip
        unit[k] = units.setdefault(key, len(units))
        label[k] = labels.setdefault(ranking, len(labels))
    adjudicated = {}
    for (question, rubrics), u in units.items() if signal == "adjudicated" else ():
        medals = (data.adjudicated or {}).get(question)
        kinds = [data.sources[source_of[r]] for r in rubrics]
        if medals and len(set(kinds)) == len(kinds) and set(kinds) == set(medals):
            ranking = tuple(sorted((r, medals[k]) for r, k in zip(rubrics, kinds, strict=True)))
            adjudicated[u] = labels.setdefault(ranking, len(labels))
    c = collapse(unit, label, signal, adjudicated, failed_rows(annotator, failed))
    ranking_of = {code: ranking for ranking, code in labels.items()}
    rebuilt = [(k, source_of[r], medal) for k, code in enumerate(c.label.tolist())
               for r, medal in ranking_of[int(code)]]  # fmt: skip
    out = np.array(rebuilt, dtype=float).reshape(-1, 3)
    return out[:, 0].astype(np.int64), out[:, 1].astype(np.int64), out[:, 2], c


def analyse_rubric_comparison(data: RubricComparisonData, method: str = "binomial",
                              rounds: int = 10_000, seed: int = 0,
                              signal: str | None = None, failed=frozenset()) -> dict:  # fmt: skip
    """A.4 per-source records and tests; ``signal``, ``failed``: :func:`_ranking_rows`."""
    comparison, source, medal, sig = _ranking_rows(data, signal, failed)
    r, a, b, d = matches_from_rankings(comparison, source, medal)
    records = source_records(a, b, d)
    out = {
        "rankings": int(np.unique(comparison).size),
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
    if signal is not None:
        text = ("Human signal: each annotator's ranking." if sig is None else
                f"Human signal: {signal}, one ranking per question and rubric set "
                f"({sig.tied} tied left out)." + (f" {sig.adjudicated} rankings from "
                "rubric-comparison adjudications." if signal == "adjudicated" else ""))  # fmt: skip
        out["human_signal"] = ({"mode": signal} if sig is None else sig.summary(signal)) | {
            "note": text
        }
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


def _signal_rows(sel: np.ndarray, unit: np.ndarray, human: np.ndarray, signal: str | None,
                 adjudicated: dict | None = None, excluded: np.ndarray | None = None):  # fmt: skip
    """Rows of one judge's (human, verdict) pairs under the human signal, and the human
    label of each (ANALYSES §0, §5): default and ``each``: every expert's check;
    ``majority``: one label per claim (or (claim, citation)), ties left out;
    ``adjudicated``: the claim-check adjudication of the unit where there is one
    (``adjudicated``: unit -> label, :func:`metaeval.loaders.claims.load_claims`), else its
    majority; neither reads the ``excluded`` rows (checks of annotators who failed
    qualification, :func:`metaeval.stats.signal.failed_rows`)."""
    rows = np.flatnonzero(sel)
    if signal in (None, "each"):
        return rows, human[rows], None
    c = collapse(unit[rows], human[rows], signal, adjudicated,
                 None if excluded is None else excluded[rows])  # fmt: skip
    return rows[c.rows], c.label, c.summary(signal)


def analyse_claims(data: ClaimData, exclude_system: str | None = None, rounds: int = 1000,
                   seed: int = 0, signal: str | None = None,
                   failed=frozenset()) -> dict:  # fmt: skip
    """Human vs each judge on claim and citation support; ``signal``: :func:`_signal_rows`,
    without the checks of ``failed`` (annotators who failed qualification)."""
    out = {"checks": data.n_checks, "unmatched_checks": data.n_unmatched, "judges": []}
    summaries = {}
    excluded, c_excluded = (failed_rows(data.annotator, failed),
                            failed_rows(data.c_annotator, failed))  # fmt: skip
    for k, judge in enumerate(data.judges):
        sel, hum, summaries["claim_support"] = _signal_rows(
            data.judge == k, data.claim, data.human, signal, data.adj_claim, excluded)  # fmt: skip
        csel, chum, summaries["citation_support"] = _signal_rows(
            data.c_judge == k, data.c_unit, data.c_human, signal, data.adj_cite, c_excluded)  # fmt: skip
        block = {"judge": judge}
        for label, mask in (("all", None), ("without", exclude_system)):
            if label == "without" and (mask is None or mask not in data.systems):
                continue
            code = data.systems.index(mask) if mask else -1
            block[label] = {
                "claim_support": _support_block(hum, data.verdict[sel],
                                                data.question[sel], data.system[sel] == code,
                                                rounds, seed),
                "citation_support": _support_block(chum, data.c_judge_supports[csel],
                                                   data.c_question[csel],
                                                   data.c_system[csel] == code, rounds, seed),
            }  # fmt: skip
        if "without" in block:
            block["excluded_system"] = exclude_system
        if signal not in (None, "each"):
            block["human_signal"] = dict(summaries)
        out["judges"].append(block)
    if signal is not None:
        out["human_signal"] = {"mode": signal, "note": _claims_note(signal, out["judges"])}
    return out


def _claims_note(signal: str, judges: list[dict]) -> str:
    if signal == "each":
        return "Human signal: each expert's check is a row."
    tied = sum(j["human_signal"]["claim_support"]["tied"] for j in judges)
    text = (f"Human signal: {signal}, one label per claim and per (claim, citation); "
            f"{tied} tied claim labels left out (over judges).")  # fmt: skip
    if signal == "adjudicated":
        used = sum(j["human_signal"][b]["adjudicated"] for j in judges
                   for b in ("claim_support", "citation_support"))  # fmt: skip
        text += f" {used} labels from claim-check adjudications (over judges)."
    return text


ONE_DECISION = (
    "Human signal: each disagreement is decided once, by one expert, so every "
    "signal reads the same decisions."
)


def analyse_adjudication(data: AdjudicationData, signal: str | None = None) -> dict:
    """A.6 rates per setting and the test between settings.

    ``signal``: every disagreement is decided once (``RelevanceAdjudication.disagreement``
    is one-to-one), by the expert whose label the judge disagreed with, so each annotator,
    the majority and the adjudicated signal are the same decisions; the result says so."""
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
    if signal is not None:
        out["human_signal"] = {"mode": signal, "applies": False, "note": ONE_DECISION}
    return out


def _rating_rows(data: RatingsData, signal: str | None, failed=frozenset()):
    """(rating rows, their values, medal rows, their values, summaries) under the human
    signal (ANALYSES §0, §5): default and ``each``: every rating and every medal;
    ``majority``: one rating per (report, dimension) and one medal per report, the
    plurality, ties left out; ``adjudicated``: the metric-wise rating adjudication of the
    (report, dimension) and the ranking adjudication of the report's question
    (``data.adj_ratings`` / ``adj_medals``, :meth:`RatingsData.adjudicated`) where there is
    one, else the majority; neither reads the ratings and medals of ``failed`` (annotators
    who failed qualification)."""
    if signal in (None, "each"):
        return (
            np.arange(data.value.size),
            data.value,
            np.arange(data.m_value.size),
            data.m_value,
            None,
        )
    r = collapse(
        data.rating_unit(),
        data.value,
        signal,
        data.adj_ratings,
        failed_rows(data.annotator_id, failed),
    )
    m = collapse(data.m_report, data.m_value, signal, data.adj_medals,
                 failed_rows(data.m_annotator, failed))  # fmt: skip
    return r.rows, r.label, m.rows, m.label, {"ratings": r.summary(signal),
                                              "medals": m.summary(signal)}  # fmt: skip


def analyse_ratings(data: RatingsData, signal: str | None = None,
                    failed=frozenset()) -> dict:  # fmt: skip
    """Fig. 9: mean rating per system (and per annotator) and per dimension, and each
    dimension's correlation with the preference (mean medal) and each judge metric.
    ``signal``, ``failed``: :func:`_rating_rows` (per-annotator means only with each
    annotator)."""
    out = {"dimensions": []}
    rows, values, m_rows, m_values, summaries = _rating_rows(data, signal, failed)
    m_keys, m_mean = report_means(data.m_report[m_rows], m_values)
    for k, dim in enumerate(data.dimensions):
        sel = rows[data.dimension[rows] == k]
        value = values[data.dimension[rows] == k]
        by_system = group_means(value, data.system[sel])
        by_annotator = group_means(value, data.annotator[sel], data.system[sel])
        if summaries is not None:  # one signal per unit: no annotator's own mean
            by_annotator = group_means(value[:0], data.annotator[sel][:0], data.system[sel][:0])
        r_keys, r_mean = report_means(data.report[sel], value)
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
    if signal is not None:
        out["human_signal"] = {"mode": signal, **(summaries or {}),
                               "note": _ratings_note(signal, summaries)}  # fmt: skip
    return out


def _ratings_note(signal: str, summaries: dict | None) -> str:
    if summaries is None:
        return "Human signal: each annotator's rating and medal."
    r, m = summaries["ratings"], summaries["medals"]
    text = (f"Human signal: {signal}; one rating per (report, dimension) ({r['tied']} tied "
            f"left out) and one medal per report ({m['tied']} tied left out); no "
            "per-annotator means.")  # fmt: skip
    if signal == "adjudicated":
        text += (f" {r['adjudicated']} ratings from adjudications; {m['adjudicated']} "
                 "medals from adjudicated rankings.")  # fmt: skip
    return text
