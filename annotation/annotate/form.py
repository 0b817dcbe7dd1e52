"""The declarative form parser every task page shares.

A task type declares its posted fields once, as :class:`Field` rows of a :class:`Form`:
the posted name (``"cov.<report>.<item>"``: literal parts and ``<unit>`` placeholders), where
the value goes in the payload (``"coverage.<report>.<item>"``), how it is converted, its
allowed values, its longest length and its default. From that one declaration come

* :meth:`Form.parse`: a POST (an autosave or a submit) becomes the payload stored in the
  draft. Ids posted for units that are not in the assignment are *kept*, so that
* :meth:`Form.problems` refuses them by name ("… a report that is not in this task"),
  together with values outside a field's choices and over-long texts, each message naming
  the unit and the field ("Coverage (Report A, item 3): 7 is not a label from 0 to 4.");
* :meth:`Form.missing`: which units still lack a value of a field (a required field is
  missing on submit; a draft keeps it as a warning). A field that declares no ``required``
  message is optional: its absence is never a problem.

A :class:`Unit` is the kind of thing a placeholder names (a report, a rubric item, a claim)
and says which ids the annotator's assignment holds. Units nest: the paragraphs of
``rel.<report>.<paragraph>`` are those of the report bound before them. A unit whose
``members`` is ``None`` accepts any id (client-made ids such as a new claim's); the task's own
rules check what lies under it.

Messages are ``str.format`` templates. They may name every unit bound so far by its display
name (``{report}`` -> "Report A", ``{item}`` -> 3), the value (``{value!r}``), the allowed
values (``{choices}``), the length limit (``{limit}``) and, for an unknown id, the id itself
(``{id}``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

#: A field with this default is not filled in when its record is created.
ABSENT = object()
#: ``members`` of a unit: (page, enclosing ids by unit name) -> {id: display name}, or None.
Members = Callable[[Any, Mapping[str, str]], Mapping[str, object] | None]
#: How a form finds a unit's members: (unit name, enclosing ids) -> {id: display} or None.
Resolver = Callable[[str, Mapping[str, str]], Mapping[str, object] | None]


@dataclass(frozen=True)
class Choices:
    """Allowed values and how a message names them ("R, U or O")."""

    values: Collection
    text: str

    def __contains__(self, value) -> bool:
        return value in self.values


@dataclass(frozen=True)
class Unit:
    """A kind of thing a dotted key names. ``unknown`` is the message for an id that is not
    one of the assignment's (a forged or stale one); a field may override it."""

    name: str
    members: Members | None = None
    unknown: str = "An answer names a {name} that is not in this task."


@dataclass(frozen=True)
class Field:
    """One posted field. ``name`` and ``path`` use the same ``<unit>`` placeholders; a
    placeholder written ``<unit*>`` takes the rest of the posted name, dots included (pair
    keys are two report ids joined by a dot)."""

    name: str
    path: str
    convert: Callable[[Any], Any] = str
    default: Any = ABSENT
    many: bool = False  # every posted value (checkboxes), a list
    skip_blank: bool = False  # an empty posted value is not stored
    blank_ok: bool = True  # an empty value passes the choices (``required`` may still ask)
    choices: Choices | Callable[[Any], Choices] | None = None
    invalid: str = "{value!r} is not {choices}."
    max_chars: int | None = None
    too_long: str = "longer than {limit} characters."
    required: str = ""  # message when missing; empty: the field is optional
    unknown: Mapping[str, str] = field(default_factory=dict)  # per unit name

    @property
    def segments(self) -> tuple[str, ...]:
        return tuple(self.path.split("."))

    @property
    def placeholders(self) -> tuple[str, ...]:
        return tuple(_unit_of(s) for s in self.segments if _unit_of(s))

    def match(self, posted: str) -> dict[str, str] | None:
        """The unit ids a posted name binds, or None when the name is not this field's."""
        found = _pattern(self.name).fullmatch(posted)
        return found.groupdict() if found else None

    def choices_for(self, context) -> Choices | None:
        return self.choices(context) if callable(self.choices) else self.choices


def _unit_of(segment: str) -> str:
    return segment[1:-1].rstrip("*") if segment.startswith("<") and segment.endswith(">") else ""


_PATTERNS: dict[str, re.Pattern] = {}


