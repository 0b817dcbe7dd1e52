"""The report's figures as inline SVG text, written directly: the page's renderer.

Each public function draws one kind of :class:`metaeval.charts.Chart` (the same kinds and
arguments :mod:`metaeval.plots` draws with matplotlib for the downloads). Drawing through
matplotlib was 85–95 % of an uncached report page (issue 14; bench/README.md); this
module writes the same figures as text in a few milliseconds, and imports neither
matplotlib nor numpy, so the page path never loads them.

What every figure carries: ``role="img"`` with a ``<title>`` (the figure's title) and a
``<desc>`` (what it shows) that screen readers announce; axis labels and tick labels as
text; each data point a ``circle.point`` (``data-value``) with its own ``<title>``
tooltip, each interval a ``line.whisker`` (``data-low``/``data-high``), each heatmap cell
a ``rect.cell`` (``data-value``) with its value written in it. Presentation attributes
only, no ``style``: the page's content security policy allows no inline style. No
namespace URI: the SVG is inlined in HTML, which needs none (the page names no outside
address).

Text widths are estimated (DejaVu Sans, ≈ 0.6 em per character), which is enough to lay
out margins; ``viewBox`` lets the page scale the figure to its column.
"""

from __future__ import annotations

import math
from html import escape

import numpy as np

from .charts import Chart, label

FONT = 11  # px, tick and label text
TITLE_FONT = 12
CHAR = 0.6  # estimated width of a character, in em
INK = "#111111"
GRID = "#dddddd"
AXIS = "#333333"
HUMAN = "#1f4e99"
JUDGE = "#b3541e"
GREY = "#555555"
# ColorBrewer anchors of matplotlib's colour maps of the same names, interpolated linearly
CMAPS = {
    "Blues": ("#f7fbff", "#deebf7", "#c6dbef", "#9ecae1", "#6baed6", "#4292c6", "#2171b5",
              "#08519c", "#08306b"),
    "RdBu": ("#67001f", "#b2182b", "#d6604d", "#f4a582", "#fddbc7", "#f7f7f7", "#d1e5f0",
             "#92c5de", "#4393c3", "#2166ac", "#053061"),
}  # fmt: skip


# ----------------------------------------------------------------------------- primitives


def _f(x: float) -> str:
    """A coordinate: two decimals, no trailing zeros (short, deterministic text)."""
    s = f"{round(x, 2):g}"
    return "0" if s == "-0" else s


def _v(x) -> str:
    """A data value for a ``data-*`` attribute: the number as Python writes it."""
    return "" if x is None else repr(float(x))


def _t(text) -> str:
    return escape(str(text), quote=True)


def text_width(text: str, size: float = FONT) -> float:
    return len(str(text)) * size * CHAR


def _text(x, y, text, *, anchor="start", size=FONT, fill=INK, weight=None, rotate=None,
          baseline="middle", cls=None) -> str:  # fmt: skip
    attrs = [f'x="{_f(x)}" y="{_f(y)}"', f'font-size="{size}"', f'fill="{fill}"']
    if anchor != "start":
        attrs.append(f'text-anchor="{anchor}"')
    if baseline:
        attrs.append(f'dominant-baseline="{baseline}"')
    if weight:
        attrs.append(f'font-weight="{weight}"')
    if rotate is not None:
        attrs.append(f'transform="rotate({rotate} {_f(x)} {_f(y)})"')
    if cls:
        attrs.append(f'class="{cls}"')
    return f"<text {' '.join(attrs)}>{_t(text)}</text>"


def _line(x1, y1, x2, y2, stroke=AXIS, width=1.0, dash=None, cls=None, extra="") -> str:
    dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
    cls_attr = f' class="{cls}"' if cls else ""
    return (f'<line x1="{_f(x1)}" y1="{_f(y1)}" x2="{_f(x2)}" y2="{_f(y2)}" stroke="{stroke}" '
            f'stroke-width="{width}"{dash_attr}{cls_attr}{extra}/>')  # fmt: skip


