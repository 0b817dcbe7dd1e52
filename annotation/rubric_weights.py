"""Which weights a rubric item may carry, by its rubric's kind: the one declaration the
import of a benchmark's rubric file, the API's rubric serializer and the Django admin's
rubric item forms all ask (:func:`weight_refusal`).

Why one rule for every way in: a benchmark's scores are computed with its weights (a
ResearcherBench system's weighted Coverage S_c), so a weight outside the benchmark's range
written by a PATCH or an admin's edit would reweigh every system as surely as one read
from a file. Before, only the import checked it. A rubric kind not declared here (the
generic questions format's, ResearchQA's) keeps its own rules: any number.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class WeightRange:
    """The weights, ``low`` to ``high`` inclusive, a benchmark gives its criteria, and why."""

    low: float
    high: float
    why: str

    @property
    def bounds(self) -> tuple[float, float]:
        return (self.low, self.high)


#: Rubric kind -> the weights its items may have. ResearcherBench's criteria weigh 1 (nice
#: to have) to 3 (core), as the paper's rubric design assigns them (004 §3: w_i in
#: {1, 2, 3}); its released files hold numbers in that range (``2.0``, ``1.5``), so the
#: rule is the range, not the three integers.
WEIGHT_RANGES: dict[str, WeightRange] = {
    "researcherbench": WeightRange(1, 3, "ResearcherBench weighs a criterion 1-3"),
}


def weight_refusal(kind: str | None, weight) -> str | None:
    """Why ``weight`` (as given: a string or a bool is no number) may not weigh an item of
    a rubric of ``kind``; None when it may (or the kind declares no range)."""
    from annotation.importers.common import is_number  # the importers' one number rule

    rule = WEIGHT_RANGES.get(kind) if isinstance(kind, str) else None
    if rule is None or (is_number(weight) and rule.low <= weight <= rule.high):
        return None
    return f"expected a number from {rule.low} to {rule.high} ({rule.why}), found {weight!r}"
