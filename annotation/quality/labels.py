"""One canonical, comparable label per unit, whatever the task stores.

A *unit* is ``(task, question_id, unit)``: for a medal ranking ``unit`` is empty (the whole
ranking is the label, e.g. ``"SysA=gold;SysB=silver"``); for pairwise preference ``unit`` names
the pair by its systems, sorted (``"SysA~SysB"``), and the label is the winning system's
name, ``tie`` or ``both_bad``, whichever side the report was shown on. Two annotators agree on
a unit when their labels are equal strings. Labels use system names: they are for admins and
analyses, never shown to an annotator (the adjudication page blinds them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

PAIRWISE, MEDAL_RANKING = "pairwise", "medal_ranking"
#: Tasks whose judgments quality control reads.
TASKS = (PAIRWISE, MEDAL_RANKING)
MEDALS = ("gold", "silver", "bronze")
PAIR_OUTCOMES = ("tie", "both_bad")

Unit = tuple[str, int, str]


@dataclass(frozen=True)
class Observation:
    """One annotator's submitted label on one unit."""

    annotator: int
    unit: Unit
    label: str
    submitted_at: datetime | None = None
    seconds: int = 0
    #: the assignment it was submitted in (time per task is per assignment, not per unit)
    assignment: int | None = None


def pair_unit(a: str, b: str) -> str:
    return "~".join(sorted((a, b)))


def pairwise_label(choice: str, left: str, right: str) -> str:
    """``left``/``right`` are system names; the label does not depend on the side shown."""
    return {"left": left, "right": right}.get(choice, choice)


def medal_label(medals: Mapping[str, str]) -> str:
    return ";".join(f"{system}={medal}" for system, medal in sorted(medals.items()))


class BadAnswer(ValueError):
    """An entered or imported answer that is not a label of its task (message says why)."""


def parse_answer(task: str, text: str, systems: Sequence[str], unit: str = "") -> tuple[str, str]:
    """``(unit, label)`` from an admin's notation, checked against the question's systems.

    pairwise: ``SysA>SysB`` (SysA better), ``SysA=SysB`` (tie), ``SysA,SysB:both_bad``;
    medal_ranking: ``SysA=gold;SysB=silver;SysC=bronze``.
    """
    text = (text or "").strip()
    if not text:
        raise BadAnswer("the answer is empty")
    known = set(systems)
    if task == PAIRWISE:
        if text.endswith(":both_bad"):
            a, _, b = text[: -len(":both_bad")].partition(",")
            label = "both_bad"
        elif ">" in text:
            a, _, b = text.partition(">")
            label = a.strip()
        elif "=" in text:
            a, _, b = text.partition("=")
            label = "tie"
        else:
            raise BadAnswer(f"“{text}” is not SysA>SysB, SysA=SysB or SysA,SysB:both_bad")
        a, b = a.strip(), b.strip()
        for name in (a, b):
            if name not in known:
                raise BadAnswer(f"no report of system “{name}” for this question")
        if a == b:
            raise BadAnswer("a pair needs two different systems")
        return pair_unit(a, b), label
    if task == MEDAL_RANKING:
        medals = {}
        for part in filter(None, (p.strip() for p in text.split(";"))):
            name, _, medal = part.partition("=")
            name, medal = name.strip(), medal.strip().lower()
            if name not in known:
                raise BadAnswer(f"no report of system “{name}” for this question")
            if medal not in MEDALS:
                raise BadAnswer(f"“{medal}” is not one of {', '.join(MEDALS)}")
            medals[name] = medal
        if set(medals) != known:
            raise BadAnswer(f"every report needs a medal: {', '.join(sorted(known))}")
        return "", medal_label(medals)
    raise BadAnswer(f"quality control reads {', '.join(TASKS)}, not “{task}”")
