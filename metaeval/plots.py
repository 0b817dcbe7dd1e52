"""The report's figures, drawn server-side with matplotlib (Agg) as SVG or PNG.

Every function takes the figure data of :mod:`metaeval.figures`, the report dict or the
judge alignment, and draws it; nothing is computed here. Figures are drawn for print:
dark text on white, text kept as text in the SVG, values written in the heatmap cells,
and a colour map (RdBu) that stays readable in greyscale thanks to those numbers.

``matplotlib.figure.Figure`` is used directly (not pyplot): no global state, so pages
served from several threads can draw at once.
"""

from __future__ import annotations

import io
import math
import re
from typing import TYPE_CHECKING

from . import charts
from .charts import FIGURE_TITLES, METRIC_LABELS, label

__all__ = ["FIGURE_TITLES", "METRIC_LABELS", "label", "draw", "build", "render"]

if TYPE_CHECKING:
    from matplotlib.figure import Figure


class _LazyMatplotlib:
    """matplotlib, imported (with the Agg backend) on the first figure drawn, not when the
    URLconf loads: it is most of a process's start-up time (every ``manage.py`` command,
    every web and worker process), and most processes never draw."""

    def __getattr__(self, name):
        import matplotlib

        matplotlib.use("Agg")
        return getattr(matplotlib, name)


def Figure(*args, **kwargs):  # noqa: N802 - stands for matplotlib.figure.Figure
    from matplotlib.figure import Figure as MatplotlibFigure

    return MatplotlibFigure(*args, **kwargs)


matplotlib = _LazyMatplotlib()

FONT = {
    "font.family": "DejaVu Sans",
    "font.size": 9,
    "text.color": "#111111",
    "axes.labelcolor": "#111111",
    "axes.edgecolor": "#333333",
    "xtick.color": "#111111",
    "ytick.color": "#111111",
    "svg.fonttype": "none",  # text stays text: selectable, searchable, sharp in print
    "svg.hashsalt": "concord",  # stable ids: the same figure gives the same SVG
}
HUMAN = "#1f4e99"
JUDGE = "#b3541e"


def _figure(width: float, height: float) -> Figure:
    with matplotlib.rc_context(FONT):
        fig = Figure(figsize=(width, height), facecolor="white")
    return fig


def _grid(n: int, cols: int = 3) -> tuple[int, int]:
    cols = min(cols, max(n, 1))
    return math.ceil(max(n, 1) / cols), cols


def calibration(curves: dict) -> Figure | None:
    """Judge tie rate (and agreement) against the threshold, one panel per metric; the
    human tie rate and the threshold applied are marked."""
    if not curves:
        return None
    rows, cols = _grid(len(curves))
    # each panel's legend sits below its axes (inside, it covered the curves)
    fig = _figure(3.2 * cols, 3.4 * rows)
    with matplotlib.rc_context(FONT):
        axes = fig.subplots(rows, cols, squeeze=False)
        for ax in axes.flat[len(curves) :]:
            ax.set_visible(False)
        for ax, (metric, c) in zip(axes.flat, curves.items(), strict=False):
            ax.step(c["thresholds"], c["judge_tie_rate"], where="post", color=JUDGE,
                    label="judge tie rate")  # fmt: skip
            ax.step(c["thresholds"], c["agreement"], where="post", color="#555555",
                    linestyle=":", label="agreement")  # fmt: skip
            if c["human_tie_rate"] is not None:
                ax.axhline(c["human_tie_rate"], color=HUMAN, linestyle="--",
                           label=f"human tie rate {c['human_tie_rate']:.2f}")  # fmt: skip
            ax.axvline(c["threshold"], color="#111111", linewidth=0.8)
            if c["judge_tie_rate_at_threshold"] is not None:
                ax.plot([c["threshold"]], [c["judge_tie_rate_at_threshold"]], "o",
                        color=JUDGE, label=f"t = {c['threshold']:.3g}")  # fmt: skip
            ax.set_ylim(-0.02, 1.02)
            ax.set_title(f"{label(metric)} (n={c['n']})")
            ax.set_xlabel("threshold t")
            ax.set_ylabel("rate")
            ax.legend(fontsize=7, frameon=False, loc="upper center", ncol=2,
                      bbox_to_anchor=(0.5, -0.28), borderaxespad=0)  # fmt: skip
        fig.tight_layout()
    return fig


