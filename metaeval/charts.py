"""What each report figure shows, declared once; drawn by two renderers.

A :class:`Chart` is a figure's data and the kind of drawing it gets: ``kind`` names a
function of the same name in each renderer, and ``args`` are that function's arguments.

* :mod:`metaeval.svg` writes it as inline SVG text directly (pure Python, no
  matplotlib): the report page and the offline HTML, where drawing through matplotlib was
  85–95 % of an uncached page's time (issue 14, bench/README.md).
* :mod:`metaeval.plots` draws it with matplotlib: the downloadable SVG and PNG figures.

So a section declares a figure's data once (its ``FigureSpec.draw`` returns a
:class:`Chart`, usually through one helper per kind: :func:`intervals`, or
:func:`build` for the built-in figures) and both renderers draw that same data.

Pure: no Django, no matplotlib, no numpy.
"""

from __future__ import annotations

from dataclasses import dataclass, field

METRIC_LABELS = {
    "overall": "Overall",
    "answer_relevance": "Answer relev.",
    "answer_recall": "Answer recall",
    "citation_precision": "Citation prec.",
    "citation_recall": "Citation recall",
    "overall_citation": "Overall citation",
}
FIGURE_TITLES = {
    "calibration-preference": "Tie calibration: preference vs judge metrics",
    "calibration-metric_wise": "Tie calibration: metric-wise scores vs judge metrics",
    "confusion-preference": "Human preference vs judge decisions",
    "confusion-metric_wise": "Metric-wise human vs judge decisions",
    "annotator-judge": "Expert preference vs judge scores, per annotator (003 Fig. 3)",
    "annotator-self": "Expert preference vs own metric-wise scores (003 Fig. 4)",
    "system": "System ranking: win rates, human vs judge",
    "cross-judge": "Cross-judge Pearson r of overall scores (003 Fig. 10)",
}
KINDS = ("calibration", "confusion", "alignment", "system", "cross_judge", "intervals")


def label(metric: str) -> str:
    return METRIC_LABELS.get(metric, metric.replace("_", " "))


@dataclass(frozen=True)
class Chart:
    """One figure's data: ``kind`` (one of :data:`KINDS`, a function of each renderer)
    and the keyword arguments of that function."""

    kind: str
    args: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"chart kind: {self.kind!r} is not one of {', '.join(KINDS)}")


def calibration(curves: dict | None) -> Chart | None:
    """Judge tie rate and agreement against the threshold, one panel per metric."""
    return Chart("calibration", {"curves": curves}) if curves else None


def confusion(matrices: dict | None) -> Chart | None:
    """3×3 counts of human vs judge decisions, one panel per metric."""
    return Chart("confusion", {"matrices": matrices}) if matrices else None


def alignment(grid: dict | None, value: str = "tau_b") -> Chart | None:
    """Annotators × metrics heatmap of τ-b (or agreement): seed 003 Figs. 3 and 4."""
    if not grid or not grid.get("annotators") or not grid.get("metrics"):
        return None
    return Chart("alignment", {"grid": grid, "value": value})


def system(block: dict | None) -> Chart | None:
    """Per-system win rates, human and judge, systems in human order."""
    if not block or not block.get("systems"):
        return None
    return Chart("system", {"block": block})


def cross_judge(pearson: dict | None) -> Chart | None:
    """Judges × judges Pearson r (seed 003 Fig. 10). With one judge there is nothing to
    correlate (a 1 × 1 square of r = 1): no figure, the page says why."""
    if not pearson or len(pearson.get("judges") or []) < 2 or not pearson.get("matrix"):
        return None
    return Chart("cross_judge", {"pearson": pearson})


def intervals(rows, xlabel: str, title: str = "", xlim: tuple | None = (0, 1)) -> Chart | None:
    """One dot per figure with its bootstrap CI as a whisker (none when the figure has no
    interval); ``rows``: (label, figure dict with value/low/high) pairs, an undefined
    figure (``value`` null) is listed with "n/a". ``xlim`` None: fitted to the data."""
    rows = [(str(name), dict(f or {})) for name, f in rows]
    if not rows:
        return None
    return Chart("intervals", {"rows": rows, "xlabel": xlabel, "title": title,
                               "xlim": None if xlim is None else tuple(xlim)})  # fmt: skip


def build(name: str, entry: dict) -> Chart | None:
    """The built-in figure ``name`` (a key of :data:`FIGURE_TITLES`) of a report entry."""
    figures = entry.get("figures") or {}
    if name.startswith("calibration-"):
        return calibration(figures.get("calibration", {}).get(name.split("-", 1)[1]))
    if name.startswith("confusion-"):
        return confusion(figures.get("confusion", {}).get(name.split("-", 1)[1]))
    if name == "annotator-judge":
        return alignment(figures.get("annotator_judge"))
    if name == "annotator-self":
        return alignment(figures.get("annotator_self"))
    if name == "system":
        return system(entry["report"].get("system") or {})
    if name == "cross-judge":
        return cross_judge((entry.get("alignment") or {}).get("pearson"))
    raise KeyError(name)
