"""DeepScholar-Bench's retrieval and summary metrics (seed 002 §4, App. 8.3; METHODS §4)."""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence

#: Table 2 columns, in order; "Geo. Mean" is their geometric mean.
COLUMNS = (
    "organization",
    "nugget_coverage",
    "relevance_rate",
    "reference_coverage",
    "document_importance",
    "citation_precision",
    "claim_coverage",
)


def relevance_rate(relevance: Sequence[int]) -> float:
    """Σ rel(s) / (2·|S|) over the retrieved sources S, rel ∈ {0, 1, 2} (seed 002 App. 8.3)."""
    rels = [int(r) for r in relevance]
    if any(r not in (0, 1, 2) for r in rels):
        raise ValueError("relevance grades are 0, 1 or 2")
    return sum(rels) / (2 * len(rels)) if rels else float("nan")


def reference_coverage(cited: Iterable, important: Iterable) -> float:
    """|S ∩ E| / |E|: the share of the exemplar's important references E that the report
    cites (seed 002 App. 8.3)."""
    e = set(important)
    return len(set(cited) & e) / len(e) if e else float("nan")


def document_importance(citations: Sequence[float], exemplar_citations: Sequence[float]) -> float:
    """min(median cites(S) / median cites(S*), 1): how often the report's sources are cited,
    relative to the human exemplar's (seed 002 App. 8.3)."""
    if not citations or not exemplar_citations:
        return float("nan")
    reference = statistics.median(exemplar_citations)
    if reference <= 0:
        return 1.0
    return min(statistics.median(citations) / reference, 1.0)


def organization_win_rate(outcomes: Iterable[int]) -> float:
    """Win rate against the exemplar with ties as half, over both presentation orders:
    ``outcomes`` holds +1 win / 0 tie / −1 loss for every (pair, order) (seed 002 §4)."""
    o = [int(x) for x in outcomes]
    return sum(1.0 if x > 0 else 0.5 if x == 0 else 0.0 for x in o) / len(o) if o else float("nan")


def geometric_mean(values: Iterable[float | None]) -> float:
    """(Π vᵢ)^(1/n) over the given metrics; ``None`` entries are left out (Table 2 footnote 1
    leaves the human exemplars' verifiability out). Any zero gives 0."""
    vals = [float(v) for v in values if v is not None]
    if not vals:
        return float("nan")
    if any(v < 0 for v in vals):
        raise ValueError("the geometric mean needs non-negative values")
    if any(v == 0 for v in vals):
        return 0.0
    return math.exp(math.fsum(math.log(v) for v in vals) / len(vals))
