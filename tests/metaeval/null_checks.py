"""A checker of the product's rule "a figure that is not defined is null with a note saying
why, never a number and never a bare null" (docs/ANALYSES.md, METHODS §7) over a whole
report entry: every section's result in the report dict (the API's and the command's
JSON) and every table of every section (CSV, XLSX, the client's ``report.tables``).

What counts as explained:

* a figure dict (``value``, ``note``): a null ``value`` has a ``note``;
* a block with ``notes`` (figure -> why, the agreement report's blocks): each null figure
  has its ``notes[figure]``;
* a row with a ``note`` (a table row, human vs human): any null figure makes the ``note``
  non-empty;
* a null block of the report dict (``preference``, ``label_iaa``): a report note that
  starts with ``"<block> is null"``;
* a table: a null cell needs the row's ``note`` (or ``notes`` / ``reason``) column, or
  the figure's own ``<figure>_note`` column, so a table that can hold a null figure has
  one. A column the row does not have at all (another kind of row's column, such as a
  binary judge's confusion columns beside a 0–4 judge's) is not a figure of that row.

Interval bounds (``*_low`` / ``*_high``, ``ci_*``) are left out: with no bootstrap asked
for they are null by request."""

from __future__ import annotations

#: Columns whose null is about the interval, not the figure (no bootstrap: null by request).
INTERVAL_ENDS = ("_low", "_high")
#: Columns of a table that say why a cell is null.
NOTE_COLUMNS = ("note", "notes", "reason")


#: Keys that are options or settings of the selection, not figures (a null one: not set).
SETTINGS = ("selection", "threshold")


def _interval(key: str) -> bool:
    return key.endswith(INTERVAL_ENDS) or key.startswith("ci_") or key in ("low", "high", "ci")


def _skipped(key: str) -> bool:
    """Interval bounds, notes (a null note: nothing to say) and settings."""
    return _interval(key) or key in ("note", "notes") or key.endswith("_note") or key in SETTINGS


def _said(text) -> bool:
    return isinstance(text, str) and bool(text.strip()) or (isinstance(text, dict) and bool(text))


def result_nulls(node, path: str = "") -> list[str]:
    """The paths of null figures of a section result (or the report dict) no note explains."""
    bad: list[str] = []
    if isinstance(node, list):
        for i, item in enumerate(node):
            bad += result_nulls(item, f"{path}[{i}]")
        return bad
    if not isinstance(node, dict):
        return bad
    notes = node.get("notes") if isinstance(node.get("notes"), dict) else None
    # the report dict's notes list: "<key> is null: why" explains a null block (preference)
    listed = node.get("notes") if isinstance(node.get("notes"), list) else ()
    for key, value in node.items():
        here = f"{path}.{key}"
        if _skipped(key):
            continue
        if value is None:
            if notes is not None:
                explained = _said(notes.get(key))
            elif "note" in node:
                explained = _said(node["note"])
            elif listed:
                explained = any(str(n).startswith(f"{key} is null") for n in listed)
            else:
                explained = False
            if not explained:
                bad.append(here)
        else:
            bad += result_nulls(value, here)
    return bad


def table_nulls(name: str, rows: list[dict], columns: list[str]) -> list[str]:
    """The cells of a table that are null with no note column saying why."""
    bad = []
    said = [c for c in NOTE_COLUMNS if c in columns]
    for i, row in enumerate(rows):
        for column in columns:
            if column in NOTE_COLUMNS or _skipped(column) or row.get(column) is not None:
                continue
            if column not in row:  # a column of other rows' kind (a binary judge's
                continue  # confusion has no judge_0…judge_4): not a figure of this row
            own = f"{column}_note"  # a figure with its own note column (the judge card)
            if own in columns and _said(row.get(own)):
                continue
            if not any(_said(row.get(c)) for c in said):
                bad.append(f"{name}[{i}].{column}")
    return bad


def bare_nulls(entry: dict) -> list[str]:
    """Every null figure of a report entry (result and tables) that no note explains."""
    from metaeval.sections import all_tables

    bad = result_nulls(entry["report"], "report")
    for name, (rows, columns) in all_tables(entry).items():
        bad += table_nulls(name, rows, columns)
    return bad
