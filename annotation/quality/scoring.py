"""Gold accuracy and qualification pass/fail (pure).

Gold accuracy of an annotator = correct / answered over the gold units they submitted a label
for, their own source judgment excluded (an item marked from A's judgment never scores A).
A ranking answers a ranked gold item only when it ranks the same reports (a medal ranking
shows 2–3 of a question's reports: a ranking of other reports is no answer to it).
An annotator is *flagged* when they answered at least ``min_items`` gold units and their
accuracy is below the study's ``gold_threshold``.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass

from .labels import Observation, Unit, parse_ranking


@dataclass(frozen=True)
class Gold:
    answer: str
    source_annotator: int | None = None


@dataclass
class Score:
    correct: int = 0
    answered: int = 0

    @property
    def rate(self) -> float | None:
        return self.correct / self.answered if self.answered else None


@dataclass(frozen=True)
class Checks:
    """The known-answer checks that count: one per annotator and unit (:func:`checks`)."""

    #: the one scored answer of each (annotator, unit)
    answers: list[Observation]
    #: annotator -> the units they left unanswered (skipped) and answered nowhere
    skipped: dict[int, list[Unit]]


def checks(
    observations: Iterable[Observation],
    gold: Mapping[Unit, Gold],
    skipped: Mapping[int, Collection[Unit]] | None = None,
) -> Checks:
    """One check per annotator and known-answer unit, however many tasks showed it (the
    same claim in a claim check of two settings): an answer wins over a skip (the check
    was not dodged: as a skipped task done later is answered, no longer skipped), and of
    two answers the latest submitted is scored (their current judgment). Without it one
    annotator's unit counted twice (answered and skipped, or answered twice), and a
    qualification round could count more answers than items. ``skipped``: annotator ->
    the units they skipped (``observations.skipped``). The one declaration read by gold
    accuracy (:func:`gold_scores`, ``agreement.annotator_quality``) and the qualification
    result. docs/QUALITY.md, "One check per annotator and unit"."""
    latest: dict[tuple[int, Unit], Observation] = {}
    for o in observations:
        key = (o.annotator, o.unit)
        if answers(o, gold.get(o.unit)) and (key not in latest or _later(o, latest[key])):
            latest[key] = o
    unanswered = {
        aid: sorted(u for u in set(units) if (aid, u) not in latest)
        for aid, units in (skipped or {}).items()
    }
    return Checks(list(latest.values()), {aid: units for aid, units in unanswered.items() if units})


def _later(o: Observation, than: Observation) -> bool:
    """Whether ``o`` was submitted after ``than`` (an unknown time counts as earliest; the
    assignment id breaks a tie: the later assignment)."""

    def when(x: Observation) -> tuple[float, int]:
        return (x.submitted_at.timestamp() if x.submitted_at else float("-inf"), x.assignment or 0)

    return when(o) > when(than)


def gold_scores(observations: Iterable[Observation], gold: Mapping[Unit, Gold]) -> dict[int, Score]:
    """Per annotator: their gold units answered and correct, one per unit (:func:`checks`)."""
    out: dict[int, Score] = {}
    for o in checks(observations, gold).answers:
        g = gold[o.unit]
        s = out.setdefault(o.annotator, Score())
        s.answered += 1
        s.correct += o.label == g.answer
    return out


def answers(o: Observation, g: Gold | None) -> bool:
    """Whether ``o`` is scored against the gold item ``g``: not its source annotator's own
    label, and for a ranking, a ranking of the same reports (one declaration for gold
    accuracy here and in ``agreement.annotator_quality``)."""
    if g is None or g.source_annotator == o.annotator:
        return False
    if "=" in g.answer:  # a ranking (A=gold;B=silver): of the item's reports only
        return set(parse_ranking(o.label)) == set(parse_ranking(g.answer))
    return True


def flagged(score: Score | None, threshold: float, min_items: int = 1) -> bool:
    return bool(score and score.answered >= min_items and score.rate < threshold)


def qualification_outcome(
    score: Score, items: int, pass_mark: float, skipped: int = 0
) -> bool | None:
    """None while items remain neither answered nor skipped; then passed iff
    correct / items ≥ pass_mark. A skipped item is an item not passed: skipping cannot
    leave a round undecided forever, nor pass it (docs/QUALITY.md)."""
    if items == 0 or score.answered + skipped < items:
        return None
    return score.correct / items >= pass_mark
