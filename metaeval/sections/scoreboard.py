"""Each benchmark's own scoreboard from its judge results alone (issue 26; docs/ANALYSES.md
§14): ResearcherBench's coverage S_c, faithfulness S_f and groundedness S_g (004 Table 3),
ResearchQA's coverage % and Bradley–Terry leaderboard (001 §3.3, §4.1), DeepScholar-Bench's metrics (002 Table 2) and
ScholarQA-CS2's judge metrics (003 §3), per judge and system with cluster-bootstrap CIs.
Shown first, before any expert label exists; the judge-vs-human sections follow it once
experts have labelled."""

import numpy as np

from judges.models import JudgePairwise

from ..analyses.scoreboard import analyse_scoreboard
from ..analysis_schema import ScoreboardAnalysisSerializer
from ..loaders.pairwise import load_pairwise
from ..loaders.scoreboard import (
    load_claim_results,
    load_coverage_results,
    load_deepscholar_results,
    load_score_results,
)
from . import _kit
from .base import FigureSpec, Section, register

#: its one table: every figure of every board
TABLE = "scoreboard"
COLUMNS = ["benchmark", "judge", "system", "metric", "value", "low", "high", "n", "note"]
NOT_APPLICABLE = (
    "The human signal does not apply: the scoreboards read the judges' "
    "results alone (docs/ANALYSES.md §14)."
)
#: metrics on the Elo scale, drawn apart from the shares
ELO = ("elo", "bootstrap_median", "bootstrap_sd")


def _compute(analysis):
    """Six queries (three loaders, the names of the scores' judges and systems, and one
    ``EXISTS`` for pairwise verdicts) whatever the study holds, a seventh for the nugget
    counts when a judge labelled nugget support, a seventh for the claim-support verdicts
    when a judge has binary rubric coverage (ResearcherBench's faithfulness); None when it
    has no judge result at all."""
    sid, options = analysis.study_id, analysis.options
    coverage = _kit.loaded(analysis, "judge_coverage_results",
                           lambda: load_coverage_results(sid, options))  # fmt: skip
    scores = load_score_results(sid, options)
    deepscholar = load_deepscholar_results(sid, options)
    pairwise = None
    if JudgePairwise.objects.filter(left__question__study_id=sid).exists():
        pairwise = _kit.loaded(analysis, "pairwise",
                               lambda: load_pairwise(sid, _kit.settings(analysis)))  # fmt: skip
    claims = None
    if (~np.isnan(coverage.columns["covered"])).any():  # a ResearcherBench board: S_f
        claims = load_claim_results(sid, options)
    result = analyse_scoreboard(coverage, scores, deepscholar, pairwise,
                                rounds=_kit.rounds(analysis), seed=options.seed,
                                claims=claims)  # fmt: skip
    if not result["boards"]:
        return None
    if options.human_signal is not None:  # never silently ignored (ANALYSES §0)
        result["human_signal"] = {"mode": options.human_signal, "applies": False,
                                  "note": NOT_APPLICABLE}  # fmt: skip
    return result


def _unavailable(analysis) -> str | None:
    """Why the scoreboard of a study with systems is not shown (None: a study without
    systems, whose protocol ranks none): no judge result (:func:`_kit.without_judge`),
    judge labels that are all question-level (DeepScholar's nugget and reference
    importance rank no system), or none of the systems and settings selected. A few
    queries, only when the scoreboard is None."""
    from annotation.models import System
    from annotation.models.deepscholar import REPORT_KINDS
    from judges.models import JudgeDeepScholarLabel

    sid = analysis.study_id
    if not System.objects.filter(study_id=sid).exists():
        return None
    no_judge = _kit.without_judge(sid)
    if no_judge:
        return no_judge
    kinds = sorted(set(JudgeDeepScholarLabel.objects.filter(question__study_id=sid)
                       .values_list("kind", flat=True).distinct()))  # fmt: skip
    if kinds and not set(kinds) & set(REPORT_KINDS):
        said = ", ".join(k.replace("_", " ") for k in kinds)
        wanted = ", ".join(k.replace("_", " ") for k in REPORT_KINDS)
        return (f"no judge has report-level labels ({wanted}) for this study: import them "
                f"or run a judge; its judges' labels ({said}) are per question and rank no "
                f"system.")  # fmt: skip
    return "no judge result for the systems and settings selected."


#: The note of a downloaded row without interval when the report asked for no rounds.
NO_ROUNDS = "no interval: bootstrap 0 rounds"


