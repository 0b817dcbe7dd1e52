"""One reported number with its interval, or ``None`` and why (METHODS §7, last bullet).

Every analysis of issue 16 returns its figures as :class:`Figure`, so that a page, the API,
a download and the offline HTML render the same thing: a value, how many units it rests on,
a cluster-bootstrap interval over questions when one was asked for, and a note whenever a
figure is undefined ("null with a note, never a number"). NaN never leaves this module.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np


@dataclass(frozen=True)
class Figure:
    value: float | None  # None: undefined, see ``note``
    n: int  # units the figure rests on (items, pairs, labels: the analysis says which)
    low: float | None = None  # percentile interval, when a bootstrap ran
    high: float | None = None
    note: str | None = None

    def as_dict(self) -> dict:
        return {"value": self.value, "n": self.n, "low": self.low, "high": self.high,
                "note": self.note}  # fmt: skip


def number(x) -> float | None:
    """A float, or ``None`` for None / NaN / ±inf."""
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


def figure(value, n: int, note: str | None = None, undefined: str | None = None) -> Figure:
    """A :class:`Figure`; a NaN / None ``value`` becomes ``None`` with ``undefined`` as note."""
    v = number(value)
    if v is None and note is None:
        note = undefined or "Not defined on this selection."
    return Figure(v, int(n), note=note)


def with_interval(fig: Figure, low, high, note: str | None = None) -> Figure:
    """``fig`` with an interval; an undefined bound keeps the figure and adds the note."""
    lo, hi = number(low), number(high)
    if fig.value is None:
        return fig
    if lo is None or hi is None:
        return replace(fig, low=None, high=None, note=fig.note or note)
    return replace(fig, low=lo, high=hi)


def nan_to_none(array) -> list:
    """A numeric array as a nested list with ``None`` where it is not finite."""
    a = np.asarray(array, dtype=float)
    return [nan_to_none(x) for x in a] if a.ndim > 1 else [number(x) for x in a]
