"""Each benchmark's own scoreboard from its judge results alone (issue 26; docs/ANALYSES.md
§14): the leaderboard each paper prints, per judge, with cluster-bootstrap intervals over
questions, before any expert label.

One declaration per board (:data:`BOARDS`: its benchmark, title, paper table, unit and
metrics); :func:`analyse_scoreboard` fills the rows from the judge results
(:mod:`metaeval.loaders.scoreboard`) with the pure functions of
:mod:`metaeval.stats.scoreboard` and, for ResearchQA's Bradley–Terry board, the
leaderboard of :mod:`metaeval.analyses.researchqa_pairwise`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from judges.scoring import researcherbench as rb
from judges.scoring.scholarqa import METRICS as SCHOLARQA_METRICS
from metaeval.loaders.pairwise import PairwiseData
from metaeval.loaders.scoreboard import JudgeRows
from metaeval.stats.figure import figure
from metaeval.stats.scoreboard import report_scores, system_means

from .researchqa_pairwise import bootstrap_why, judge_board


@dataclass(frozen=True)
class Metric:
    key: str
    label: str
    definition: str


@dataclass(frozen=True)
class Board:
    benchmark: str
    title: str
    paper: str
    unit: str  # what a row's n counts
    metrics: tuple[Metric, ...]
    notes: tuple[str, ...] = ()
    rank_by: str | None = None  # the metric the rows are sorted by (default: the first)


RESEARCHERBENCH = Board(
    "researcherbench", "ResearcherBench: rubric coverage and factual scores per system",
    "004 §4.1 eq. 2, §4.2 eq. 4, Table 3", "reports",
    (Metric("coverage", "Coverage S_c",
            "mean over the system's reports of S_c = Σ w_i·b_i / Σ w_i over every "
            "rubric item the judge scored (the benchmark's figure; not restricted "
            "to the items an expert labelled)"),
     Metric("faithfulness", "Faithfulness S_f",
            "mean over the system's reports of S_f = supported / cited claims from the "
            "judge's claim-support verdicts; 'partial' counts supported (the benchmark's "
            "verifier answers 'yes' when a claim's facts are found 'entirely or "
            "partially', 004 App. E.5), 'unknown' is left out"),
     Metric("groundedness", "Groundedness S_g",
            "mean over the system's reports of S_g = cited / all claims; needs every "
            "claim of a report, cited or not")),
)  # fmt: skip
RESEARCHQA_COVERAGE = Board(
    "researchqa", "ResearchQA: rubric coverage per system", "001 §3.3; METHODS §4",
    "reports", (Metric("coverage_percent", "Coverage %",
                       "mean over the system's reports of mean(label)/4 · 100 over the rubric "
                       "items the judge labelled 0–4"),),
)  # fmt: skip
RESEARCHQA_LEADERBOARD = Board(
    "researchqa", "ResearchQA: Bradley–Terry leaderboard from the judge's pairwise verdicts",
    "001 §4.1, Table 3", "battles",
    (Metric("elo", "Elo rating", "Bradley–Terry fit on every battle (base 10, scale 400, "
            "mean 1000; a tie half a win to each side); interval: bootstrap percentiles"),
     Metric("bootstrap_median", "Bootstrap median", "the paper's figure"),
     Metric("bootstrap_sd", "Bootstrap sd", "the paper's ±")),
    ("Battles: the ensemble verdicts, else the direct judge's two orders as two battles; "
     "resampled battle by battle as the paper.",),
)  # fmt: skip
SCHOLARQA = Board(
    "scholarqa-cs2", "ScholarQA-CS2: judge metrics per system", "003 §3; METHODS §4",
    "reports", tuple(Metric(m, m.replace("_", " "), "mean over the system's reports")
                     for m in (*SCHOLARQA_METRICS, "overall")), rank_by="overall",
)  # fmt: skip
JUDGE_SCORES = Board(
    "scores", "Judge scores per system", "imported per-report scores", "reports", (),
)  # fmt: skip
DEEPSCHOLAR = Board(
    "deepscholar", "DeepScholar-Bench: judge metrics per system", "002 §4, App. 8.3, Table 2",
    "reports",
    (Metric("organization", "Organization",
            "win rate against the exemplar, ties half (win 1, tie ½, lose 0; the label "
            "already combines both orders)"),
     Metric("nugget_coverage", "Nugget coverage",
            "share of the question's nuggets the judge labels supported (strict, all "
            "nuggets: the paper's Table 2); a nugget the judge did not label counts as not "
            "supported, and the figure's note says how many"),
     Metric("relevance_rate", "Relevance rate", "Σ rel(s) / (2|S|) over the cited sources"),
     Metric("citation_precision", "Citation precision",
            "share of (paragraph, cited source) pairs the judge labels entailed")),
    ("Reference coverage, document importance and claim coverage are not computed: they "
     "need the report's citations matched to the exemplar's references, citation counts and "
     "sentence windows, which no judge label carries.",),
)  # fmt: skip
BOARDS = (RESEARCHERBENCH, RESEARCHQA_COVERAGE, RESEARCHQA_LEADERBOARD, SCHOLARQA,
          JUDGE_SCORES, DEEPSCHOLAR)  # fmt: skip

#: DeepScholar label → the per-unit value of each metric (Table 2's definitions).
DEEPSCHOLAR_VALUES = {
    "organization": ("organization", {"win": 1.0, "tie": 0.5, "lose": 0.0}),
    "nugget_support": ("nugget_coverage", {"supported": 1.0, "partially_supported": 0.0,
                                           "not_supported": 0.0}),
    "retrieval_relevance": ("relevance_rate", {"0": 0.0, "1": 0.5, "2": 1.0}),
    "entailment": ("citation_precision", {"entailed": 1.0, "not_entailed": 0.0}),
}  # fmt: skip


def _describe(board: Board, metrics=None) -> dict:
    metrics = board.metrics if metrics is None else metrics
    return {"benchmark": board.benchmark, "title": board.title, "paper": board.paper,
            "unit": board.unit, "metrics": [m.__dict__ for m in metrics],
            "notes": list(board.notes)}  # fmt: skip


def _rows(systems: list[str], columns: dict[str, list], n: list[int],
          rank_by: str | None = None) -> list[dict]:  # fmt: skip
    """One row per system with a figure, best first by ``rank_by`` (default: the first
    metric; undefined last)."""
    rows = [{"system": name, "n": n[k], "figures": {m: figs[k].as_dict()
             for m, figs in columns.items()}} for k, name in enumerate(systems) if n[k]]  # fmt: skip
    first = rank_by if rank_by in columns else next(iter(columns), None)

    def key(row):
        v = row["figures"][first]["value"] if first else None
        return (v is None, -(v or 0.0), row["system"])

    return sorted(rows, key=key)


def _report_board(rows: JudgeRows, sel, value, weight, rounds, seed) -> tuple[list, list[int]]:
    """Per system, the mean of its reports' scores Σw·v/Σw (rows ``sel``)."""
    per = report_scores(rows.report[sel], value[sel], None if weight is None else weight[sel])
    system = dict(zip(rows.report[sel], rows.system[sel], strict=True))
    question = dict(zip(rows.report[sel], rows.question[sel], strict=True))
    rs = np.array([system[r] for r in per.report], dtype=int)
    rq = np.array([question[r] for r in per.report], dtype=int)
    figs = system_means(per.score, rs, rq, len(rows.systems), rounds, seed)
    return figs, [f.n for f in figs]


