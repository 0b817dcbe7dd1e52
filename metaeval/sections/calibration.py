"""Tie calibration: the judge tie rate and agreement at every candidate threshold, the
human tie rate and the threshold applied (METHODS §5)."""

from ..figures import figure_tables
from .base import Section, plotted, register, without_judge_scores

register(Section(
    absent=without_judge_scores,
    key="calibration", title="Tie calibration", template="metaeval/sections/calibration.html",
    compute=lambda analysis: analysis.figures.get("calibration"),
    tables=lambda result, entry: {"calibration": figure_tables(entry["figures"])["calibration"]},
    figures=(plotted("calibration-preference", lambda result: (result or {}).get("preference")),
             plotted("calibration-metric_wise", lambda result: (result or {}).get("metric_wise"))),
    payload=False, order=60,
))  # fmt: skip
