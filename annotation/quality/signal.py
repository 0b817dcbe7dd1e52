"""The human signal an analysis reads: adjudicated, majority or each annotator (issue 17).

Contract of :func:`human_signal` (pure; the report wiring calls it later):

- ``observations``: every submitted label, one :class:`~.labels.Observation` per annotator
  per unit (``annotation.quality.observations.load`` gives them for a study). Never changed.
- ``adjudicated``: unit -> the adjudicated label (``observations.adjudicated_labels``: the
  decided adjudication requests of a unit, when they all agree).
- ``mode``:

  ``"each"``        one :class:`Signal` per observation, ``source`` = the annotator id: every
                    annotator's label as submitted (what per-annotator analyses use).
  ``"majority"``    one Signal per unit whose labels have a strict plurality (a unit with one
                    annotator keeps that label); units whose top labels tie are left out.
                    ``source`` = ``"majority"`` (or ``"single"``).
  ``"adjudicated"`` one Signal per unit: the adjudicated label where there is one
                    (``source`` = ``"adjudicated"``), else the majority as above. Tied units
                    without adjudication are left out.

Returns the signals sorted by unit (then source), so the same input always gives the same
output. Any other mode raises ValueError naming the modes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .agreement import by_unit, plurality
from .labels import Observation, Unit

MODES = ("adjudicated", "majority", "each")


@dataclass(frozen=True)
class Signal:
    unit: Unit
    label: str
    #: annotator id (mode "each"), "single", "majority" or "adjudicated"
    source: int | str


def human_signal(
    observations: Iterable[Observation],
    adjudicated: Mapping[Unit, str] | None = None,
    mode: str = "adjudicated",
) -> list[Signal]:
    if mode not in MODES:
        raise ValueError(f"human signal mode “{mode}” is not one of {', '.join(MODES)}")
    observations = list(observations)
    if mode == "each":
        out = [Signal(o.unit, o.label, o.annotator) for o in observations]
        return sorted(out, key=lambda s: (s.unit, str(s.source)))
    adjudicated = adjudicated or {}
    out = []
    for unit, obs in by_unit(observations).items():
        if mode == "adjudicated" and unit in adjudicated:
            out.append(Signal(unit, adjudicated[unit], "adjudicated"))
            continue
        if len(obs) == 1:
            out.append(Signal(unit, obs[0].label, "single"))
            continue
        label = plurality(o.label for o in obs)
        if label is not None:
            out.append(Signal(unit, label, "majority"))
    return sorted(out, key=lambda s: s.unit)