def researcherbench_coverage(rows: JudgeRows) -> dict[str, dict[str, float | None]]:
    """judge -> system -> the benchmark's S_c (004 Table 3: the mean over the system's
    reports of Σ w·b / Σ w over every item the judge scored), without interval."""
    out: dict[str, dict[str, float | None]] = {}
    covered = rows.columns["covered"]
    for j, judge in enumerate(rows.judges):
        sel = (rows.judge == j) & ~np.isnan(covered)
        if sel.any():
            figs, _ = _report_board(rows, sel, covered, rows.columns["weight"], 0, 0)
            out[judge] = {name: figs[k].value for k, name in enumerate(rows.systems)}
    return out


#: Concord's claim-support verdict → ResearcherBench's (004 §4.2, App. E.5). The benchmark's
#: verifier answers 'yes' "if the facts or data in the claim can be found entirely or
#: partially within the reference content", 'no' only if *none* can be, 'unknown' when
#: verification is impossible; Concord's judge (and an imported ``claim-verdicts`` file)
#: says supported / partial / unsupported / unknown. A 'partial' claim is one whose facts
#: the citations support in part: the benchmark's 'yes', so supported here. Counting it not
#: supported (the strict reading of ScholarQA-CS2's citation recall, which asks for *full*
#: support) would lower every S_f below the benchmark's own; the strict figure is in the
#: cell's note whenever a report of the system has a partial verdict, so nothing is hidden.
RB_VERDICT = {"supported": rb.SUPPORTED, "partial": rb.SUPPORTED,
              "unsupported": rb.UNSUPPORTED, "unknown": rb.UNKNOWN}  # fmt: skip
