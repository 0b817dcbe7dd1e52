"""Agreement with the consensus, disagreements, time per task and drift (pure).

Consensus is leave-one-out: an annotator's label on a unit is compared with the strict
plurality label of the *other* annotators of that unit (units where the others tie, or where
no one else labelled, do not count) — comparing with a majority that includes oneself would
inflate agreement (the usual correction in crowdsourcing quality control).

Drift compares an annotator's agreement in the first and last third of their submissions in
time order (``last - first``: negative means they got worse); with fewer than ``3 * min_part``
scored submissions drift is None.
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime

from .labels import Observation, Unit
from .scoring import Gold, answers, checks


def by_unit(observations: Iterable[Observation]) -> dict[Unit, list[Observation]]:
    out: dict[Unit, list[Observation]] = defaultdict(list)
    for o in observations:
        out[o.unit].append(o)
    return dict(out)


def plurality(labels: Iterable[str]) -> str | None:
    """The most frequent label, or None when two or more tie for the top (or no label)."""
    top = Counter(labels).most_common(2)
    if not top or (len(top) == 2 and top[0][1] == top[1][1]):
        return None
    return top[0][0]


def disagreements(observations: Iterable[Observation]) -> dict[Unit, list[Observation]]:
    """Units labelled by two or more annotators with at least two different labels."""
    return {
        u: obs
        for u, obs in by_unit(observations).items()
        if len({o.annotator for o in obs}) >= 2 and len({o.label for o in obs}) >= 2
    }


def consensus_hits(
    observations: Iterable[Observation], excluded: Collection[int] = frozenset()
) -> list[tuple[Observation, bool]]:
    """(observation, agrees with the others' plurality) for every observation that has one.
    The labels of ``excluded`` annotators (failed qualification) are scored but never part
    of anyone's consensus."""
    out = []
    for obs in by_unit(observations).values():
        for o in obs:
            others = plurality(
                x.label for x in obs if x.annotator != o.annotator and x.annotator not in excluded
            )
            if others is not None:
                out.append((o, o.label == others))
    return out


@dataclass
class AnnotatorQuality:
    annotator: int
    submitted: int = 0
    consensus_agree: int = 0
    consensus_n: int = 0
    gold_correct: int = 0
    gold_n: int = 0
    #: Gold units left unanswered by skipping their task ("Flag or skip") or by leaving the
    #: unit unlabelled in a submitted task (a skipped claim): each counts as not passed
    #: (docs/QUALITY.md), so skipping cannot dodge the check.
    gold_skipped: int = 0
    median_seconds: float | None = None
    first_third: float | None = None
    last_third: float | None = None

    @property
    def consensus_rate(self) -> float | None:
        return self.consensus_agree / self.consensus_n if self.consensus_n else None

    @property
    def gold_checked(self) -> int:
        """Gold units answered or skipped: what gold accuracy is out of."""
        return self.gold_n + self.gold_skipped

    @property
    def gold_rate(self) -> float | None:
        return self.gold_correct / self.gold_checked if self.gold_checked else None

    @property
    def drift(self) -> float | None:
        if self.first_third is None or self.last_third is None:
            return None
        return self.last_third - self.first_third


def drift_parts(hits: list[tuple[datetime | None, bool]], min_part: int = 1):
    """Agreement rate in the first and last third of ``hits`` in time order."""
    ordered = [ok for _, ok in sorted(hits, key=lambda h: (h[0] is None, h[0] or 0))]
    third = len(ordered) // 3
    if third < min_part:
        return None, None
    first, last = ordered[:third], ordered[-third:]
    return sum(first) / len(first), sum(last) / len(last)


def annotator_quality(
    observations: Iterable[Observation],
    gold: Mapping[Unit, Gold],
    seconds: Mapping[int, list[int]] | None = None,
    excluded: Collection[int] = frozenset(),
    skipped: Mapping[int, Collection[Unit]] | None = None,
) -> dict[int, AnnotatorQuality]:
    """Per annotator: consensus agreement, gold accuracy, median seconds per task (from
    ``seconds``: annotator -> seconds of each submitted assignment) and drift, where each
    scored submission counts once: against gold when the unit is gold, else the consensus
    (never made of ``excluded`` annotators' labels: :func:`consensus_hits`). ``skipped``:
    annotator -> the gold units they skipped (``observations.skipped``), each a gold check
    not passed (in accuracy's denominator, never correct). A gold unit is one check per
    annotator however many of their tasks showed it (``scoring.checks``: an answer wins
    over a skip, the latest answer is scored)."""
    observations = list(observations)
    counted = checks(observations, gold, skipped)
    scored_answers = {id(o) for o in counted.answers}
    out: dict[int, AnnotatorQuality] = {}
    for aid, units in counted.skipped.items():
        out.setdefault(aid, AnnotatorQuality(aid)).gold_skipped = len(units)
    scored: dict[int, list[tuple[datetime | None, bool]]] = defaultdict(list)
    consensus = {id(o): ok for o, ok in consensus_hits(observations, excluded)}
    for o in observations:
        q = out.setdefault(o.annotator, AnnotatorQuality(o.annotator))
        q.submitted += 1
        g = gold.get(o.unit)
        if answers(o, g):
            if id(o) in scored_answers:  # else another answer of theirs to it is scored
                ok = o.label == g.answer
                q.gold_n += 1
                q.gold_correct += ok
                scored[o.annotator].append((o.submitted_at, ok))
        elif id(o) in consensus:
            scored[o.annotator].append((o.submitted_at, consensus[id(o)]))
        if id(o) in consensus:
            q.consensus_n += 1
            q.consensus_agree += consensus[id(o)]
    for aid, q in out.items():
        q.first_third, q.last_third = drift_parts(scored[aid])
        times = (seconds or {}).get(aid) or []
        q.median_seconds = statistics.median(times) if times else None
    return out
