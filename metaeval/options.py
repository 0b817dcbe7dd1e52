"""Report options, declared once: the fields of :class:`metaeval.reports.ReportOptions`
carry their description as dataclass field metadata (:func:`option`), and everything that
reads or shows options is derived from it here (issue 14, item 2):

* the report commands' arguments (:func:`add_arguments`, :func:`from_command`);
* the API's OpenAPI query parameters (:func:`openapi_parameters`);
* query strings and JSON bodies -> options (:func:`from_query`), with the error naming
  the option;
* the page's selector form (:func:`form_controls`) and its links (:func:`to_query`).

A new option is one field with ``option(...)`` metadata in ``ReportOptions``; a test
(``tests/metaeval/test_options.py``) fails if a field has none or a derived place lacks it.

This module imports nothing of ``reports`` at import time (``reports`` imports
:func:`option` from here to declare its fields).
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, field, fields
from urllib.parse import parse_qsl, urlencode

#: The settings a judgment is made in (``annotation.models.Setting``; a test checks they
#: are the same).
SETTINGS = ("assigned", "expertise_matched", "near_expert", "deep_expert")


@dataclass(frozen=True)
class OptionMeta:
    """How one report option is read, written and shown.

    ``kind``: ``names`` (comma-separated names), ``bool``, ``int``, ``number`` or
    ``text``. ``choices``: the allowed values (empty: any). ``flag``: the command-line
    flag when it is not ``--<name-with-dashes>``; ``one``: the command line takes one
    value for a ``names`` option (``--setting``). ``interval``: only commands that report
    intervals and subsets take it (``judge_alignment`` does not). ``widget``: how the page
    shows it (``select``, ``number``, ``check``, ``checks``), or ``hidden`` (carried from
    link to link, not a selector). ``label``: the page's label.
    """

    help: str
    kind: str = "text"
    choices: tuple = ()
    flag: str | None = None
    one: bool = False
    interval: bool = False
    metavar: str | None = None
    widget: str = "hidden"
    label: str = ""
    empty_label: str | None = None  # a select's "no value" entry (None: no such entry)
    choice_label: str = "{}"  # a select entry's text, from its value
    placeholder: str = ""
    order: int = 99  # position on the page's form


def option(default, help: str, **meta):  # noqa: A002 - the argparse word
    """A ``ReportOptions`` field with its :class:`OptionMeta`."""
    return field(default=default, metadata={"option": OptionMeta(help=help, **meta)})


@dataclass(frozen=True)
class Option:
    """One declared option: the dataclass field's name and default with its metadata."""

    name: str
    default: object
    meta: OptionMeta

    @property
    def flag(self) -> str:
        return self.meta.flag or "--" + self.name.replace("_", "-")

    @property
    def dest(self) -> str:
        return self.flag.lstrip("-").replace("-", "_")

    def text(self, value) -> str:
        """``value`` as it is written in a query string."""
        if isinstance(value, list | tuple):
            return ",".join(value)
        if isinstance(value, bool):
            return "true" if value else "false"
        return str(value)


def declared() -> list[Option]:
    """Every option of ``ReportOptions``, in field order; a field without metadata is an
    error (so no option exists that the derived places do not know)."""
    from .reports import ReportOptions

    out = []
    for f in fields(ReportOptions):
        meta = f.metadata.get("option")
        if meta is None:
            raise TypeError(f"ReportOptions.{f.name} has no option(...) metadata")
        default = f.default if f.default is not MISSING else f.default_factory()
        out.append(Option(f.name, default, meta))
    return out


def by_name() -> dict[str, Option]:
    return {o.name: o for o in declared()}


# ----------------------------------------------------------------------------- command line


def add_arguments(parser, *, interval: bool = True) -> None:
    """The options as command-line arguments (``interval=False``: without those only a
    report with intervals and subsets reads, for ``judge_alignment``)."""
    for opt in declared():
        meta = opt.meta
        if meta.interval and not interval:
            continue
        kwargs: dict = {"help": meta.help}
        if meta.kind == "bool":
            kwargs["action"] = "store_true"
        else:
            if meta.choices:
                kwargs["choices"] = list(meta.choices)
            if meta.kind == "int":
                kwargs["type"] = int
            if opt.default not in (None, (), ""):
                kwargs["default"] = opt.default
            if meta.metavar:
                kwargs["metavar"] = meta.metavar
        parser.add_argument(opt.flag, **kwargs)