#: The strict reading, for the note only.
RB_VERDICT_STRICT = RB_VERDICT | {"partial": rb.UNSUPPORTED}

NO_CLAIM_VERDICTS = (
    "The judge has no claim-support verdict in this study: run the claim-support task "
    "(\"Claim citation support\") with this judge, or import its verdicts "
    "(format claim-verdicts), to see ResearcherBench's faithfulness.")  # fmt: skip
NO_GROUNDEDNESS = (
    "Not computed: groundedness is cited claims / all claims of a report (004 eq. 4), and "
    "Concord's claims are only the cited spans (a span ending in citation markers, METHODS "
    "§1; an imported verdict is one of those claims), so the claims without a citation are "
    "never extracted and the denominator is unknown. A figure from the cited claims alone "
    "would be 1 by construction.")  # fmt: skip


def _faithfulness(rows: JudgeRows, claims: JudgeRows | None, judge: str, rounds: int,
                  seed: int) -> list:  # fmt: skip
    """Per system (codes of ``rows.systems``): the mean over its reports of S_f =
    N_supported / N_cited (004 eq. 4, :func:`judges.scoring.researcherbench.faithfulness`)
    from ``judge``'s claim verdicts, ``unknown`` left out (METHODS §4; a report whose
    verdicts are all unknown has no S_f) and ``partial`` counted supported
    (:data:`RB_VERDICT`), with the board's cluster bootstrap over questions."""
    n_systems = len(rows.systems)
    j = claims.judges.index(judge) if claims is not None and judge in claims.judges else None
    if j is None:
        return [figure(None, 0, undefined=NO_CLAIM_VERDICTS) for _ in range(n_systems)]
    sel = np.flatnonzero(claims.judge == j)
    per: dict[int, list] = {}  # report -> [(verdict, count)]
    where: dict[int, tuple[int, str]] = {}  # report -> (question, system name)
    for i in sel:
        r = int(claims.report[i])
        per.setdefault(r, []).append((str(claims.columns["verdict"][i]),
                                      int(claims.columns["n"][i])))  # fmt: skip
        where[r] = (int(claims.question[i]), claims.systems[claims.system[i]])
    index = {name: k for k, name in enumerate(rows.systems)}
    reports = [r for r in sorted(per) if where[r][1] in index]

    def scores(mapping):
        return np.array([rb.faithfulness(mapping.get(v) for v, c in per[r] for _ in range(c))
                         for r in reports], dtype=float)  # fmt: skip

    score, strict = scores(RB_VERDICT), scores(RB_VERDICT_STRICT)
    system = np.array([index[where[r][1]] for r in reports], dtype=int)
    question = np.array([where[r][0] for r in reports], dtype=int)
    undefined = ("No claim-support verdict of the judge on this system's reports, or only "
                 "'unknown' ones (left out, METHODS §4).")  # fmt: skip
    figs = system_means(score, system, question, n_systems, rounds, seed, undefined=undefined)
    for k, fig in enumerate(figs):
        mine = [i for i, s in enumerate(system) if s == k]
        counts = {v: sum(c for r in (reports[i] for i in mine) for w, c in per[r] if w == v)
                  for v in RB_VERDICT}  # fmt: skip
        notes = []
        if counts["partial"] and fig.value is not None:
            kept = strict[mine][~np.isnan(strict[mine])]
            notes.append(f"{counts['partial']} of the {sum(counts.values()) - counts['unknown']} "
                         "known verdicts are 'partial', counted supported (004 App. E.5); "
                         f"counted not supported: {float(kept.mean()):.4f}.")  # fmt: skip
        if counts["unknown"]:
            notes.append(f"{counts['unknown']} 'unknown' verdict(s) left out (METHODS §4).")
        if notes:
            figs[k] = replace(fig, note=" ".join(filter(None, (*notes, fig.note))))
    return figs