def _point(x, y, value, tip, fill=HUMAN, shape="circle", extra="") -> str:
    """A data point with its tooltip; ``circle.point`` (or ``rect.point``) with its value."""
    data = f' class="point" data-value="{_v(value)}"{extra}'
    if shape == "square":
        return (f'<rect x="{_f(x - 3.5)}" y="{_f(y - 3.5)}" width="7" height="7" fill="{fill}"'
                f"{data}><title>{_t(tip)}</title></rect>")  # fmt: skip
    return (f'<circle cx="{_f(x)}" cy="{_f(y)}" r="3.5" fill="{fill}"{data}>'
            f"<title>{_t(tip)}</title></circle>")  # fmt: skip


def _fmt(x: float) -> str:
    return f"{x:.3g}"


def nice_ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    """Round tick values (1, 2 or 5 × 10^k apart) covering [lo, hi]."""
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
        return [lo]
    raw = (hi - lo) / max(n, 1)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    first = math.ceil(lo / step - 1e-9) * step
    ticks, k = [], 0
    while first + k * step <= hi + step * 1e-9:
        ticks.append(round(first + k * step, 12))
        k += 1
    return ticks


def _tick_label(v: float, ticks: list[float]) -> str:
    step = abs(ticks[1] - ticks[0]) if len(ticks) > 1 else 1.0
    decimals = max(0, -math.floor(math.log10(step) + 1e-9)) if step > 0 else 0
    if step > 0 and abs(step * 10**decimals - round(step * 10**decimals)) > 1e-6:
        decimals += 1
    return f"{v:.{decimals}f}"


class Scale:
    """A linear map of data [lo, hi] to pixels [a, b]."""

    def __init__(self, lo: float, hi: float, a: float, b: float):
        if hi <= lo:
            lo, hi = lo - 0.5, hi + 0.5
        self.lo, self.hi, self.a, self.b = lo, hi, a, b

    def __call__(self, x: float) -> float:
        return self.a + (x - self.lo) / (self.hi - self.lo) * (self.b - self.a)


def _fitted(values: list[float], pad: float = 0.05) -> tuple[float, float]:
    """A data range with margins (matplotlib's autoscale, roughly)."""
    if not values:
        return 0.0, 1.0
    lo, hi = min(values), max(values)
    if hi == lo:
        return lo - 0.5, hi + 0.5
    margin = (hi - lo) * pad
    return lo - margin, hi + margin


def _x_axis(sx: Scale, y: float, top: float, xlabel: str, grid: bool = True) -> list[str]:
    """Bottom axis with ticks, tick labels, vertical grid lines and its label."""
    out = [_line(sx.a, y, sx.b, y, AXIS, 0.8)]
    ticks = [t for t in nice_ticks(sx.lo, sx.hi) if sx.lo - 1e-12 <= t <= sx.hi + 1e-12]
    for t in ticks:
        x = sx(t)
        if grid:
            out.append(_line(x, top, x, y, GRID, 0.8))
        out.append(_line(x, y, x, y + 4, AXIS, 0.8))
        out.append(_text(x, y + 7, _tick_label(t, ticks), anchor="middle", baseline="hanging",
                         cls="tick"))  # fmt: skip
    if xlabel:
        out.append(_text((sx.a + sx.b) / 2, y + 24, xlabel, anchor="middle", baseline="hanging",
                         cls="axis-label"))  # fmt: skip
    return out


def _y_axis(sy: Scale, x: float, ylabel: str) -> list[str]:
    out = [_line(x, sy.a, x, sy.b, AXIS, 0.8)]
    ticks = [t for t in nice_ticks(min(sy.lo, sy.hi), max(sy.lo, sy.hi))
             if sy.lo - 1e-12 <= t <= sy.hi + 1e-12]  # fmt: skip
    for t in ticks:
        y = sy(t)
        out.append(_line(x - 4, y, x, y, AXIS, 0.8))
        out.append(_text(x - 6, y, _tick_label(t, ticks), anchor="end", cls="tick"))
    if ylabel:
        mid = (sy.a + sy.b) / 2
        out.append(_text(x - 34, mid, ylabel, anchor="middle", rotate=-90, cls="axis-label"))
    return out


