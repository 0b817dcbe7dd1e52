"""One canonical, comparable label per unit, whatever the task stores.

Every task type declares how quality control reads it once, on its TaskSpec (``qc``, a
:class:`LabelSpec`, in its module ``annotation/annotate/<key>.py``): what a unit is, which
labels a unit takes, how its submitted rows become labels — or, for a task without a single
label (free text, a self-report), why not. The registry refuses a task type without one, so
adding a task type adds its quality control. docs/QUALITY.md lists every task's units.

Scoring is exact match for every task, ordinal scales included (a 0–4 coverage grade, a 1–5
rating): *within one* does not count as correct or as agreement. Why: gold items are attention
checks, and on a 0–4 scale a label drawn at random lands within one of a middle answer three
times in five, which would hide inattentive annotators; a researcher wanting a tolerant
measure reads the labels themselves (``human_signal``) and computes it.

A *unit* is ``(task, question_id, unit)``: for a medal ranking ``unit`` is empty (the whole
ranking is the label, e.g. ``"SysA=gold;SysB=silver"``); for pairwise preference ``unit`` names
the pair by its systems, sorted (``"SysA~SysB"``), and the label is the winning system's
name, ``tie`` or ``both_bad``, whichever side the report was shown on. Two annotators agree on
a unit when their labels are equal strings. Labels use system names: they are for admins and
analyses, never shown to an annotator (the adjudication page blinds them).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from concord.query import is_digits

PAIRWISE, MEDAL_RANKING = "pairwise", "medal_ranking"
#: The first task types quality control read (kept for callers; every task now declares
#: its own: ``annotation.quality.catalog``).
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


def parse_answer(
    task: str,
    text: str,
    systems: Sequence[str],
    unit: str = "",
    sizes: tuple[int, int] | None = None,
) -> tuple[str, str]:
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
        return "", _ranking(text, systems, sizes=sizes)
    raise BadAnswer(f"quality control reads {', '.join(TASKS)}, not “{task}”")


# --- per task-type declarations ---------------------------------------------------------------

#: Separates what a unit is about from the system whose report it is in: ``"item expert:3@SysA"``
#: (``rpartition``: keys before it may hold "@", a system name may not).
AT = "@"


def on_report(what: str, system: str) -> str:
    return f"{what}{AT}{system}"


def report_system(unit: str) -> str:
    """The system whose report a unit is in ("" for a unit of the whole question)."""
    what, at, system = unit.rpartition(AT)
    return system if at else ""


@dataclass(frozen=True)
class Values:
    """The labels one unit takes: ``values`` (ordered when ``ordinal``), or — ``ranked`` —
    a medal ranking over ``values`` (system names or rubric kinds), entered as
    ``A=gold;B=silver``."""

    values: tuple[str, ...]
    ordinal: bool = False
    ranked: bool = False
    #: For a ranking of reports: how many of ``values`` one ranking ranks, (fewest, most),
    #: when a task shows a subset of a question's reports (a medal ranking shows 2–3 of
    #: four): the label names exactly the reports shown. None: every one of ``values``.
    sizes: tuple[int, int] | None = None


#: A submitted judgment row (any JudgmentBase: annotator_id, question_id, assignment,
#: updated_at), the unit it labels, and the label.
Row = tuple[object, str, str]


@dataclass(frozen=True)
class LabelSpec:
    """How quality control reads one task type (``TaskSpec.qc``).

    ``rows(study, annotator | None)`` yields :data:`Row` for every stored label of the task
    (submitted or not: the loader keeps the submitted ones). ``units(study, question)`` gives
    every unit a question offers with its :class:`Values` (an entered known answer is checked
    against it, and the adjudicator chooses among its values). ``parse`` is an optional
    notation that names the unit itself (``SysA>SysB``). An adjudicator reads the reports
    the unit names (``extra["unit_systems"]``, else the system after ``@``), every report for
    a ranking of reports, none for a unit about the question itself. ``blind_as``: how ranked
    names are shown to an adjudicator ("Report" or "Rubric"). A task without a single label
    has ``rows`` None and says why in ``no_label``. ``held(study)``: whether the study holds
    any stored label of the task, as ``EXISTS`` queries whose number and depth do not grow
    with the study (``annotation.annotate.qc.held``); required with ``rows``.
    ``unlabelled(study, question_ids, annotator | None)``: for a task whose submitted
    assignment may leave a unit it showed without a label (a claim skipped in a claim
    check), :data:`Row` with label "" for every such unit, in one query — a known-answer
    unit left so counts as not passed (``observations.skipped``; docs/QUALITY.md). None:
    the task's form requires every unit it shows.
    """

    unit: str
    label: str
    rows: Callable[..., Iterable[Row]] | None = None
    held: Callable[..., bool] | None = None
    units: Callable[..., Mapping[str, Values]] | None = None
    parse: Callable[[str, Sequence[str]], tuple[str, str]] | None = None
    unlabelled: Callable[..., Iterable[Row]] | None = None
    blind_as: str = "Report"
    no_label: str = ""
    notation: str = ""
    extra: dict = field(default_factory=dict)

    def __post_init__(self):
        if (self.rows is None) != (self.held is None):
            raise ValueError(f"LabelSpec of “{self.unit}”: give both rows and held, or neither")

    @property
    def has_label(self) -> bool:
        return self.rows is not None

    def systems_in(self, unit: str) -> list[str]:
        """The systems a unit names (whose reports an adjudicator reads)."""
        split = self.extra.get("unit_systems")
        if split is not None:
            return list(split(unit))
        system = report_system(unit)
        return [system] if system else []


def no_label(why: str) -> LabelSpec:
    return LabelSpec(unit="—", label="—", no_label=why)


def check_answer(values: Values, text: str, noun: str = "report") -> str:
    """The label ``text`` names for a unit taking ``values`` (``BadAnswer`` saying why not)."""
    text = (text or "").strip()
    if not text:
        raise BadAnswer("the answer is empty")
    if values.ranked:
        return _ranking(text, values.values, noun, values.sizes)
    if text not in values.values:
        raise BadAnswer(f"“{text}” is not one of {', '.join(values.values)}")
    return text


def _ranking(
    text: str, names: Sequence[str], noun: str = "report", sizes: tuple[int, int] | None = None
) -> str:
    known, medals = set(names), {}
    for part in filter(None, (p.strip() for p in text.split(";"))):
        name, _, medal = part.partition("=")
        name, medal = name.strip(), medal.strip().lower()
        if name not in known:
            raise BadAnswer(f"no {noun} “{name}” here (one of {', '.join(sorted(known))})")
        if medal not in MEDALS:
            raise BadAnswer(f"“{medal}” is not one of {', '.join(MEDALS)}")
        medals[name] = medal
    if sizes is None and set(medals) != known:
        raise BadAnswer(f"every {noun} needs a medal: {', '.join(sorted(known))}")
    if sizes is not None and not sizes[0] <= len(medals) <= sizes[1]:
        raise BadAnswer(
            f"rank {sizes[0]} to {sizes[1]} {noun}s (the ones a task shows), not {len(medals)}"
        )
    return medal_label(medals)


def ranked_names(label: str) -> list[str]:
    """The names a ranking label ranks (``A=gold;B=silver`` -> A, B)."""
    return sorted({part.split("=")[0] for part in label.split(";") if "=" in part})


# --- unit names: one format and its parser per kind of unit --------------------------------
# The task modules write units with these (``TaskSpec.qc``) and the analyses read an
# adjudicated unit back with them (metaeval.loaders.signal): one declaration, so a unit an
# adjudicator decided is always found again by the analysis of the same label.


def split_unit(unit: str) -> tuple[str, str]:
    """``(what, system)`` of a unit (system "" for a unit of the whole question)."""
    what, at, system = unit.rpartition(AT)
    return (what, system) if at else (unit, "")


def item_unit(kind: str, position: int) -> str:
    """One rubric item of a question: ``item <rubric kind>:<position>``."""
    return f"item {kind}:{position}"


def parse_item(what: str) -> tuple[str, int] | None:
    """``(rubric kind, position)`` of :func:`item_unit`'s name, None when it is not one."""
    head, _, rest = what.partition(" ")
    kind, colon, position = rest.rpartition(":")
    if head != "item" or not colon or not is_digits(position):
        return None
    return kind, int(position)


