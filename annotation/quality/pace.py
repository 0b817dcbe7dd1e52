"""Time per unit: a submitted label task finished faster than its units can be read.

A DeepScholar label task holds one to about eighty units (nuggets, sources, cited claims),
each labelled with one key press; time per *task* (the median on the quality table) hides an
annotator who finishes 76 units in 5 s, since a short task of two units takes as long. So
each submitted task's time on task (``Assignment.seconds_on_task``: from opening the page,
gaps between saves capped at ``drafts.IDLE_CAP_SECONDS``) is divided by the units labelled
in it, and a task below :data:`SECONDS_PER_UNIT_FLOOR` is flagged on the quality table and
in ``quality.csv`` for the admin to look at. The flag never blocks work: the submit stands,
the annotator keeps their queue, nothing is scored differently (docs/QUALITY.md).

Pure: the one reader of the database is ``observations.unit_paces``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

#: Seconds per unit below which a submitted task is flagged. A unit is at least a sentence
#: to read (a nugget of about ten words; a source's title; a cited paragraph) and a key to
#: press: read at a skimming pace of about six words a second that is well over one second,
#: so a task under one second a unit was labelled without reading its units. Deliberately
#: low: the flag asks an admin to look, and must not fall on a fast careful expert.
SECONDS_PER_UNIT_FLOOR = 1.0


@dataclass(frozen=True)
class TaskPace:
    """One submitted task: its annotator, task type, units labelled and seconds on task."""

    assignment: int
    annotator: int
    task: str
    units: int
    seconds: int

    @property
    def per_unit(self) -> float | None:
        """Seconds per unit; None for a task with no unit labelled (nothing to divide)."""
        return self.seconds / self.units if self.units else None


def too_fast(paces: Iterable[TaskPace], floor: float = SECONDS_PER_UNIT_FLOOR) -> list[TaskPace]:
    """The tasks under ``floor`` seconds per unit, fastest first."""
    out = [p for p in paces if p.per_unit is not None and p.per_unit < floor]
    return sorted(out, key=lambda p: (p.per_unit, p.assignment))


def too_fast_by_annotator(
    paces: Iterable[TaskPace], floor: float = SECONDS_PER_UNIT_FLOOR
) -> dict[int, list[TaskPace]]:
    """annotator -> their tasks under ``floor`` seconds per unit, fastest first."""
    out: dict[int, list[TaskPace]] = defaultdict(list)
    for p in too_fast(paces, floor):
        out[p.annotator].append(p)
    return dict(out)