def _document(width: float, height: float, body: list[str], title: str, desc: str,
              kind: str, name: str = "") -> str:  # fmt: skip
    """The ``<svg>`` element: accessible name and description, white background."""
    ident = f"svg-{name or kind}"
    return (
        f'<svg viewBox="0 0 {_f(width)} {_f(height)}" width="{_f(width)}" height="{_f(height)}" '
        f'role="img" aria-labelledby="{ident}-title {ident}-desc" class="chart chart-{kind}" '
        f'font-family="DejaVu Sans, Verdana, sans-serif" stroke-linecap="butt">'
        f'<title id="{ident}-title">{_t(title)}</title><desc id="{ident}-desc">{_t(desc)}</desc>'
        f'<rect class="background" x="0" y="0" width="{_f(width)}" height="{_f(height)}" '
        f'fill="#ffffff"/>' + "".join(body) + "</svg>"
    )


def _colour(cmap: str, shade: float) -> str:
    """``shade`` in [0, 1] on the colour map ``cmap`` (linear between its anchors)."""
    anchors = CMAPS[cmap]
    shade = min(max(shade, 0.0), 1.0) * (len(anchors) - 1)
    i = min(int(shade), len(anchors) - 2)
    frac = shade - i
    a, b = anchors[i], anchors[i + 1]
    rgb = [round(int(a[k : k + 2], 16) * (1 - frac) + int(b[k : k + 2], 16) * frac)
           for k in (1, 3, 5)]  # fmt: skip
    return "#" + "".join(f"{c:02x}" for c in rgb)


def _legend(
    x: float, y: float, items: list[tuple[str, str]], width: float
) -> tuple[list[str], float]:
    """Legend entries ``(swatch svg at (0, 0), text)`` laid out in rows from (x, y);
    returns the elements and the height used."""
    out, cx, cy = [], x, y
    for swatch, text in items:
        w = 22 + text_width(text, FONT - 1) + 12
        if cx > x and cx + w > x + width:
            cx, cy = x, cy + 15
        out.append(f'<g transform="translate({_f(cx)} {_f(cy)})">{swatch}'
                   f"{_text(20, 0, text, size=FONT - 1)}</g>")  # fmt: skip
        cx += w
    return out, cy - y + 15


def _swatch_line(stroke, dash=None) -> str:
    return _line(0, 0, 16, 0, stroke, 1.5, dash)


def _swatch_point(fill, shape="circle") -> str:
    if shape == "square":
        return f'<rect x="4.5" y="-3.5" width="7" height="7" fill="{fill}"/>'
    return f'<circle cx="8" cy="0" r="3.5" fill="{fill}"/>'


# ----------------------------------------------------------------------------- the kinds


def intervals(rows, xlabel: str, title: str = "", xlim=(0, 1), *, name: str = "",
              caption: str = "") -> str | None:  # fmt: skip
    """Dot and whisker per figure (value, bootstrap CI); "n/a" for an undefined one."""
    rows = [(str(n), f or {}) for n, f in rows]
    if not rows:
        return None
    left = 12 + min(max(text_width(n) for n, _ in rows), 300)
    width, plot_w = max(560.0, left + 340), None
    plot_w = width - left - 24
    top = 30 if title else 12
    row_h = 24
    bottom = top + row_h * len(rows)
    if xlim is None:
        values = [v for _, f in rows for v in (f.get("value"), f.get("low"), f.get("high"))
                  if v is not None]  # fmt: skip
        lo, hi = _fitted([float(v) for v in values])
    else:
        lo, hi = float(xlim[0]), float(xlim[1])
    sx = Scale(lo, hi, left, left + plot_w)
    body = _x_axis(sx, bottom, top, xlabel)
    body.append(_line(left, top, left, bottom, AXIS, 0.8))
    if title:
        body.append(_text(left + plot_w / 2, 14, title, anchor="middle", size=TITLE_FONT))
    described = []
    for i, (row_label, f) in enumerate(rows):
        y = top + row_h * (i + 0.5)
        body.append(_text(left - 6, y, row_label, anchor="end", cls="row-label"))
        v = f.get("value")
        if v is None:
            body.append(_text(left + 4, y, "n/a", fill="#888888", cls="undefined"))
            described.append(f"{row_label}: n/a")
            continue
        lo_, hi_ = f.get("low"), f.get("high")
        tip = f"{row_label}: {_fmt(v)}"
        if lo_ is not None and hi_ is not None:
            body.append(_line(sx(lo_), y, sx(hi_), y, JUDGE, 1.6, cls="whisker",
                              extra=f' data-low="{_v(lo_)}" data-high="{_v(hi_)}"'))  # fmt: skip
            for end in (lo_, hi_):
                body.append(_line(sx(end), y - 4, sx(end), y + 4, JUDGE, 1.2))
            tip += f" [{_fmt(lo_)}, {_fmt(hi_)}]"
        body.append(_point(sx(v), y, v, tip))
        described.append(tip)
    height = bottom + 46
    desc = f"{title + '. ' if title else ''}{xlabel}. " + "; ".join(described)
    return _document(width, height, body, caption or title or xlabel, desc, "intervals", name)


