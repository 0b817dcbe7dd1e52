"""The report dict as files: flat tables for CSV/XLSX, and a plain-text summary."""

from __future__ import annotations

import io

from annotation.spreadsheets import csv_dict_writer, xlsx_append

TABLE_COLUMNS = ["table", "metric", "agreement", "tau_b", "n", "threshold", "human_tie_rate",
                 "judge_tie_rate", "ci_agreement_low", "ci_agreement_high", "ci_tau_b_low",
                 "ci_tau_b_high"]  # fmt: skip


def table_rows(report: dict) -> list[dict]:
    """Preference and metric-wise figures, one row per (table, metric)."""
    rows = []
    for table in ("preference", "metric_wise"):
        for metric, fig in (report.get(table) or {}).items():
            ci = fig.get("ci") or {}
            rows.append({
                "table": table, "metric": metric,
                **{k: fig.get(k) for k in TABLE_COLUMNS[2:8]},
                "ci_agreement_low": (ci.get("agreement") or [None, None])[0],
                "ci_agreement_high": (ci.get("agreement") or [None, None])[1],
                "ci_tau_b_low": (ci.get("tau_b") or [None, None])[0],
                "ci_tau_b_high": (ci.get("tau_b") or [None, None])[1],
            })  # fmt: skip
    return rows


SYSTEM_COLUMNS = ["system", "human_win_rate", "judge_win_rate", "n", "ci_human_low",
                  "ci_human_high", "ci_judge_low", "ci_judge_high"]  # fmt: skip


def system_rows(report: dict) -> list[dict]:
    """One row per system; the bootstrap interval of each win rate flattened into columns."""
    rows = []
    for s in report.get("system", {}).get("systems", []):
        ci = s.get("ci") or {}
        human = ci.get("human_win_rate") or [None, None]
        judge = ci.get("judge_win_rate") or [None, None]
        row = {k: v for k, v in s.items() if k != "ci"}
        row.update(ci_human_low=human[0], ci_human_high=human[1], ci_judge_low=judge[0],
                   ci_judge_high=judge[1])  # fmt: skip
        rows.append(row)
    return rows


def _write(rows: list[dict], columns: list[str], out) -> None:
    writer = csv_dict_writer(out, columns, extrasaction="ignore")
    writer.writeheader()
    writer.writerows(rows)


def to_csv(report: dict) -> str:
    buf = io.StringIO()
    _write(table_rows(report), TABLE_COLUMNS, buf)
    return buf.getvalue()


def write_csv(report: dict, path: str) -> None:
    with open(path, "w", newline="", encoding="utf-8") as fh:
        fh.write(to_csv(report))


def write_xlsx(report: dict, path: str, extra: dict | None = None) -> None:
    """The report's tables, one sheet each; ``extra``: more tables, name -> (rows,
    columns) (the registered report sections', :func:`metaeval.sections.extra_tables`)."""
    from openpyxl import Workbook

    wb = Workbook()
    sheets = {
        "agreement": (table_rows(report), TABLE_COLUMNS),
        "systems": (system_rows(report), system_columns(report)),
        "iaa": ([report.get("iaa", {})], list(report.get("iaa", {}).keys())),
        **{name[:31]: table for name, table in (extra or {}).items()},
    }
    wb.remove(wb.active)
    for name, (rows, columns) in sheets.items():
        ws = wb.create_sheet(name)
        xlsx_append(ws, columns)
        for row in rows:
            xlsx_append(ws, [_cell(row.get(c)) for c in columns])
    wb.save(path)


def _pct(x) -> str:
    return "—" if x is None else f"{100 * x:.1f}%"


def _f(x) -> str:
    return "—" if x is None else f"{x:.2f}"


def as_text(report: dict) -> str:
    """A terminal summary of the report (the JSON is the full contract)."""
    iaa = report.get("iaa", {})
    lines = [f"IAA strict {_pct(iaa.get('strict'))}, half credit {_pct(iaa.get('half_credit'))}"
             f" (n={iaa.get('n')})"]  # fmt: skip
    for table in ("preference", "metric_wise"):
        if report.get(table):
            lines.append(f"\n{table}: metric  agreement  tau_b  n  threshold")
            for metric, fig in report[table].items():
                lines.append(f"  {metric:20s} {_pct(fig['agreement']):>7s} {_f(fig['tau_b']):>6s} "
                             f"{fig['n']!s:>6s} {_f(fig['threshold'])}")  # fmt: skip
    system = report.get("system", {})
    lines.append(f"\nsystem tau_b {_f(system.get('tau_b'))}")
    for s in system.get("systems", []):
        lines.append(f"  {s['system']:28s} human {_f(s['human_win_rate'])}"
                     f"  judge {_f(s['judge_win_rate'])}")  # fmt: skip
    for note in report.get("notes", []):
        lines.append(f"note: {note}")
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------- every table

IAA_COLUMNS = ["strict", "half_credit", "n", "n_pairs", "cohen_kappa", "fleiss_kappa",
               "krippendorff_alpha"]  # fmt: skip
