"""The human signal as arrays: each annotator, the majority, or the adjudicated label
(issues 16, 17; docs/ANALYSES.md §0; docs/QUALITY.md "The human signal").

The rule is :func:`annotation.quality.signal.human_signal`'s, on label rows instead of
``Observation`` objects (a test checks the two give the same signal), so every analysis
reads one definition:

- ``each``: every row as it is.
- ``majority``: one row per unit with a strict plurality of its labels (a unit with one
  label keeps it); units whose top labels tie are left out and counted (``tied``).
- ``adjudicated``: one row per unit: the adjudicated label where there is one, else the
  majority as above (tied units without an adjudication are left out and counted).

Why "else the majority": an adjudicator is asked only where annotators disagree; a unit
they agreed on needs no adjudication and its majority *is* its consensus label, so
dropping it (or mixing in each annotator's rows) would bias the adjudicated figures towards
the hard units. Labels are numbers (NaN rows are not labels and are dropped first). Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

MODES = ("each", "majority", "adjudicated")


@dataclass(frozen=True)
class Collapsed:
    """The rows of a signal: ``rows`` index the input rows (the first row of each kept
    unit for majority / adjudicated, so per-row columns can be taken from it), ``label``
    the signal's label per kept row. ``units``: units with a label; ``tied``: units left
    out for a tie; ``adjudicated``: units whose label is an adjudication."""

    rows: np.ndarray
    label: np.ndarray
    units: int
    tied: int
    adjudicated: int

    def summary(self, mode: str) -> dict:
        return {"mode": mode, "units": self.units, "kept": int(self.rows.size),
                "tied": self.tied, "adjudicated": self.adjudicated}  # fmt: skip


def failed_rows(annotator, failed) -> np.ndarray | None:
    """``collapse``'s ``excluded``: the rows whose annotator (an id per row) is one of
    ``failed`` (those who failed qualification); None when there is none."""
    if not failed:
        return None
    return np.isin(np.asarray(annotator), np.fromiter(failed, np.int64))


def collapse(unit: np.ndarray, label: np.ndarray, mode: str,
             adjudicated: Mapping[int, float] | None = None,
             excluded: np.ndarray | None = None) -> Collapsed:  # fmt: skip
    """The signal of label rows (``unit``: an integer unit code per row).

    ``excluded``: rows not read by the majority and adjudicated signals (a boolean per
    row: the labels of annotators who failed qualification, which count in no one's
    consensus, QUALITY.md; a unit labelled by one counted annotator and a failed one was
    "tied" between them). ``each`` keeps them: it is each annotator's own label."""
    if mode not in MODES:
        raise ValueError(f"human_signal: {mode!r} is not one of {', '.join(MODES)}")
    unit = np.asarray(unit, dtype=np.int64)
    label = np.asarray(label, dtype=float)
    keep = ~np.isnan(label)
    if excluded is not None and mode != "each":
        keep &= ~np.asarray(excluded, dtype=bool)
    ok = np.flatnonzero(keep)
    n_units = int(np.unique(unit[ok]).size)
    if mode == "each":
        return Collapsed(ok, label[ok], n_units, 0, 0)
    adjudicated = adjudicated or {}
    rows, labels, tied, used = [], [], 0, 0
    order = ok[np.argsort(unit[ok], kind="stable")]
    bounds = np.flatnonzero(np.diff(unit[order])) + 1
    for group in np.split(order, bounds) if order.size else []:
        u = int(unit[group[0]])
        if mode == "adjudicated" and u in adjudicated:
            rows.append(group[0])
            labels.append(float(adjudicated[u]))
            used += 1
            continue
        values, counts = np.unique(label[group], return_counts=True)
        top = counts.max()
        if (counts == top).sum() > 1:
            tied += 1
            continue
        rows.append(group[0])
        labels.append(float(values[counts.argmax()]))
    return Collapsed(np.array(rows, dtype=np.int64), np.array(labels, dtype=float),
                     n_units, tied, used)  # fmt: skip


def note(summary: dict | None) -> str | None:
    """One sentence for a section's notes: which signal its human-vs-judge figures read."""
    if not summary:
        return None
    mode = summary["mode"]
    if mode == "each":
        return f"Human signal: each annotator's label ({summary['kept']} labels)."
    text = (f"Human signal: {mode}, one label per unit ({summary['kept']} of "
            f"{summary['units']} units); {summary['tied']} tied without adjudication left out")  # fmt: skip
    if mode == "adjudicated":
        text += f"; {summary['adjudicated']} adjudicated"
    return text + "."