def system(block: dict, *, name: str = "", caption: str = "") -> str | None:
    """Human and judge win rate per system (dots and squares), systems in human order."""
    systems = block.get("systems") or []
    if not systems:
        return None
    names = [s["system"] for s in systems]
    left = 12 + min(max(text_width(n) for n in names), 300)
    width = max(560.0, left + 340)
    plot_w = width - left - 24
    top, row_h = 30, 22
    bottom = top + row_h * len(systems)
    sx = Scale(0.0, 1.0, left, left + plot_w)
    body = _x_axis(sx, bottom, top, "win rate (win 1, tie ½, loss 0)")
    body.append(_line(left, top, left, bottom, AXIS, 0.8))
    tau = block.get("tau_b")
    title = "system τ-b = " + ("–" if tau is None else f"{tau:.2f}")
    body.append(_text(left + plot_w / 2, 14, title, anchor="middle", size=TITLE_FONT))
    described = []
    for i, s in enumerate(systems):
        y = top + row_h * (i + 0.5)
        body.append(_text(left - 6, y, s["system"], anchor="end", cls="row-label"))
        parts = []
        for key, colour, shape, who in (("human_win_rate", HUMAN, "circle", "human"),
                                        ("judge_win_rate", JUDGE, "square", "judge")):  # fmt: skip
            v = s.get(key)
            if v is None:
                continue
            tip = f"{s['system']}: {who} win rate {v:.3f}"
            body.append(_point(sx(v), y, v, tip, colour, shape, f' data-series="{who}"'))
            parts.append(f"{who} {v:.2f}")
        described.append(f"{s['system']}: " + (", ".join(parts) or "n/a"))
    legend, h = _legend(left, bottom + 48, [(_swatch_point(HUMAN), "human"),
                                            (_swatch_point(JUDGE, "square"), "judge")], plot_w)  # fmt: skip
    body += legend
    desc = f"{title}. " + "; ".join(described)
    return _document(width, bottom + 48 + h, body, caption or title, desc, "system", name)


def _rounded(values: np.ndarray) -> np.ndarray:
    """``round(v, 1)`` of every value, as Python rounds it (the decimal nearest the exact
    binary value, halves to even): ``rint(10 v) / 10`` over the array, and Python's own
    ``round`` where ``10 v`` lies within 10⁻⁶ of a half (there the product's rounding
    could flip it). A calibration curve has a point per candidate threshold: 2.4 million
    ``round`` calls on a 40,000-question page (issue 29)."""
    tenfold = values * 10
    out = np.rint(tenfold) / 10
    for i in np.flatnonzero(np.abs(tenfold - np.floor(tenfold) - 0.5) < 1e-6).tolist():
        out[i] = round(float(values[i]), 1)
    return out