#: The system table without its bootstrap intervals (``bootstrap`` = 0). The full
#: ``SYSTEM_COLUMNS`` above keep ``ci_*``: this name once shadowed them, so every system
#: table, CSV and sheet dropped its intervals even with a bootstrap (issue 28).
SYSTEM_POINT_COLUMNS = SYSTEM_COLUMNS[:4]
NOTE_COLUMNS = ["quirk", "figure", "compat", "without_quirk", "default", "reason"]


def system_columns(report: dict) -> list[str]:
    """The system table's columns: with the interval columns when a bootstrap drew them."""
    systems = (report.get("system") or {}).get("systems") or []
    return SYSTEM_COLUMNS if any(s.get("ci") for s in systems) else SYSTEM_POINT_COLUMNS


def system_tau_note(system: dict) -> str | None:
    """Why the system τ-b or its interval is null (the report's ``notes`` of the block, or
    the bootstrap's), so the table's empty cells say why as report.json does."""
    why = (system.get("notes") or {}).get("tau_b")
    ci = system.get("ci") or {}
    if why is None and ci and None in (ci.get("tau_b") or [None, None]):
        why = ci.get("note")
    return why


def figure_notes(notes: dict | None) -> str | None:
    """A block's ``notes`` (figure -> why) as one cell: each distinct reason once, after
    the figures it concerns, so a table row whose figures are null says why as the API's
    block does (the ``iaa`` table had no note column while ``iaa.notes`` had the reasons)."""
    said: dict[str, list[str]] = {}
    for name, why in (notes or {}).items():
        said.setdefault(why, []).append(name)
    return " ".join(f"{', '.join(names)}: {why}" for why, names in said.items()) or None


#: The IAA figures a bootstrap gives an interval (:func:`metaeval.uncertainty.add_iaa_interval`).
IAA_INTERVALS = ("strict", "half_credit")


def iaa_table(iaa: dict) -> tuple[list[dict], list[str]]:
    """The IAA row; with a bootstrap, ``ci_*_low`` / ``ci_*_high`` of strict and half
    credit, and the interval's note (why the κ and α have none) in the note column."""
    row = {c: iaa.get(c) for c in IAA_COLUMNS}
    columns = list(IAA_COLUMNS)
    ci = iaa.get("ci")
    if ci:
        for name in IAA_INTERVALS:
            low, high = ci.get(name) or (None, None)
            row |= {f"ci_{name}_low": low, f"ci_{name}_high": high}
            columns += [f"ci_{name}_low", f"ci_{name}_high"]
    said = [n for n in (figure_notes(iaa.get("notes")), (ci or {}).get("note")) if n]
    return [row | {"note": " ".join(said) or None}], [*columns, "note"]


def report_tables(report: dict) -> dict[str, tuple[list[dict], list[str]]]:
    """Every table of the report dict: name -> (rows, columns), the rows as in the dict."""
    iaa = report.get("iaa") or {}
    system = report.get("system") or {}
    ci = (system.get("ci") or {}).get("tau_b") or [None, None]
    tables = {
        "iaa": iaa_table(iaa),
        "preference": (
            [r for r in table_rows(report) if r["table"] == "preference"],
            TABLE_COLUMNS,
        ),
        "metric_wise": (
            [r for r in table_rows(report) if r["table"] == "metric_wise"],
            TABLE_COLUMNS,
        ),
        "system": (system_rows(report), system_columns(report)),
        "system_tau": (
            [
                {
                    "tau_b": system.get("tau_b"),
                    "ci_tau_b_low": ci[0],
                    "ci_tau_b_high": ci[1],
                    "note": system_tau_note(system),
                }
            ],
            ["tau_b", "ci_tau_b_low", "ci_tau_b_high", "note"],
        ),
    }
    notes = report.get("notes") or []
    if any(isinstance(n, dict) for n in notes):  # compat: quirk rows, then plain notes
        rows = [dict(n) if isinstance(n, dict) else {"reason": n} for n in notes]
        tables["notes"] = (rows, NOTE_COLUMNS)
    else:
        tables["notes"] = ([{"note": n} for n in notes], ["note"])
    return tables


def rows_to_csv(rows: list[dict], columns: list[str]) -> str:
    buf = io.StringIO()
    _write(rows, columns, buf)
    return buf.getvalue()


def rows_to_xlsx(rows: list[dict], columns: list[str], sheet: str = "table") -> bytes:
    """One sheet, a header row then one row per dict; None stays an empty cell."""
    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    ws.title = sheet[:31]
    xlsx_append(ws, columns)
    for row in rows:
        xlsx_append(ws, [_cell(row.get(c)) for c in columns])
    out = io.BytesIO()
    wb.save(out)
    return out.getvalue()


def rows_to_json(rows: list[dict], columns: list[str]) -> str:
    import json

    return json.dumps([{c: row.get(c) for c in columns} for row in rows], indent=2)


def _cell(value):
    if isinstance(value, (list, tuple, dict)):
        import json

        return json.dumps(value)
    return value