def _heatmap(ax, values, row_labels, col_labels, vmin, vmax, cmap, fmt):
    import numpy as np

    data = np.array([[np.nan if v is None else v for v in row] for row in values], dtype=float)
    rows, cols = data.shape
    # vector cells (pcolormesh), not an embedded raster (imshow): sharp at any zoom and print
    image = ax.pcolormesh(np.arange(cols + 1) - 0.5, np.arange(rows + 1) - 0.5,
                          np.ma.masked_invalid(data), cmap=cmap, vmin=vmin, vmax=vmax,
                          edgecolors="white", linewidth=0.5)  # fmt: skip
    ax.set_xlim(-0.5, cols - 0.5)
    ax.set_ylim(rows - 0.5, -0.5)
    ax.set_xticks(range(len(col_labels)), col_labels, rotation=30, ha="right")
    ax.set_yticks(range(len(row_labels)), row_labels)
    for i in range(data.shape[0]):
        for j in range(data.shape[1]):
            v = data[i, j]
            if np.isnan(v):
                ax.text(j, i, "–", ha="center", va="center", color="#111111")
                continue
            shade = (v - vmin) / (vmax - vmin) if vmax > vmin else 0.5
            dark = (
                cmap in ("RdBu", "RdBu_r")
                and abs(shade - 0.5) > 0.3
                or (cmap == "Blues" and shade > 0.6)
            )
            ax.text(j, i, fmt(v), ha="center", va="center",
                    color="white" if dark else "#111111")  # fmt: skip
    return image


def _colorbar(fig, image, ax, text: str):
    bar = fig.colorbar(image, ax=ax, label=text)
    if bar.solids is not None:
        bar.solids.set_rasterized(False)  # vector, so the SVG embeds no image


def confusion(matrices: dict) -> Figure | None:
    """3×3 counts of human vs judge decisions, one panel per metric."""
    if not matrices:
        return None
    rows, cols = _grid(len(matrices))
    fig = _figure(3.0 * cols, 2.8 * rows)
    with matplotlib.rc_context(FONT):
        axes = fig.subplots(rows, cols, squeeze=False)
        for ax in axes.flat[len(matrices) :]:
            ax.set_visible(False)
        for ax, (metric, cm) in zip(axes.flat, matrices.items(), strict=False):
            top = max(max(r) for r in cm["matrix"]) or 1
            _heatmap(ax, cm["matrix"], cm["labels"], cm["labels"], 0, top, "Blues",
                     lambda v: f"{int(v)}")  # fmt: skip
            ax.set_title(f"{label(metric)} (t={cm['threshold']:.3g})")
            ax.set_xlabel("judge")
            ax.set_ylabel("human")
        fig.tight_layout()
    return fig


def alignment(grid: dict, value: str = "tau_b") -> Figure | None:
    """Annotators × metrics heatmap of τ-b (or agreement) — seed 003 Figs. 3 and 4."""
    if not grid or not grid.get("annotators") or not grid.get("metrics"):
        return None
    n_rows, n_cols = len(grid["annotators"]), len(grid["metrics"])
    fig = _figure(1.2 + 1.1 * n_cols, 1.2 + 0.45 * n_rows)
    with matplotlib.rc_context(FONT):
        ax = fig.subplots()
        lo, hi = (-1, 1) if value == "tau_b" else (0, 1)
        image = _heatmap(ax, grid[value], grid["annotators"],
                         [label(m) for m in grid["metrics"]], lo, hi, "RdBu",
                         lambda v: f"{v:.2f}")  # fmt: skip
        _colorbar(fig, image, ax, "Kendall τ-b" if value == "tau_b" else "agreement")
        fig.tight_layout()
    return fig


def system(block: dict) -> Figure | None:
    """Per-system win rates, human and judge, systems in human order."""
    systems = block.get("systems") or []
    if not systems:
        return None
    fig = _figure(6.0, 0.9 + 0.38 * len(systems))
    with matplotlib.rc_context(FONT):
        ax = fig.subplots()
        ys = list(range(len(systems)))[::-1]
        names = [s["system"] for s in systems]
        for key, color, marker, name in (("human_win_rate", HUMAN, "o", "human"),
                                         ("judge_win_rate", JUDGE, "s", "judge")):  # fmt: skip
            xs = [s.get(key) for s in systems]
            pts = [(x, y) for x, y in zip(xs, ys, strict=True) if x is not None]
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker, color=color, label=name)
        ax.set_yticks(ys, names)
        ax.set_xlim(0, 1)
        ax.set_xlabel("win rate (win 1, tie ½, loss 0)")
        tau = block.get("tau_b")
        ax.set_title("system τ-b = " + ("–" if tau is None else f"{tau:.2f}"))
        ax.grid(axis="x", color="#dddddd")
        ax.legend(frameon=False, loc="lower right")
        fig.tight_layout()
    return fig


def cross_judge(pearson: dict | None) -> Figure | None:
    """Judges × judges Pearson r of their overall scores (seed 003 Fig. 10). With one judge
    there is nothing to correlate (a 1 × 1 square of r = 1): no figure, the page says why."""
    if not pearson or len(pearson.get("judges") or []) < 2 or not pearson.get("matrix"):
        return None
    names = pearson["judges"]
    fig = _figure(1.8 + 0.9 * len(names), 1.4 + 0.6 * len(names))
    with matplotlib.rc_context(FONT):
        ax = fig.subplots()
        image = _heatmap(ax, pearson["matrix"], names, names, -1, 1, "RdBu",
                         lambda v: f"{v:.2f}")  # fmt: skip
        _colorbar(fig, image, ax, "Pearson r")
        fig.tight_layout()
    return fig