def _step_path(sx: Scale, sy: Scale, xs, ys) -> str:
    """A ``where="post"`` step line through (xs, ys), at 0.1 px: a run that moves less
    than that is not written (a curve has a point per candidate threshold, thousands on
    real data, most of them closer than a pixel). Over arrays: a point is written where
    its rounded x or y differs from the previous point's."""
    if not len(xs):
        return ""
    kx, ky = (sx.b - sx.a) / (sx.hi - sx.lo), (sy.b - sy.a) / (sy.hi - sy.lo)
    px = _rounded(sx.a + (np.asarray(xs, dtype=float) - sx.lo) * kx)
    py = _rounded(sy.a + (np.asarray(ys, dtype=float) - sy.lo) * ky)
    moves_x = px[1:] != px[:-1]
    moves_y = py[1:] != py[:-1]
    parts = [f"M{float(px[0]):g} {float(py[0]):g}"]
    for i, mx, my in zip(np.flatnonzero(moves_x | moves_y).tolist(),
                         moves_x[moves_x | moves_y].tolist(),
                         moves_y[moves_x | moves_y].tolist(), strict=True):  # fmt: skip
        if mx:
            parts.append(f"H{float(px[i + 1]):g}")
        if my:
            parts.append(f"V{float(py[i + 1]):g}")
    return "".join(parts)


def _calibration_panel(
    metric: str, c: dict, x0: float, y0: float, w: float
) -> tuple[list[str], str]:
    left, right, top = x0 + 46, x0 + w - 10, y0 + 24
    bottom = top + 150
    xs = [float(t) for t in c["thresholds"]]
    lo, hi = _fitted(xs)
    sx, sy = Scale(lo, hi, left, right), Scale(-0.02, 1.02, bottom, top)
    out = [_text((left + right) / 2, y0 + 10, f"{label(metric)} (n={c['n']})", anchor="middle",
                 size=TITLE_FONT)]  # fmt: skip
    out += _x_axis(sx, bottom, top, "threshold t", grid=False)
    out += _y_axis(sy, left, "rate")
    out.append(f'<path class="curve" data-series="judge_tie_rate" d="{_step_path(sx, sy, xs, c["judge_tie_rate"])}" '
               f'fill="none" stroke="{JUDGE}" stroke-width="1.5"/>')  # fmt: skip
    out.append(f'<path class="curve" data-series="agreement" d="{_step_path(sx, sy, xs, c["agreement"])}" '
               f'fill="none" stroke="{GREY}" stroke-width="1.5" stroke-dasharray="1.5 2.5"/>')  # fmt: skip
    items = [(_swatch_line(JUDGE), "judge tie rate"), (_swatch_line(GREY, "1.5 2.5"), "agreement")]
    human = c.get("human_tie_rate")
    if human is not None:
        out.append(_line(left, sy(human), right, sy(human), HUMAN, 1.5, "6 3", cls="reference",
                         extra=f' data-value="{_v(human)}"'))  # fmt: skip
        items.append((_swatch_line(HUMAN, "6 3"), f"human tie rate {human:.2f}"))
    t = float(c["threshold"])
    out.append(_line(sx(t), top, sx(t), bottom, INK, 0.8, cls="threshold"))
    at = c.get("judge_tie_rate_at_threshold")
    desc = f"{label(metric)}: threshold {t:.3g}"
    if at is not None:
        out.append(_point(sx(t), sy(at), at, f"t = {t:.3g}: judge tie rate {at:.3f}", JUDGE,
                          extra=f' data-threshold="{_v(t)}"'))  # fmt: skip
        items.append((_swatch_point(JUDGE), f"t = {t:.3g}"))
        desc += f", judge tie rate {at:.2f}"
    if human is not None:
        desc += f", human tie rate {human:.2f}"
    legend, _ = _legend(x0 + 8, bottom + 48, items, w - 16)
    return out + legend, desc


def _panels(items: list, panel_w: float, panel_h: float, draw, title: str, kind: str, name: str,
            lead: str) -> str:  # fmt: skip
    cols = min(3, max(len(items), 1))
    rows = math.ceil(len(items) / cols)
    body, descs = [], []
    for k, (metric, data) in enumerate(items):
        r, c = divmod(k, cols)
        out, desc = draw(metric, data, c * panel_w, r * panel_h, panel_w)
        body.append(f'<g class="panel" data-metric="{_t(metric)}">' + "".join(out) + "</g>")
        descs.append(desc)
    return _document(cols * panel_w, rows * panel_h, body, title, lead + "; ".join(descs), kind,
                     name)  # fmt: skip