def from_command(opts: dict):
    """ReportOptions from parsed command options; a bad value raises ValueError naming it."""
    from .reports import ReportOptions, parse_threshold

    values = {}
    for opt in declared():
        if opt.dest not in opts:
            continue  # an interval option the command does not take: the default
        raw = opts[opt.dest]
        if opt.meta.kind == "names":
            if opt.meta.one:
                raw = (raw,) if raw else ()
            else:
                raw = tuple(s.strip() for s in (raw or "").split(",") if s.strip())
        elif opt.meta.kind == "number":
            raw = parse_threshold(raw, opt.name, positive=opt.name != "threshold")
        values[opt.name] = raw
    return ReportOptions(**values)


# ----------------------------------------------------------------------------- API


def from_query(data, also: tuple[str, ...] = ()):
    """Options from a query string or a JSON body; a bad value is a 400 naming the option
    (``format``, the API's renderer parameter, is skipped; a download refuses it, its
    format being its path's: ``metaeval.views._refuse_query_format``). A list of names given several
    times (``?systems=a&systems=b``) is every name given, as ``systems=a,b``; any other
    option given twice with different values is refused (:func:`concord.query.one_value`),
    as is a true/false option given another word (``expert_agreed=maybe`` read as false).

    ``also``: the other parameters the endpoint reads (the agreement API's ``tables`` and
    ``format``), listed with the options when an unknown name is refused: the refusal
    listed the options alone, so a researcher was not told ``tables`` exists."""
    from rest_framework.exceptions import ValidationError

    from concord.query import flag, one_value, unknown_options

    from .reports import ReportOptions

    known = by_name()
    unknown = sorted(k for k in data if k not in known and k != "format" and k not in also)
    if unknown:
        raise ValidationError({"options": unknown_options(unknown, [*known, *also])})
    values = {}
    for key in data:
        if key == "format":
            continue
        opt = known.get(key)
        kind = opt.meta.kind if opt else "text"
        if kind == "names" and hasattr(data, "getlist"):
            names = (n.strip() for v in data.getlist(key) for n in v.split(","))
            raw = ",".join(dict.fromkeys(n for n in names if n))
        else:
            raw = one_value(data, key)
        if opt is None:  # ReportOptions.from_dict names it
            values[key] = raw
            continue
        if kind == "bool" and isinstance(raw, str):
            values[key] = flag(raw, key)  # the words refused name them
            continue
        try:
            values[key] = parse_value(kind, raw)
        except ValueError as exc:
            raise ValidationError({key: str(exc)}) from None
    try:
        return ReportOptions.from_dict(values)
    except (ValueError, TypeError) as exc:
        raise ValidationError({"options": str(exc)}) from exc


def refused(exc: Exception):
    """A report's refusal of its options (a ``ValueError`` of :func:`metaeval.reports.check_names`
    or of the report, ``"<option>: <message>"``) as the API's 400, under the option it names
    (``judge``, ``systems`` …) when it names one, else under ``options``: an unknown judge was
    ``"field": "options"``, where the downloads already said ``judge`` (a tester)."""
    from rest_framework.exceptions import ValidationError

    name, said, rest = str(exc).partition(": ")
    if said and name in by_name():
        return ValidationError({name: rest})
    return ValidationError({"options": str(exc)})