def parse_paragraph(what: str) -> int | None:
    """The number of a paragraph unit's name (``paragraph 10``, as the metric-wise and
    relevance tasks write it), None when it is not one."""
    head, _, number = what.partition(" ")
    return int(number) if head == "paragraph" and is_digits(number) else None


def claim_unit(public_id: str, citation: str | None = None) -> str:
    """A claim (is it fully supported?) or one citation of it (does it support it?)."""
    return f"claim {public_id}" if citation is None else f"claim {public_id} cites {citation}"


def parse_claim(what: str) -> tuple[str, str | None] | None:
    """``(claim public id, citation key or None)`` of :func:`claim_unit`'s name."""
    head, _, rest = what.partition(" ")
    if head != "claim" or not rest:
        return None
    pid, cites, key = rest.partition(" cites ")
    return (pid, key if cites else None)


def rating_unit(dimension: str) -> str:
    return f"rating {dimension}"


def parse_rating(what: str) -> str | None:
    head, _, dimension = what.partition(" ")
    return dimension if head == "rating" and dimension else None


def scale_unit(scale: str, kind: str, position: int) -> str:
    """One scale of one rubric item (rubric item quality): ``emphasis item expert:3``."""
    return f"{scale} {item_unit(kind, position)}"


def parse_scale(what: str) -> tuple[str, str, int] | None:
    scale, _, rest = what.partition(" ")
    item = parse_item(rest)
    return None if item is None else (scale, *item)


def keyed_unit(key: str, system: str) -> str:
    """A DeepScholar label's unit: ``<key>@System`` (``report@System`` for the report
    itself, key ""), or ``<key>`` for a unit of the question (no report)."""
    return on_report(key or "report", system) if system else key


def parse_keyed(unit: str) -> list[tuple[str, str]]:
    """The ``(key, system)`` readings of :func:`keyed_unit`'s name, likeliest first: a key
    may hold "@", so a unit of the question whose key does is also read whole."""
    what, system = split_unit(unit)
    if not system:
        return [(unit, "")]
    return [("" if what == "report" else what, system), (unit, "")]


def parse_ranking(label: str) -> dict[str, str]:
    """name -> medal of a ranking label (:func:`medal_label`'s inverse)."""
    return dict(part.split("=", 1) for part in label.split(";") if "=" in part)
