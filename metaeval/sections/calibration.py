"""Tie calibration: the judge tie rate and agreement at every candidate threshold, the
human tie rate and the threshold applied (METHODS §5)."""

from .. import plots
from ..figures import figure_tables
from .base import FigureSpec, Section, register

register(Section(
    key="calibration", title="Tie calibration", template="metaeval/sections/calibration.html",
    compute=lambda analysis: analysis.figures.get("calibration"),
    tables=lambda result, entry: {"calibration": figure_tables(entry["figures"])["calibration"]},
    figures=tuple(
        FigureSpec(name, plots.FIGURE_TITLES[name],
                   lambda result, entry, name=name: plots.build(name, entry))
        for name in ("calibration-preference", "calibration-metric_wise")
    ),
    payload=False, order=60,
))  # fmt: skip
