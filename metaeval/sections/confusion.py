"""Human vs judge decisions: the 3 × 3 counts at the thresholds applied."""

from .. import plots
from ..figures import figure_tables
from .base import FigureSpec, Section, register

register(Section(
    key="confusion", title="Human vs judge decisions",
    template="metaeval/sections/confusion.html",
    compute=lambda analysis: analysis.figures.get("confusion"),
    tables=lambda result, entry: {"confusion": figure_tables(entry["figures"])["confusion"]},
    figures=tuple(
        FigureSpec(name, plots.FIGURE_TITLES[name],
                   lambda result, entry, name=name: plots.build(name, entry))
        for name in ("confusion-preference", "confusion-metric_wise")
    ),
    payload=False, order=70,
))  # fmt: skip
