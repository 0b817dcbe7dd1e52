"""Presentation of report numbers: every figure shown on the page and in the offline HTML
becomes a *cell* — its text (a percentage, two decimals, an interval) and its raw value,
which the templates write into ``data-value`` / ``data-ci`` so that tests and readers can
check the shown number against the report dict exactly.

Why a module of its own: the views select and cache, the sections compute, this formats;
the offline HTML uses it without importing the views.
"""

from __future__ import annotations

from . import charts

TABLE_FORMATS = ("csv", "xlsx", "json")
FIGURE_FORMATS = ("svg", "png")


def _raw(x) -> str:
    return "" if x is None else repr(x)


def pct(x) -> str:
    return "—" if x is None else f"{100 * x:.1f}%"


def dec(x, digits: int = 2) -> str:
    return "—" if x is None else f"{x:.{digits}f}"


def _int(x) -> str:
    return "—" if x is None else f"{x:g}"


FORMATS = {"pct": pct, "dec": dec, "int": _int, "thr": lambda v: dec(v, 3)}


def cell(value, kind: str = "dec", ci=None) -> dict:
    """``{"raw", "text"}`` of one figure (``kind``: pct, dec, int, thr), with its
    interval as ``ci`` / ``ci_raw`` when one is given."""
    fmt = FORMATS[kind]
    out = {"raw": _raw(value), "text": fmt(value)}
    if ci:
        lo, hi = ci
        out["ci"] = f"[{fmt(lo)}, {fmt(hi)}]"
        out["ci_raw"] = f"{_raw(lo)},{_raw(hi)}"
    return out


def metric_rows(table: dict) -> list[dict]:
    """One row of cells per metric of a preference or metric-wise table."""
    rows = []
    for metric, fig in table.items():
        ci = fig.get("ci") or {}
        rows.append({
            "metric": metric,
            "label": charts.label(metric),
            "agreement": cell(fig.get("agreement"), "pct", ci.get("agreement")),
            "tau_b": cell(fig.get("tau_b"), "dec", ci.get("tau_b")),
            "n": cell(fig.get("n"), "int"),
            "threshold": cell(fig.get("threshold"), "thr"),
            "human_tie_rate": cell(fig.get("human_tie_rate"), "pct"),
            "judge_tie_rate": cell(fig.get("judge_tie_rate"), "pct"),
            "n_note": fig.get("n_note"),
        })  # fmt: skip
    return rows


def n_notes(rows: list[dict]) -> list[dict]:
    """The footnotes of a table of :func:`metric_rows`: each distinct ``n_note`` once, with
    the rows it concerns (``rows``: their labels), in table order."""
    said: dict[str, list[str]] = {}
    for row in rows:
        if row.get("n_note"):
            said.setdefault(row["n_note"], []).append(row["label"])
    return [{"rows": ", ".join(labels), "text": text} for text, labels in said.items()]


IAA_KINDS = (("strict", "pct"), ("half_credit", "pct"), ("n", "int"), ("n_pairs", "int"),
             ("cohen_kappa", "dec"), ("fleiss_kappa", "dec"), ("krippendorff_alpha", "dec"))  # fmt: skip


def iaa_cells(iaa: dict) -> dict:
    """The IAA's cells, strict and half credit with their intervals when bootstrapped."""
    ci = iaa.get("ci") or {}
    return {k: cell(iaa.get(k), kind, ci.get(k)) for k, kind in IAA_KINDS}


def system_context(system: dict) -> dict:
    """The system τ-b cell and one row of cells per system."""
    return {
        "system_tau": cell(system.get("tau_b"), "dec", (system.get("ci") or {}).get("tau_b")),
        "system_rows": [
            {"system": s["system"],
             "human": cell(s.get("human_win_rate"), "dec",
                           (s.get("ci") or {}).get("human_win_rate")),
             "judge": cell(s.get("judge_win_rate"), "dec",
                           (s.get("ci") or {}).get("judge_win_rate")),
             "n": cell(s.get("n"), "int")}
            for s in system.get("systems") or []
        ],
    }  # fmt: skip