def calibration(curves: dict, *, name: str = "", caption: str = "") -> str | None:
    """Judge tie rate and agreement against the threshold t, one panel per metric; the
    human tie rate (dashed) and the threshold applied (vertical line, dot) are marked."""
    if not curves:
        return None
    return _panels(list(curves.items()), 320, 260, _calibration_panel,
                   caption or "Tie calibration", "calibration", name,
                   "Judge tie rate and agreement against the threshold. ")  # fmt: skip


def _heatmap(values, row_labels, col_labels, x0, y0, vmin, vmax, cmap, fmt, cell=(46, 26),
             rotate_cols=True) -> tuple[list[str], float, float]:  # fmt: skip
    """Cells with their values written in; returns elements, width and height used."""
    left = x0 + 10 + max((text_width(r) for r in row_labels), default=0)
    cw, ch = cell
    out = []
    for i, row in enumerate(values):
        y = y0 + i * ch
        out.append(_text(left - 6, y + ch / 2, row_labels[i], anchor="end", cls="row-label"))
        for j, v in enumerate(row):
            x = left + j * cw
            if v is None or (isinstance(v, float) and math.isnan(v)):
                out.append(f'<rect class="cell" data-value="" x="{_f(x)}" y="{_f(y)}" '
                           f'width="{cw}" height="{ch}" fill="#ffffff" stroke="#ffffff"/>')  # fmt: skip
                out.append(_text(x + cw / 2, y + ch / 2, "–", anchor="middle"))
                continue
            shade = (v - vmin) / (vmax - vmin) if vmax > vmin else 0.5
            dark = (cmap == "RdBu" and abs(shade - 0.5) > 0.3) or (cmap == "Blues" and shade > 0.6)
            tip = f"{row_labels[i]} × {col_labels[j]}: {fmt(v)}"
            out.append(f'<rect class="cell" data-value="{_v(v)}" x="{_f(x)}" y="{_f(y)}" '
                       f'width="{cw}" height="{ch}" fill="{_colour(cmap, shade)}" stroke="#ffffff">'
                       f"<title>{_t(tip)}</title></rect>")  # fmt: skip
            out.append(_text(x + cw / 2, y + ch / 2, fmt(v), anchor="middle",
                             fill="#ffffff" if dark else INK))  # fmt: skip
    bottom = y0 + len(values) * ch
    for j, col in enumerate(col_labels):
        x = left + (j + 0.5) * cw
        if rotate_cols:
            out.append(_text(x, bottom + 6, col, anchor="end", rotate=-30, baseline="hanging",
                             cls="col-label"))  # fmt: skip
        else:
            out.append(_text(x, bottom + 6, col, anchor="middle", baseline="hanging",
                             cls="col-label"))  # fmt: skip
    col_h = (max((text_width(c) for c in col_labels), default=0) * 0.5 + 14) if rotate_cols else 20
    return out, left - x0 + len(col_labels) * cw, len(values) * ch + col_h


def _colorbar(x, y, h, vmin, vmax, cmap, text) -> list[str]:
    steps = 20
    out = []
    for k in range(steps):
        shade = 1 - (k + 0.5) / steps
        out.append(f'<rect x="{_f(x)}" y="{_f(y + k * h / steps)}" width="12" '
                   f'height="{_f(h / steps + 0.3)}" fill="{_colour(cmap, shade)}"/>')  # fmt: skip
    sy = Scale(vmin, vmax, y + h, y)
    ticks = nice_ticks(vmin, vmax, 4)
    for t in ticks:
        out.append(_line(x + 12, sy(t), x + 15, sy(t), AXIS, 0.8))
        out.append(_text(x + 18, sy(t), _tick_label(t, ticks), cls="tick"))
    out.append(_text(x + 52, y + h / 2, text, anchor="middle", rotate=-90, cls="axis-label"))
    return out


