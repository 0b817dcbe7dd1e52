"""Leaderboard (001 §4.1): Bradley–Terry / Elo ratings from the experts' majority labels
and from each judge's pairwise verdicts, with bootstrap CIs, and the win probability each
rating gap implies (1505 vs 1244 → 0.818 is the paper's check). Computed with the
pairwise analysis (:mod:`.researchqa_pairwise`), once per selection."""

from ..analysis_schema import LeaderboardAnalysisSerializer
from ..stats.bradley_terry import elo_win_probability
from ..stats.figure import number
from . import _kit
from .base import FigureSpec, Section, register
from .researchqa_pairwise import result_of

COLUMNS = ["source", "system", "rating", "low", "high", "median", "sd", "battles", "points",
           "note"]  # fmt: skip


def _compute(analysis):
    full = _kit.loaded(analysis, "pairwise_result", lambda: result_of(analysis))
    if full is None:
        return None
    boards, probs = [], []
    for source, board in full["leaderboard"].items():
        boards.append({"source": source, "rows": board["rows"], "notes": board["notes"],
                       "resampled": board["resampled"], "rounds": board.get("rounds", 0),
                       "rounds_without_estimate": board.get("rounds_without_estimate", 0)})  # fmt: skip
        rows = [r for r in board["rows"] if r["rating"] is not None]
        for a, b in zip(rows, rows[1:], strict=False):
            probs.append({"source": source, "a": a["system"], "b": b["system"],
                          "probability": number(elo_win_probability(a["rating"], b["rating"]))})  # fmt: skip
    out = {"boards": boards, "win_probability": probs}
    if "human_signal" in full:  # the human board's battles (ANALYSES §0, §1)
        out["human_signal"] = full["human_signal"]
    return out


def _tables(result, entry):
    if not result:
        return {}
    rows = [{"source": b["source"], **r} for b in result["boards"] for r in b["rows"]]
    return {
        "leaderboard": (rows, COLUMNS),
        "leaderboard_win_probability": (result["win_probability"],
                                        ["source", "a", "b", "probability"]),
    }  # fmt: skip


def _draw(result, entry):
    if not result:
        return None
    rows = []
    for board in result["boards"]:
        for r in board["rows"]:
            rows.append((f"{board['source']}: {r['system']}",
                         {"value": r["rating"], "low": r["low"], "high": r["high"]}))  # fmt: skip
    return _kit.intervals_figure(rows, "Elo rating (Bradley–Terry), bootstrap CI", xlim=None)


def _text(result) -> str:
    if not result:
        return "leaderboard: no pairwise preference in this selection"
    return "\n".join(f"leaderboard {b['source']}: " + ", ".join(
        f"{r['system']} {r['rating']:.0f}" for r in b["rows"] if r["rating"] is not None)
        for b in result["boards"])  # fmt: skip


register(Section(
    key="leaderboard", title="Leaderboard (ResearchQA §4.1)", compute=_compute,
    template="metaeval/sections/analysis.html", tables=_tables,
    figures=(FigureSpec("leaderboard", "Elo ratings with bootstrap CIs", _draw),),
    text=_text, serializer=LeaderboardAnalysisSerializer, order=61,
))  # fmt: skip
