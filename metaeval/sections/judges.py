"""Judges compared: every judge's agreement with the experts (seed 003 Table 5) and the
cross-judge Pearson matrix of overall scores (Fig. 10), from :mod:`metaeval.alignment`."""

from ..figures import alignment_tables
from ..formatting import judge_table
from .base import Section, plotted, register, without_comparisons

register(Section(
    absent=without_comparisons,
    key="judges", title="Judges compared", template="metaeval/sections/judges.html",
    compute=lambda analysis: analysis.alignment,
    tables=lambda result, entry: alignment_tables(result),
    context=lambda result, entry: {"judge_table": judge_table(result)},
    figures=(plotted("cross-judge", lambda result: (result or {}).get("pearson")),),
    payload=False, order=40,
))  # fmt: skip