def _confusion_panel(metric, cm, x0, y0, w):
    labels = cm["labels"]
    top_count = max(max(r) for r in cm["matrix"]) or 1
    out = [_text(x0 + w / 2, y0 + 10, f"{label(metric)} (t={cm['threshold']:.3g})",
                 anchor="middle", size=TITLE_FONT)]  # fmt: skip
    cells, cw, chh = _heatmap(cm["matrix"], labels, labels, x0 + 24, y0 + 26, 0, top_count,
                              "Blues", lambda v: f"{int(v)}", cell=(56, 30))  # fmt: skip
    out += cells
    out.append(_text(x0 + 10, y0 + 26 + 45, "human", anchor="middle", rotate=-90,
                     cls="axis-label"))  # fmt: skip
    out.append(_text(x0 + 24 + cw - 84, y0 + 26 + chh + 8, "judge", anchor="middle",
                     baseline="hanging", cls="axis-label"))  # fmt: skip
    desc = f"{label(metric)}: " + ", ".join(
        f"human {h} / judge {j}: {cm['matrix'][a][b]}"
        for a, h in enumerate(labels) for b, j in enumerate(labels))  # fmt: skip
    return out, desc


def confusion(matrices: dict, *, name: str = "", caption: str = "") -> str | None:
    """3×3 counts of human (rows) vs judge (columns) decisions, one panel per metric."""
    if not matrices:
        return None
    return _panels(list(matrices.items()), 300, 240, _confusion_panel,
                   caption or "Human vs judge decisions", "confusion", name,
                   "Counts of decisions. ")  # fmt: skip


def _grid_figure(values, rows, cols, vmin, vmax, bar: str, title: str, kind: str, name: str,
                 fmt) -> str:  # fmt: skip
    body, w, h = _heatmap(values, rows, cols, 8, 10, vmin, vmax, "RdBu", fmt, cell=(70, 24))
    bar_h = max(len(rows) * 24, 80)
    body += _colorbar(8 + w + 14, 10, bar_h, vmin, vmax, "RdBu", bar)
    desc = f"{bar} per cell. " + "; ".join(
        f"{r} × {c}: {'n/a' if v is None else fmt(v)}"
        for r, row in zip(rows, values, strict=False) for c, v in zip(cols, row, strict=False))  # fmt: skip
    return _document(8 + w + 14 + 70, max(10 + h, 10 + bar_h) + 12, body, title, desc, kind, name)


def alignment(grid: dict, value: str = "tau_b", *, name: str = "", caption: str = "") -> str | None:
    """Annotators × metrics heatmap of τ-b (or agreement): seed 003 Figs. 3 and 4."""
    if not grid or not grid.get("annotators") or not grid.get("metrics"):
        return None
    lo, hi = (-1, 1) if value == "tau_b" else (0, 1)
    bar = "Kendall τ-b" if value == "tau_b" else "agreement"
    return _grid_figure(grid[value], [str(a) for a in grid["annotators"]],
                        [label(m) for m in grid["metrics"]], lo, hi, bar,
                        caption or f"{bar} per annotator and metric", "alignment", name,
                        lambda v: f"{v:.2f}")  # fmt: skip


def cross_judge(pearson: dict | None, *, name: str = "", caption: str = "") -> str | None:
    """Judges × judges Pearson r of their overall scores (seed 003 Fig. 10)."""
    if not pearson or len(pearson.get("judges") or []) < 2 or not pearson.get("matrix"):
        return None
    names = [str(j) for j in pearson["judges"]]
    return _grid_figure(pearson["matrix"], names, names, -1, 1, "Pearson r",
                        caption or "Cross-judge Pearson r", "cross_judge", name,
                        lambda v: f"{v:.2f}")  # fmt: skip


def render(chart: Chart | None, *, name: str = "", title: str = "") -> str | None:
    """``chart`` as inline SVG text (None: no data). ``name`` makes its element ids unique
    on the page; ``title`` is its accessible name (the figure's title)."""
    if chart is None:
        return None
    return globals()[chart.kind](**chart.args, name=name, caption=title)