def _pattern(name: str) -> re.Pattern:
    """``"cov.<report>.<item>"`` -> a regex with one named group per placeholder."""
    if name not in _PATTERNS:
        parts = re.split(r"(<\w+\*?>)", name)
        regex = "".join(
            (f"(?P<{p[1:-2]}>.+)" if p.endswith("*>") else f"(?P<{p[1:-1]}>[^.]+)")
            if p.startswith("<")
            else re.escape(p)
            for p in parts
        )
        _PATTERNS[name] = re.compile(regex)
    return _PATTERNS[name]


def optional_int(value):
    """An empty value is None; a number is an int; anything else stays as posted (refused)."""
    return as_int(value or None)


def as_int(value):
    try:
        return int(value)
    except (TypeError, ValueError):
        return value


def checked(value) -> bool:
    return value == "on"


def json_list(value: str):
    """A JSON value (a list of citation keys); malformed text stays as posted (refused)."""
    try:
        return json.loads(value)
    except (ValueError, RecursionError):
        return value


def blank(value) -> bool:
    return value is None or value == "" or value == []


def empty(value) -> bool:
    return blank(value) or (isinstance(value, str) and not value.strip())


@dataclass(frozen=True)
class Form:
    """A task type's fields. ``title`` names the form in a malformed-answer message;
    ``finish`` reshapes a parsed payload (e.g. a dict of claims into an ordered list)."""

    title: str
    fields: tuple[Field, ...]
    units: tuple[Unit, ...] = ()
    finish: Callable[[dict], dict] | None = None

    # --- parsing --------------------------------------------------------------------------

    def empty(self) -> dict:
        """The payload of an untouched form (the task's initial answers)."""
        return self._record(())

    def parse(self, data) -> dict:
        """A POST (QueryDict, or a plain dict) -> the payload. Names no field declares are
        ignored; ids of units not in the assignment are kept for :meth:`problems`."""
        payload = self.empty()
        for name in list(data.keys()):
            for f in self.fields:
                ids = f.match(name)
                if ids is None:
                    continue
                value = data.get(name)
                if f.many:  # every posted value, each converted
                    self._put(payload, f, ids, [f.convert(v) for v in _getlist(data, name)])
                elif not (f.skip_blank and not value):
                    self._put(payload, f, ids, f.convert(value))
                break
        return self.finish(payload) if self.finish else payload

    def _record(self, prefix: tuple[str, ...]) -> dict:
        """A new record under ``prefix`` (a path template): every field below it with a
        default gets it, a nested placeholder level an empty dict."""
        record: dict = {}
        n = len(prefix)
        for f in self.fields:
            segs = f.segments
            if segs[:n] != prefix or len(segs) <= n or _unit_of(segs[n]):
                continue
            rest = segs[n + 1 :]
            if not rest:
                if f.default is not ABSENT:
                    record[segs[n]] = _copy(f.default)
            elif _unit_of(rest[0]):
                record[segs[n]] = {}
            else:
                record[segs[n]] = self._record(segs[: n + 1])
        return record

    def _put(self, payload: dict, f: Field, ids: Mapping[str, str], value) -> None:
        node = payload
        segs = f.segments
        for i, seg in enumerate(segs[:-1]):
            unit = _unit_of(seg)
            key = ids[unit] if unit else seg
            if key not in node:
                nested = unit and not _unit_of(segs[i + 1])
                node[key] = self._record(segs[: i + 1]) if nested else {}
            node = node[key]
        last = _unit_of(segs[-1])
        node[ids[last] if last else segs[-1]] = value

    # --- checking ------------------------------------------------------------------------

    def unit(self, name: str) -> Unit:
        for u in self.units:
            if u.name == name:
                return u
        return Unit(name)

    def resolver(self, page) -> Resolver:
        """Members of each unit in this page's assignment (cached per unit and parent)."""
        cache: dict = {}

        def resolve(name: str, enclosing: Mapping[str, str]):
            key = (name, tuple(sorted(enclosing.items())))
            if key not in cache:
                members = self.unit(name).members
                cache[key] = None if members is None else members(page, enclosing)
            return cache[key]

        return resolve

    def problems(self, payload, resolve: Resolver, context=None) -> list[str]:
        """What no honest form can post: ids of units not in the assignment, values outside
        a field's choices, texts over a field's limit, a malformed payload. ``context`` is
        passed to choices that depend on the study (e.g. graded or binary coverage)."""
        if not isinstance(payload, dict):
            return [f"{self.title}: malformed answer."]
        errors: dict[str, None] = {}
        for f in self.fields:
            for message in self._field_problems(payload, f, resolve, context):
                errors.setdefault(message, None)
        return list(errors)

    def _field_problems(self, payload, f: Field, resolve, context) -> Iterator[str]:
        choices = f.choices_for(context)
        for names, ids, value in self._walk(payload, f.segments, {}, {}, resolve, f):
            if value is _MALFORMED:
                yield f"{self.title}: malformed answer."
            elif value is _UNKNOWN:
                yield self._unknown(f, names, ids)
            elif choices is not None and not _allowed(value, choices, f):
                yield f.invalid.format(value=value, choices=choices.text, **names)
            elif f.max_chars is not None and len(str(value or "")) > f.max_chars:
                yield f.too_long.format(limit=f.max_chars, value=value, **names)

    def _unknown(self, f: Field, names: dict, ids: dict) -> str:
        unit = ids.pop(_UNKNOWN_KEY)
        template = f.unknown.get(unit) or self.unit(unit).unknown
        return template.format(id=ids[unit], name=unit, **{**ids, **names, unit: ids[unit]})

    def _walk(self, node, segs, names, ids, resolve, f) -> Iterator[tuple[dict, dict, Any]]:
        """(display names, ids, value) of every value stored for a field; an unknown id
        yields ``_UNKNOWN``, a non-dict level ``_MALFORMED``. A free unit stops the walk."""
        if not segs:
            yield names, ids, node
            return
        seg, rest = segs[0], segs[1:]
        unit = _unit_of(seg)
        members = resolve(unit, ids) if unit else None
        if unit and members is None:
            return
        if not isinstance(node, dict):
            yield names, ids, _MALFORMED
            return
        if not unit:
            if seg in node:
                yield from self._walk(node[seg], rest, names, ids, resolve, f)
            return
        for key, child in node.items():
            bound = {**ids, unit: key}
            if key not in members:
                yield names, {**bound, _UNKNOWN_KEY: unit}, _UNKNOWN
                continue
            named = {**names, unit: members[key]}
            yield from self._walk(child, rest, named, bound, resolve, f)

    def missing(self, payload, f: Field, resolve: Resolver) -> list[dict]:
        """The bindings (display names by unit, and ``ids``) of every unit of the assignment
        that has no value for ``f``, in the units' order. Only meaningful once
        :meth:`problems` found nothing."""
        return list(self._missing(payload, f.segments, {}, {}, resolve))

    def _missing(self, node, segs, names, ids, resolve) -> Iterator[dict]:
        if not segs:
            if empty(node):
                yield {**names, "ids": ids}
            return
        seg, rest = segs[0], segs[1:]
        unit = _unit_of(seg)
        node = node if isinstance(node, dict) else {}
        if not unit:
            yield from self._missing(node.get(seg), rest, names, ids, resolve)
            return
        for key, display in (resolve(unit, ids) or {}).items():
            bound, named = {**ids, unit: key}, {**names, unit: display}
            yield from self._missing(node.get(key), rest, named, bound, resolve)

    def required_problems(self, payload, resolve: Resolver) -> list[str]:
        """The ``required`` message of every missing value of a field that declares one."""
        return [
            f.required.format(**{k: v for k, v in where.items() if k != "ids"})
            for f in self.fields
            if f.required
            for where in self.missing(payload, f, resolve)
        ]


_MALFORMED = object()
_UNKNOWN = object()
_UNKNOWN_KEY = "\0unknown"


def _allowed(value, choices: Choices, f: Field) -> bool:
    if f.many:
        return isinstance(value, list) and all(v in choices for v in value)
    return (f.blank_ok and blank(value)) or value in choices


def _getlist(data, name: str) -> list:
    getlist = getattr(data, "getlist", None)
    if getlist is not None:
        return list(getlist(name))
    value = data.get(name)
    return list(value) if isinstance(value, list | tuple) else [value]


def _copy(value):
    return type(value)() if isinstance(value, dict | list) else value
