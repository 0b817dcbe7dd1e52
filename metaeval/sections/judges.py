"""Judges compared: every judge's agreement with the experts (seed 003 Table 5) and the
cross-judge Pearson matrix of overall scores (Fig. 10), from :mod:`metaeval.alignment`."""

from .. import plots
from ..figures import alignment_tables
from ..formatting import judge_table
from .base import FigureSpec, Section, register

register(Section(
    key="judges", title="Judges compared", template="metaeval/sections/judges.html",
    compute=lambda analysis: analysis.alignment,
    tables=lambda result, entry: alignment_tables(result),
    context=lambda result, entry: {"judge_table": judge_table(result)},
    figures=(FigureSpec("cross-judge", plots.FIGURE_TITLES["cross-judge"],
                        lambda result, entry: plots.build("cross-judge", entry)),),
    payload=False, order=40,
))  # fmt: skip