def interval_note(fig: dict, rounds: int) -> str | None:
    """A downloaded row's note: the figure's own, and why it has no interval when it has
    none. The page says "No intervals: … 0 rounds" once above the tables; a CSV, JSON or
    XLSX row with empty low and high said nothing (found by an admin)."""
    note = fig.get("note")
    if fig.get("low") is not None:
        return note
    if rounds <= 0:
        own = note if note and "bootstrap" not in note.lower() else None
        return f"{NO_ROUNDS}; {own}" if own else NO_ROUNDS
    return note or "no interval"


def _long_rows(result) -> list[dict]:
    rounds = result.get("rounds", 0)
    return [{"benchmark": b["benchmark"], "judge": b["judge"], "system": r["system"],
             "metric": m, **_kit.cells(fig), "note": interval_note(fig, rounds)}
            for b in result["boards"] for r in b["rows"]
            for m, fig in r["figures"].items()]  # fmt: skip


def _tables(result, entry):
    if not result:
        return {}
    return {TABLE: (_long_rows(result), COLUMNS)}


def _draw(elo: bool):
    def draw(result, entry):
        if not result:
            return None
        rows = []
        for b in result["boards"]:
            for r in b["rows"]:
                for m, fig in r["figures"].items():
                    if (m == "elo") if elo else (m not in ELO):
                        fig = fig if m != "coverage_percent" else _share(fig)
                        rows.append((f"{b['judge']}: {r['system']} {m}", fig))
        if not rows:
            return None
        if elo:
            return _kit.intervals_figure(rows, "Elo rating (Bradley–Terry), bootstrap CI",
                                         xlim=None)  # fmt: skip
        return _kit.intervals_figure(rows, "judge score per system (coverage % as a share)")

    return draw


def _share(fig: dict) -> dict:
    return {k: (v / 100 if k in ("value", "low", "high") and v is not None else v)
            for k, v in fig.items()}  # fmt: skip


def _number(value, key: str) -> str:
    """Elo as a whole number; every other figure to 4 decimals, as the papers print them
    (ResearcherBench's 0.4663)."""
    if value is None:
        return "—"
    return f"{value:.0f}" if key in ELO else f"{value:.4f}"


def _context(result, entry) -> dict:
    """Each board as the paper prints it: a row per system, a column per metric, each cell
    the figure with its interval."""
    boards = []
    for b in (result or {}).get("boards", []):
        keys = [m["key"] for m in b["metrics"]]
        rows = []
        for r in b["rows"]:
            cells = []
            for k in keys:
                fig = r["figures"][k]
                ci = (None if fig["low"] is None else
                      f"[{_number(fig['low'], k)}, {_number(fig['high'], k)}]")  # fmt: skip
                cells.append({"raw": fig["value"], "text": _number(fig["value"], k), "ci": ci,
                              "note": fig["note"]})  # fmt: skip
            rows.append({"system": r["system"], "n": r["n"], "cells": cells})
        boards.append(b | {"table_rows": rows})
    return {"scoreboard_boards": boards}


def _text(result) -> str:
    if not result:
        return "scoreboard: no judge result in this selection"
    lines = []
    for b in result["boards"]:
        lines.append(f"scoreboard {b['title']} ({b['paper']}), judge {b['judge']}:")
        for r in b["rows"]:
            parts = []
            for m, fig in r["figures"].items():
                v = "n/a" if fig["value"] is None else f"{fig['value']:.4f}"
                ci = "" if fig["low"] is None else f" [{fig['low']:.4f}, {fig['high']:.4f}]"
                parts.append(f"{m} {v}{ci}")
            lines.append(f"  {r['system']} (n={r['n']}): " + ", ".join(parts))
    lines += result["notes"]
    return "\n".join(lines)


register(Section(
    key="scoreboard", title="Benchmark scoreboards from the judges' results",
    compute=_compute, template="metaeval/sections/scoreboard.html", tables=_tables,
    figures=(FigureSpec("scoreboard", "Judge scores per system", _draw(False)),
             FigureSpec("scoreboard-elo", "Judge leaderboard (Elo)", _draw(True))),
    context=_context, text=_text, serializer=ScoreboardAnalysisSerializer, order=5,
    unavailable=_unavailable, table_names=(TABLE,),
    # the judges' results alone: ties, thresholds, calibration, the judge chosen… change
    # nothing here (pairwise verdicts are read per setting)
    reads=("settings", "systems", "exclude_systems", "bootstrap", "seed", "human_signal"),
))  # fmt: skip