def _judge_metrics(judges: list[dict]) -> list[str]:
    metrics: list[str] = []
    for j in judges:
        for m in (j.get("all") or {}).get("preference") or {}:
            if m not in metrics:
                metrics.append(m)
    return metrics


def judge_table(alignment: dict | None) -> dict | None:
    """Seed 003 Table 5 shape: metrics × judges (agreement, τ-b); system τ-b all/agreed."""
    if not alignment or not alignment.get("judges"):
        return None
    judges = alignment["judges"]
    rows = []
    for m in _judge_metrics(judges):
        cells = []
        for j in judges:
            fig = ((j.get("all") or {}).get("preference") or {}).get(m) or {}
            cells.append({"judge": j["judge"], "agreement": cell(fig.get("agreement"), "pct"),
                          "tau_b": cell(fig.get("tau_b"))})  # fmt: skip
        rows.append({"metric": m, "label": charts.label(m), "cells": cells})
    system = [
        {
            "judge": j["judge"],
            "all": cell((j.get("all") or {}).get("system_tau_b")),
            "agreed": cell((j.get("expert_agreed") or {}).get("system_tau_b")),
        }  # fmt: skip
        for j in judges
    ]
    return {"judges": [j["judge"] for j in judges], "rows": rows, "system": system}


def note_cells(notes: list) -> tuple[list[dict], list[str]]:
    """(compat quirk notes with their cells, plain notes)."""
    compat = []
    for n in notes or []:
        if not isinstance(n, dict):
            continue
        kind = "dec" if "tau" in n.get("figure", "") else "pct"
        compat.append({**n, "compat_cell": cell(n.get("compat"), kind),
                       "without_cell": cell(n.get("without_quirk"), kind),
                       "default_cell": cell(n.get("default"), kind)})  # fmt: skip
    return compat, [n for n in notes or [] if isinstance(n, str)]


def report_context(entry: dict, options) -> dict:
    """Template context of an entry: every registered section with its result and the
    formatted cells its ``context`` gives, in page order."""
    from . import sections

    report = entry["report"]
    figures = {}
    specs = sections.figure_specs()
    for name, svg in (entry.get("svgs") or {}).items():
        if name in specs:
            title = specs[name][1].title
            figures[name.replace("-", "_")] = {"name": name, "title": title, "svg": svg}
    context = {
        "entry": entry,
        "report": report,
        "selection": report.get("selection") or {},
        "figures": figures,
        "table_formats": TABLE_FORMATS,
        "figure_formats": FIGURE_FORMATS,
    }
    shown = []
    for section in sections.in_entry(entry):
        result = sections.section_result(entry, section)
        if not sections.failed(section, entry):  # a failed section has no result to format
            context.update(section.context(result, entry))
        absent = sections.why_not_shown(section, entry)
        shown.append({"section": section, "result": result, "template": section.template,
                      "tables": {} if absent else _lazy_tables(section, result, entry),
                      "absent": absent})  # fmt: skip
    context["sections"] = _group_absent(shown)
    return context


def _lazy_tables(section, result, entry):
    """A section's tables, built when its template reads them: the calibration, confusion
    and per-annotator fragments only link their downloads, and their tables have a row per
    candidate threshold (≈ 600,000 rows at 40,000 questions, issue 29: built three times
    per page for nothing)."""
    from django.utils.functional import SimpleLazyObject

    return SimpleLazyObject(lambda: section.tables(result, entry))


def _group_absent(shown: list[dict]) -> list[dict]:
    """Sections left out for the same reason share one line (the first carries the
    group, the page names each section in it)."""
    first: dict[str, dict] = {}
    for s in shown:
        reason = s["absent"]
        if not reason:
            continue
        if reason in first:
            first[reason]["absent_group"].append(s["section"])
            s["absent_group"] = None
        else:
            s["absent_group"] = [s["section"]]
            first[reason] = s
    return shown