def parse_value(kind: str, raw):
    """One option's value from a query string (text) or a JSON body (typed), by its
    declared ``kind``; the same rule for both, so a GET and a POST accept the same values.

    JSON's types are checked exactly: ``true`` is no whole number (Python's bool is an
    int: ``{"bootstrap": true}`` ran one round) and ``1.5`` is none either (``int(1.5)``
    made the seed 1, which a GET refuses as text). A word a bool option does not know is
    refused, not read as false. ``ValueError`` says what is wrong with ``raw``.
    """
    if kind == "bool":
        from concord.query import FALSE_WORDS, TRUE_WORDS

        if isinstance(raw, bool):
            return raw
        word = raw.strip().lower() if isinstance(raw, str) else None
        if word == "" or word in TRUE_WORDS or word in FALSE_WORDS:
            return word in TRUE_WORDS
        raise ValueError(f"{raw!r} is not true or false")
    if kind == "int":
        if isinstance(raw, int) and not isinstance(raw, bool):
            return raw
        if isinstance(raw, str):
            try:
                return int(raw.strip())
            except ValueError:
                pass
        raise ValueError(f"{raw!r} is not a whole number")
    if kind == "number":
        if raw is None or (isinstance(raw, int | float | str) and not isinstance(raw, bool)):
            return raw if raw != "" else None  # ReportOptions checks the number itself
        raise ValueError(f"{raw!r} is not a number")
    if kind == "names":
        if isinstance(raw, str) or (
            isinstance(raw, list | tuple) and all(isinstance(s, str) for s in raw)
        ):
            return raw
        raise ValueError(f"{raw!r} is not a name or a list of names")
    if raw is None or isinstance(raw, str):
        return raw if raw != "" else None
    raise ValueError(f"{raw!r} is not text")


OPENAPI_TYPES = {"bool": "BOOL", "int": "INT", "number": "NUMBER"}


def openapi_parameters() -> list:
    """The options as OpenAPI query parameters (drf-spectacular), typed, with their
    choices as an enum."""
    from drf_spectacular.types import OpenApiTypes
    from drf_spectacular.utils import OpenApiParameter

    params = []
    for opt in declared():
        meta = opt.meta
        kind = getattr(OpenApiTypes, OPENAPI_TYPES.get(meta.kind, "STR"))
        enum = list(meta.choices) if meta.choices and meta.kind != "names" else None
        help_text = meta.help
        if meta.kind == "names":
            help_text = "comma-separated: " + help_text
        params.append(OpenApiParameter(opt.name, kind, description=help_text, enum=enum))
    return params


# ----------------------------------------------------------------------------- page


def to_query(options) -> str:
    """The query string of ``options`` (non-default values only), for links."""
    params = {}
    for opt in declared():
        value = getattr(options, opt.name)
        if value != opt.default:
            params[opt.name] = opt.text(value)
    return urlencode(params)


def to_text(options) -> str:
    """The non-default options as :func:`to_query` names them, decoded for reading (the
    offline report's "options:" line read ``systems=atlas-dr%2Cquill-rag``)."""
    return "&".join(f"{name}={value}" for name, value in parse_qsl(to_query(options)))


def form_controls(options, choices: dict[str, list], shown: dict | None = None) -> list[dict]:
    """The page's selector form, one control per option.

    ``choices``: the values a select or checkbox list offers where they depend on the
    study (settings present, judges, systems, the bootstrap rounds allowed); others come
    from the declaration. Options without a selector are hidden inputs carrying a
    non-default value, so a selector change keeps them. ``shown``: the value a control
    shows where it is not the option's (the judge the report chose when none was named,
    every system ticked when none is).
    """
    shown = shown or {}
    controls = []
    for opt in sorted(declared(), key=lambda o: o.meta.order):
        meta = opt.meta
        value = shown.get(opt.name, getattr(options, opt.name))
        control = {
            "name": opt.name,
            "id": "opt-" + opt.name.replace("_", "-"),
            "widget": meta.widget,
            "label": meta.label or opt.name,
            "help": meta.help,
            "empty_label": meta.empty_label,
            "value": "" if value is None else opt.text(value),
            "default": getattr(options, opt.name) == opt.default,
            "placeholder": meta.placeholder,
        }
        offered = choices.get(opt.name, list(meta.choices))
        control["choices"] = [_choice(opt, c, value) for c in offered]
        controls.append(control)
    return controls


def _choice(opt: Option, choice, value) -> dict:
    """One entry of a select or checkbox list: ``choice`` is a value or (value, text)."""
    raw, text = (
        choice if isinstance(choice, tuple) else (choice, opt.meta.choice_label.format(choice))
    )
    selected = raw in value if isinstance(value, tuple | list) else raw == value
    return {"value": opt.text(raw), "text": str(raw) if text is None else text,
            "selected": selected}  # fmt: skip