def _coverage_boards(rows: JudgeRows, claims: JudgeRows | None, rounds: int,
                     seed: int) -> list[dict]:  # fmt: skip
    out = []
    for j, judge in enumerate(rows.judges):
        mine = rows.judge == j
        covered, label = rows.columns["covered"], rows.columns["label"]
        for board, sel, value, weight, key in (
            (RESEARCHERBENCH, mine & ~np.isnan(covered), covered, rows.columns["weight"],
             "coverage"),
            (RESEARCHQA_COVERAGE, mine & ~np.isnan(label), label / 4 * 100, None,
             "coverage_percent"),
        ):  # fmt: skip
            if not sel.any():
                continue
            figs, n = _report_board(rows, sel, value, weight, rounds, seed)
            columns = {key: figs}
            if board is RESEARCHERBENCH:
                columns["faithfulness"] = _faithfulness(rows, claims, judge, rounds, seed)
                columns["groundedness"] = [figure(None, 0, undefined=NO_GROUNDEDNESS)
                                           for _ in rows.systems]  # fmt: skip
            out.append(_describe(board) | {"judge": judge,
                                           "rows": _rows(rows.systems, columns, n)})  # fmt: skip
    return out


def _score_boards(
    rows: JudgeRows, skip: set[tuple[str, str]], rounds: int, seed: int
) -> list[dict]:
    """ScholarQA-CS2's four metrics and overall when the judge has them, every other
    per-report score as it is (``skip``: (judge, metric) another board already shows)."""
    out = []
    metrics = rows.columns["metrics"]
    for j, judge in enumerate(rows.judges):
        mine = rows.judge == j
        have = [m for k, m in enumerate(metrics)
                if (mine & (rows.columns["metric"] == k)).any() and (judge, m) not in skip]  # fmt: skip
        sqa = [m for m in SCHOLARQA.metrics if m.key in have]
        other = [Metric(m, m.replace("_", " "), "mean over the system's reports")
                 for m in have if m not in {x.key for x in SCHOLARQA.metrics}]  # fmt: skip
        for board, chosen in ((SCHOLARQA, sqa), (JUDGE_SCORES, other)):
            if not chosen:
                continue
            columns, n = {}, [0] * len(rows.systems)
            for m in chosen:
                sel = mine & (rows.columns["metric"] == metrics.index(m.key))
                figs, counts = _report_board(rows, sel, rows.columns["value"], None, rounds, seed)
                columns[m.key] = figs
                n = [max(a, b) for a, b in zip(n, counts, strict=True)]
            out.append(_describe(board, chosen) | {"judge": judge,
                                                   "rows": _rows(rows.systems, columns, n,
                                                                 board.rank_by)})  # fmt: skip
    return out


def _deepscholar_boards(rows: JudgeRows, rounds: int, seed: int) -> list[dict]:
    out = []
    kinds, labels = rows.columns["kind"], rows.columns["label"]
    for j, judge in enumerate(rows.judges):
        mine = rows.judge == j
        columns, n, shown = {}, [0] * len(rows.systems), []
        for kind, (key, values) in DEEPSCHOLAR_VALUES.items():
            sel = mine & (kinds == kind)
            if not sel.any():
                continue
            value = np.array([values.get(str(v), np.nan) for v in labels], dtype=float)
            if kind == "nugget_support":
                figs, counts = _nugget_board(rows, sel, value, rounds, seed)
            else:
                figs, counts = _report_board(rows, sel, value, rows.columns["n"], rounds, seed)
            columns[key] = figs
            n = [max(a, b) for a, b in zip(n, counts, strict=True)]
            shown.append(next(m for m in DEEPSCHOLAR.metrics if m.key == key))
        if columns:
            out.append(_describe(DEEPSCHOLAR, shown) | {"judge": judge,
                                                        "rows": _rows(rows.systems, columns, n)})  # fmt: skip
    return out


