"""Human vs judge decisions: the 3 × 3 counts at the thresholds applied."""

from ..figures import figure_tables
from .base import Section, plotted, register, without_judge_scores

register(Section(
    absent=without_judge_scores,
    key="confusion", title="Human vs judge decisions",
    template="metaeval/sections/confusion.html",
    compute=lambda analysis: analysis.figures.get("confusion"),
    tables=lambda result, entry: {"confusion": figure_tables(entry["figures"])["confusion"]},
    figures=(plotted("confusion-preference", lambda result: (result or {}).get("preference")),
             plotted("confusion-metric_wise", lambda result: (result or {}).get("metric_wise"))),
    payload=False, order=70,
))  # fmt: skip