def intervals(rows, xlabel: str, title: str = "", xlim: tuple | None = (0, 1)) -> Figure | None:
    """One dot per figure with its bootstrap CI as a whisker (none drawn when the report
    has no interval); an undefined figure (``value`` null) is listed with "n/a"."""
    rows = [(name, f or {}) for name, f in rows]
    if not rows:
        return None
    fig = _figure(6.0, 0.9 + 0.36 * len(rows))
    with matplotlib.rc_context(FONT):
        ax = fig.subplots()
        ys = list(range(len(rows)))[::-1]
        for y, (_, f) in zip(ys, rows, strict=True):
            v = f.get("value")
            if v is None:
                ax.text(0.01, y, "n/a", va="center", transform=ax.get_yaxis_transform(),
                        color="#888888")  # fmt: skip
                continue
            lo, hi = f.get("low"), f.get("high")
            if lo is not None and hi is not None:
                ax.plot([lo, hi], [y, y], "-", color=JUDGE, linewidth=1.6)
            ax.plot([v], [y], "o", color=HUMAN)
        ax.set_yticks(ys, [name for name, _ in rows])
        if xlim is not None:
            ax.set_xlim(*xlim)
        ax.set_xlabel(xlabel)
        if title:
            ax.set_title(title)
        ax.grid(axis="x", color="#dddddd")
        fig.tight_layout()
    return fig


def draw(chart: charts.Chart | None) -> Figure | None:
    """``chart`` (:mod:`metaeval.charts`) drawn with matplotlib: the function of its kind."""
    if chart is None:
        return None
    return globals()[chart.kind](**chart.args)


def build(name: str, entry: dict) -> Figure | None:
    """The figure ``name`` (a key of :data:`FIGURE_TITLES`) of a cached report entry."""
    return draw(charts.build(name, entry))


def render(fig: Figure, fmt: str) -> bytes:
    """``fig`` as SVG or PNG bytes (PNG at 200 dpi for print)."""
    buf = io.BytesIO()
    with matplotlib.rc_context(FONT):
        if fmt == "svg":
            fig.savefig(buf, format="svg", facecolor="white", metadata={"Date": None})
        elif fmt == "png":
            fig.savefig(buf, format="png", dpi=200, facecolor="white")
        else:
            raise ValueError(f"format: {fmt!r} is not svg or png")
    return buf.getvalue()


_PROLOGUE = re.compile(r"^.*?(?=<svg)", re.S)
_METADATA = re.compile(r"<metadata>.*?</metadata>\s*", re.S)
_NAMESPACES = re.compile(r'\s+xmlns(:xlink)?="[^"]*"')


_STYLE_ATTR = re.compile(r'\sstyle="([^"]*)"')
_STYLE_ELEMENT = re.compile(r"<style[^>]*>\*\{([^}]*)\}</style>")


def _presentation_attributes(declarations: str) -> str:
    """``fill: #fff; stroke-width: 0.8`` -> `` fill="#fff" stroke-width="0.8"``."""
    out = []
    for declaration in declarations.split(";"):
        name, colon, value = declaration.partition(":")
        if colon and name.strip():
            out.append(f' {name.strip()}="{value.strip()}"')
    return "".join(out)


def inline_svg(svg: bytes | str) -> str:
    """An SVG for inlining in HTML: no XML prologue, DOCTYPE, metadata or namespace
    URIs (HTML parsers do not need them), so the page names no outside address.

    The page's content security policy allows no inline style (``style-src 'self'``), so
    matplotlib's ``style="..."`` declarations become SVG presentation attributes (which CSP
    does not govern; every property matplotlib writes is one) and its one ``<style>`` rule
    (``*{stroke-linejoin: round; ...}``) becomes attributes of the root, inherited below."""
    text = svg.decode("utf-8") if isinstance(svg, bytes) else svg
    text = _METADATA.sub("", _PROLOGUE.sub("", text, count=1))
    defaults = _STYLE_ELEMENT.search(text)
    text = _STYLE_ELEMENT.sub("", text)
    text = _STYLE_ATTR.sub(lambda m: _presentation_attributes(m.group(1)), text)
    head, sep, rest = text.partition(">")
    if defaults:
        head += _presentation_attributes(defaults.group(1))
    return _NAMESPACES.sub("", head) + sep + rest.replace("xlink:href", "href")


def figure_svgs(entry: dict) -> dict[str, str]:
    """Every figure of ``entry`` that has data, as inline SVG text, by name."""
    out = {}
    for name in FIGURE_TITLES:
        fig = build(name, entry)
        if fig is not None:
            out[name] = inline_svg(render(fig, "svg"))
    return out