def _nugget_board(rows: JudgeRows, sel, value, rounds, seed) -> tuple[list, list[int]]:
    """Nugget coverage per system: the mean over its reports of (nuggets labelled
    *supported*) / (the question's nuggets) — DeepScholar's ``strict_all_score`` (002 Table
    2; its evaluation gives a nugget whose assignment failed the label ``failed``, which
    counts in the denominator and never as support). A nugget the judge left unlabelled is
    therefore not supported, never dropped: a judge run that failed on some nuggets does not
    inflate coverage; the figure's note says how many nuggets had no label. A label of a
    unit outside the question's nuggets (written past the import's check) counts too."""
    n = rows.columns["n"][sel]
    keys, first, code = np.unique(rows.report[sel], return_index=True, return_inverse=True)
    code = code.ravel()
    supported = np.bincount(code, n * np.nan_to_num(value[sel]), keys.size)
    labelled = np.bincount(code, n, keys.size)
    question = rows.question[sel][first]
    system = rows.system[sel][first]
    nuggets = rows.columns["nuggets"]
    total = np.maximum([nuggets.get(int(q), 0) for q in question], labelled)
    figs = system_means(supported / total, system, question, len(rows.systems), rounds, seed)
    for k, fig in enumerate(figs):
        mine = system == k
        missing = int((total - labelled)[mine].sum())
        if missing and fig.value is not None:
            note = (f"{missing} of the {int(total[mine].sum())} nuggets of this system's "
                    f"{int(mine.sum())} report(s) have no label from the judge: counted not "
                    "supported (the denominator is the question's nuggets, as DeepScholar's "
                    "evaluation counts a nugget it failed to assign).")  # fmt: skip
            figs[k] = replace(fig, note=" ".join(filter(None, (note, fig.note))))
    return figs, [f.n for f in figs]


def _pairwise_boards(data: PairwiseData, rounds: int, seed: int) -> list[dict]:
    out = []
    for judge in data.judges:
        board = judge_board(data, judge, rounds, seed)
        if not board["rows"]:
            continue
        rows = []
        for r in board["rows"]:
            undefined = "; ".join(board["notes"]) or "No maximum-likelihood rating."
            elo = figure(r["rating"], r["battles"], undefined=undefined).as_dict()
            if rounds > 0 and elo["value"] is not None:
                elo |= {"low": r["low"], "high": r["high"]}
            why = bootstrap_why(rounds, elo["note"] if elo["value"] is None else None,
                                board["notes"])  # fmt: skip
            rows.append({"system": r["system"], "n": r["battles"], "figures": {
                "elo": elo,
                "bootstrap_median": figure(r["median"] if rounds > 0 else None, r["battles"],
                                           undefined=why).as_dict(),
                "bootstrap_sd": figure(r["sd"] if rounds > 0 else None, r["battles"],
                                       undefined=why).as_dict()}})  # fmt: skip
        described = _describe(RESEARCHQA_LEADERBOARD)
        described["notes"] += board["notes"]
        out.append(described | {"judge": judge, "rows": rows})
    return out


def analyse_scoreboard(coverage: JudgeRows, scores: JudgeRows, deepscholar: JudgeRows,
                       pairwise: PairwiseData | None, rounds: int = 1000,
                       seed: int = 0, claims: JudgeRows | None = None) -> dict:  # fmt: skip
    """Every benchmark board the study's judge results support, per judge.

    ``rounds``: bootstrap rounds of the intervals (0: point figures only, with a note);
    ``claims``: the judges' claim-support verdicts
    (:func:`metaeval.loaders.scoreboard.load_claim_results`), read by ResearcherBench's
    faithfulness (None: no verdict, the figure is null with a note saying what to run)."""
    boards = _coverage_boards(coverage, claims, rounds, seed)
    # the per-report coverage score a coverage import also stores is the board above
    skip = {(b["judge"], "rubric_coverage") for b in boards}
    boards += _score_boards(scores, skip, rounds, seed)
    boards += _deepscholar_boards(deepscholar, rounds, seed)
    if pairwise is not None:
        boards += _pairwise_boards(pairwise, rounds, seed)
    notes = [] if rounds > 0 else ["No intervals: the report's bootstrap is 0 rounds; ask "
                                   "for bootstrap rounds to see each figure's 95 % CI."]  # fmt: skip
    return {"rounds": rounds, "boards": boards, "notes": notes}
