"""The options of a live judge run, declared once (:data:`RUN_OPTIONS`).

A run's ``options`` were stored as given and read with ``options.get(...)`` by the
planner (:mod:`judges.kinds`): a misspelt name (``rejudje``), a string where a boolean was
meant (``"rejudge": "no"`` read as true) or a system or rubric kind the study lacks gave a
run of 0 units marked done. :func:`clean_options` now checks every option against its
declaration and the study before a run is created; :func:`judges.runs.create_run` calls it,
so the API, the runs page and the ``judge_run`` command refuse the same things with the
same message, which names the option (:class:`RunOptionError`). The page's help texts,
the API's description and the command's ``--options`` help are derived from here.

A new option is one :class:`RunOption` here and its reading in :mod:`judges.kinds`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from annotation.models import Question, Rubric, Study, System


class RunError(ValueError):
    """A run cannot be created or resumed; the message says why (:mod:`judges.runs`
    re-exports it; it is declared here so that an option's error is one)."""


class RunOptionError(RunError):
    """One run option is wrong; ``option`` names it, ``detail`` says why. Its text,
    ``"<option>: <detail>"``, starts with the option as the runs page's error mapping
    expects (a form field of the same name gets the error)."""

    def __init__(self, option: str, detail: str):
        super().__init__(f"{option}: {detail}")
        self.option = option
        self.detail = detail


def _systems(study: Study) -> set[str]:
    return set(System.objects.filter(study=study).values_list("name", flat=True))


def _questions(study: Study) -> set[str]:
    return set(Question.objects.filter(study=study).values_list("external_id", flat=True))


def _rubric_kinds(study: Study) -> set[str]:
    return set(Rubric.objects.filter(question__study=study).values_list("kind", flat=True))


@dataclass(frozen=True)
class RunOption:
    """One run option. ``kind``: ``bool`` (a JSON boolean), ``int`` (a whole number ≥ 1),
    ``text`` (a non-empty string) or ``names`` (a list of strings). ``known``: the values
    the study has (a value outside them is refused, naming them). ``tasks``: the unit
    kinds the option acts on (empty: every kind); a run none of whose tasks plans such
    units is refused the option, since it would be ignored."""

    name: str
    kind: str
    help: str
    known: Callable[[Study], set[str]] | None = None
    noun: str = ""
    tasks: tuple[str, ...] = ()


#: Every option a run takes, by name.
RUN_OPTIONS: dict[str, RunOption] = {
    o.name: o
    for o in (
        RunOption(
            "systems",
            "names",
            "only these systems' reports (names); none = every system",
            known=_systems,
            noun="system",
        ),
        RunOption(
            "questions",
            "names",
            "only these questions' reports (external ids); none = every question",
            known=_questions,
            noun="question",
        ),
        RunOption(
            "rubric_kind",
            "text",
            "coverage (0–4 or binary): items of this rubric kind only",
            known=_rubric_kinds,
            noun="rubric kind",
            tasks=("coverage", "coverage_binary"),
        ),
        RunOption(
            "items_per_call",
            "int",
            "coverage (0–4 or binary): rubric items per call (default 8)",
            tasks=("coverage", "coverage_binary"),
        ),
        RunOption("rejudge", "bool", "judge again what this judge already judged"),
    )  # fmt: skip
}


def describe() -> str:
    """One line per option, for the API's and the command's help."""
    return "; ".join(f"{o.name} ({o.kind}): {o.help}" for o in RUN_OPTIONS.values())


def _typed(o: RunOption, value):
    if o.kind == "bool":
        if not isinstance(value, bool):
            raise RunOptionError(o.name, f"{value!r} is not true or false")
        return value
    if o.kind == "int":
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise RunOptionError(o.name, f"{value!r} is not a whole number ≥ 1")
        return value
    if o.kind == "text":
        if not isinstance(value, str) or not value.strip():
            raise RunOptionError(o.name, f"{value!r} is not a non-empty text")
        return value.strip()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise RunOptionError(o.name, f"{value!r} is not a list of names")
    return list(dict.fromkeys(v.strip() for v in value))


def clean_options(options, study: Study, unit_tasks) -> dict:
    """``options`` checked against :data:`RUN_OPTIONS` and ``study``: the cleaned dict to
    store, or :class:`RunOptionError` on the first wrong option. ``unit_tasks``: the unit
    kinds the run plans (an option acting on none of them is refused)."""
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise RunOptionError("options", f"{options!r} is not an object of options")
    unknown = sorted(set(options) - set(RUN_OPTIONS))
    if unknown:
        raise RunOptionError(
            unknown[0], "unknown option; a run takes " + ", ".join(sorted(RUN_OPTIONS))
        )
    cleaned = {}
    for name, value in options.items():
        o = RUN_OPTIONS[name]
        value = _typed(o, value)
        if o.tasks and not set(o.tasks) & set(unit_tasks):
            raise RunOptionError(
                name, f"applies to {', '.join(o.tasks)} units, which none of the tasks plans"
            )
        if o.known is not None:
            have = o.known(study)
            missing = [v for v in (value if isinstance(value, list) else [value]) if v not in have]
            if missing:
                listed = ", ".join(sorted(have)[:20]) or "none"
                raise RunOptionError(
                    name,
                    f"no {o.noun} {', '.join(map(repr, missing))} in study {study.name!r} "
                    f"(its {o.noun}s: {listed})",
                )
        cleaned[name] = value
    return cleaned
