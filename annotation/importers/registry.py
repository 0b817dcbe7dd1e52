"""The one declaration of every outside file format Concord reads and writes (issue 14).

A format module declares itself once with :func:`register`: its kind (``reports``,
``questions``, ``pairwise``, ``judge_scores``, ``judgments``), its name, a help text, the
options it takes (each with its help text, type and whether it is required), the function
that imports a file and, when the format can be written back, the function that exports a
study's data in it. Everything else derives from the registry: ``annotation.importers.run``
dispatches through it, the import commands build their arguments from it
(:mod:`annotation.importers.commandline`), the admin page's and study page's upload forms
their fields (:mod:`annotation.importers.forms`), and the API its accepted options
(``annotation.api.IMPORT_OPTIONS``).

Why the registry lives in the lowest layer although some formats belong higher: formats
whose files carry judge verdicts (the ScholarQA-CS2 pairwise records hold judge scores,
the judge-score files) live in ``judges/formats/`` and register themselves when the judges
app is ready (``judges.apps``), so the imports still run one way (annotation <- judges)
while every consumer sees every format at run time.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

#: How a signature's field types read in a message (:meth:`Signature.shape`).
_TYPE_WORDS = {str: "text", dict: "an object", list: "a list"}


@dataclass(frozen=True)
class Signature:
    """What the first records of one kind of released file carry: the keys (and, where it
    tells two files apart, the value types) that say which file it is. Declared once, on
    the format (or the file option) that reads the file; every importer derives from all
    of them which file it was given instead (:mod:`annotation.importers.signatures`), so
    that a file of another format is refused with one sentence saying what it is, not a
    problem per record or a warning per key. Only the first records are looked at: the
    check runs on every import.

    ``mapping``: the file is one object ``{id: record}``; the fields are its values'."""

    what: str
    fields: tuple[tuple[str, type | None], ...]
    mapping: bool = False

    @classmethod
    def of(cls, what: str, *, mapping: bool = False, **fields: type | None) -> Signature:
        """``Signature.of("ResearcherBench's rubric.json", id=None, rubric=list)``: each
        field's type, or None for any."""
        return cls(what, tuple(fields.items()), mapping)

    #: How many of the first records must fit (a stray first record decides nothing).
    SAMPLE = 3

    def fits(self, data) -> bool:
        """Whether the first records of ``data`` (a list of records, or one object) have
        every field of the signature, of its type."""
        if self.mapping:
            first = data[0] if isinstance(data, list) and data else data
            records = list(first.values())[: self.SAMPLE] if isinstance(first, dict) else []
        else:
            records = data[: self.SAMPLE] if isinstance(data, list) else [data]
        return bool(records) and all(
            isinstance(r, dict)
            and all(k in r and (t is None or isinstance(r[k], t)) for k, t in self.fields)
            for r in records
        )

    def shape(self) -> str:
        """The fields in words: "records with id, question (text) and rubric (a list)"."""
        names = [k + (f" ({_TYPE_WORDS[t]})" if t in _TYPE_WORDS else "") for k, t in self.fields]
        listed = ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else names[0]
        return (
            "one object {id: {...}} of values with " if self.mapping else "records with "
        ) + listed


@dataclass(frozen=True)
class Option:
    """One option of an import: ``--<name>`` on the command line, a form field on the
    admin and study pages, a multipart field of the API."""

    name: str
    help: str
    #: ``str``, ``bool``, or ``"file"`` (a second uploaded file, e.g. a rubric)
    type: type | str = str
    choices: tuple[str, ...] = ()
    required: bool = False
    #: Required unless this (boolean) option is set, e.g. the annotator of a pairwise file
    #: unless it is read as expert-agreed records (checked by the forms and the API; the
    #: format's own check names the problem on the command line).
    required_unless: str | None = None
    #: What the admin and study pages show for an empty choice (e.g. "from the file name").
    empty_label: str = "—"
    #: Where the value is stored, ``"app.Model.field"``: a longer value than the field
    #: holds is refused naming the option (the length is the model's, never restated).
    stored_as: str = ""
    #: A file option's file, as its first records show it (:class:`Signature`).
    signature: Signature | None = None
    #: What the import pages say instead of ``help`` where ``help`` speaks of the command
    #: line (other commands' flags); else ``help`` in browser words (:func:`browser_text`).
    web_help: str = ""

    def max_chars(self) -> int | None:
        if not self.stored_as:
            return None
        from django.apps import apps

        app, model, name = self.stored_as.split(".")
        return apps.get_model(app, model)._meta.get_field(name).max_length

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    def needed(self, given: dict) -> bool:
        """Whether this option must have a value, given the others."""
        return self.required or bool(self.required_unless and not given.get(self.required_unless))


@dataclass(frozen=True)
class Kind:
    """What an import of this kind writes and how its study is found."""

    name: str
    help: str
    #: The study is created when no study has the name (False: it must exist already,
    #: e.g. judge scores need the study's reports).
    creates_study: bool = True
    #: The format may be omitted (then ``default`` is used).
    default: str | None = None
    #: Options every format of the kind takes (before the format's own).
    options: tuple[Option, ...] = ()
    #: Whether a study with no task enabled gets the tasks its data supports afterwards.
    enables_tasks: bool = True


@dataclass(frozen=True)
class Example:
    """A small file of a format: downloaded from the import pages, and imported by the tests
    (every registered format's example must import cleanly, issue 26).

    ``folder`` holds the format module's example files; ``file`` is this example (a folder
    for a folder format: downloaded as a zip). ``options`` are the import options it is
    read with; the value of a file option (ResearcherBench's ``rubric``) names another file
    in ``folder``, offered for download beside it. ``needs``: the examples of other formats
    imported first into the same study, as ``(kind, format, options)`` (judge scores need
    the study's reports)."""

    folder: Path
    file: str
    options: dict = field(default_factory=dict)
    needs: tuple[tuple[str, str, dict], ...] = ()

    @property
    def path(self) -> Path:
        return self.folder / self.file

    def files(self, fmt: Format) -> list[str]:
        """This example's file and the files its file options name (download links)."""
        names = [self.file]
        for option in fmt.all_options():
            if option.type == "file" and self.options.get(option.name):
                names.append(self.options[option.name])
        return names

    def form_usage(self) -> str:
        """:meth:`usage` in the import form's words: each option as its field's label."""
        parts = []
        if self.options:
            given = ", ".join(f"{field_label(k)}: {v}" for k, v in self.options.items())
            parts.append(f"import with {given}")
        if self.needs:
            first = ", ".join(
                f"{kind} {name}" + "".join(f" ({field_label(k)}: {v})" for k, v in o.items())
                for kind, name, o in self.needs
            )
            parts.append(f"after the examples of {first}")
        return "; ".join(parts)

    def usage(self) -> str:
        """How to import the example: its options and the examples to import before it."""
        parts = []
        if self.options:
            flags = " ".join(f"--{k.replace('_', '-')} {v}" for k, v in self.options.items())
            parts.append(f"import with {flags}")
        if self.needs:
            first = ", ".join(
                f"{kind}/{name}" + "".join(f" --{k} {v}" for k, v in options.items())
                for kind, name, options in self.needs
            )
            parts.append(f"after the examples of {first}")
        return "; ".join(parts)

    def import_options(self, fmt: Format) -> dict:
        """``options`` with each file option's name turned into its path."""
        out = dict(self.options)
        for option in fmt.all_options():
            if option.type == "file" and out.get(option.name):
                out[option.name] = self.folder / out[option.name]
        return out


@dataclass(frozen=True)
class Format:
    """One outside format of one kind: how it is read and (optionally) written."""

    kind: str
    name: str
    help: str
    #: ``load(source, study, rep, **options)``: validate the whole source and write it
    #: (inside the import's transaction); raises ImportFailed naming every problem.
    load: Callable
    options: tuple[Option, ...] = ()
    #: ``dump(study, **options) -> {relative file name: text}``: the study's data in this
    #: format, as files the format's own ``load`` reads back (the round trip).
    dump: Callable | None = None
    #: Options of ``dump`` (names and help texts; the export command derives from them).
    dump_options: tuple[Option, ...] = ()
    #: The source may be a folder (DeepScholar's ``<system>/<paper>/output.md``).
    directory: bool = False
    #: What the study page's Download panel calls the writer's file (default: the help
    #: text up to its first colon or parenthesis).
    label: str = ""
    #: The extension of what ``dump`` downloads as: its one file's (``.json``, ``.jsonl``,
    #: ``.csv``), or ``.zip`` when it writes several files (default for a folder format).
    extension: str = ""
    #: The file's expected shape, for people: what the import pages and ``--help`` show
    #: beside the format's name (the one place it is written).
    shape: str = ""
    #: A small file of this format to download and to test with.
    example: Example | None = None
    #: The files this format reads, as their first records show them (one per released
    #: shape): how an import of another format recognises this format's file.
    signatures: tuple[Signature, ...] = ()
    #: A format read only (no ``dump``): why it cannot be written back, and the writers,
    #: as (kind, format), that export the data its import stores (:func:`no_writer`).
    read_only: str = ""
    written_as: tuple[tuple[str, str], ...] = ()
    #: The system of a report file is named by the file (ResearcherBench's
    #: ``user_data/<system>.json``): the import pages default System to the uploaded
    #: file's name without its extension.
    system_from_file_name: bool = False
    #: The rubric item weights the format allows, (lowest, highest) inclusive: its import
    #: refuses any other, naming the record and the item (None: any positive weight).
    rubric_weights: tuple[float, float] | None = None
    #: A report format that keeps its records as released (:mod:`.released`):
    #: ``reread(entries) -> ParsedReport``, the report its import reads from the kept
    #: entries of one report (``Report.original["released"]``, record order), before
    #: normalisation. How ``manage.py normalise_reports`` rebuilds a stored report as a
    #: fresh import of its record would, without the file (None: not rebuilt).
    reread: Callable | None = None

    @property
    def key(self) -> tuple[str, str]:
        return (self.kind, self.name)

    def all_options(self) -> tuple[Option, ...]:
        return KINDS[self.kind].options + self.options

    @property
    def title(self) -> str:
        """The label, or the help text up to its first colon or parenthesis."""
        if self.label:
            return self.label
        return re.split(r"[:(]", self.help, maxsplit=1)[0].strip() or self.name

    @property
    def download_extension(self) -> str:
        """The declared extension; ``.zip`` for a folder format that declares none."""
        return self.extension or (".zip" if self.directory else "")


KINDS: dict[str, Kind] = {}
FORMATS: dict[tuple[str, str], Format] = {}


def register_kind(kind: Kind) -> Kind:
    KINDS.setdefault(kind.name, kind)
    return KINDS[kind.name]


def register(fmt: Format) -> Format:
    """Declare ``fmt`` (idempotent: a module imported twice registers once)."""
    if fmt.kind not in KINDS:
        raise KeyError(f"register the kind {fmt.kind!r} before its formats")
    FORMATS.setdefault(fmt.key, fmt)
    return FORMATS[fmt.key]


def formats(kind: str | None = None) -> list[Format]:
    """Registered formats, of one kind or all, in registration order."""
    return [f for f in FORMATS.values() if kind is None or f.kind == kind]


def format_names(kind: str) -> tuple[str, ...]:
    return tuple(f.name for f in formats(kind))


def options_of(kind: str) -> dict[str, Option]:
    """Every option any format of ``kind`` takes, by name (first declaration wins)."""
    out: dict[str, Option] = {}
    for option in KINDS[kind].options:
        out.setdefault(option.name, option)
    for fmt in formats(kind):
        for option in fmt.options:
            out.setdefault(option.name, option)
    return out


def all_options() -> dict[str, Option]:
    """Every option of every kind, by name (the union the upload forms show)."""
    out: dict[str, Option] = {}
    for kind in KINDS:
        for name, option in options_of(kind).items():
            out.setdefault(name, option)
    return out


def field_label(name: str) -> str:
    """The import form's label of an option or field: ``expert_agreed`` -> "Expert agreed"
    (Django's default label, which the forms keep)."""
    return name.replace("-", "_").replace("_", " ").capitalize()


#: A command-line flag in a help text, ``--expert-agreed``.
_FLAG = re.compile(r"--([a-z][a-z0-9_-]*)")


def browser_text(text: str) -> str:
    """A help text in the import pages' words: each flag of an option (``--rubric``) as its
    form field (“Rubric”), the command's FILE as “File”. A flag that is no field of the form
    is left as it is (a text naming one needs its ``web_help``)."""
    fields = {"kind", "format", "file", "dry_run", *all_options()}

    def field(match: re.Match) -> str:
        name = match.group(1).replace("-", "_")
        return f"“{field_label(name)}”" if name in fields else match.group(0)

    return re.sub(r"\bFILE\b", "“File”", _FLAG.sub(field, text))


def system_defaults() -> str:
    """Where System may be left empty on the import pages, in words (report formats)."""
    said = []
    for fmt in formats("reports"):
        if fmt.directory:
            said.append(f"{fmt.title} ({fmt.name}): the folder's name")
        elif fmt.system_from_file_name:
            said.append(
                f"{fmt.title} ({fmt.name}): the uploaded file's name without its extension "
                "(Claude.json gives Claude)"
            )
    return "; ".join(said)


def described(kind: str) -> str:
    """Every format of ``kind`` with its shape and example file, as ``--help`` prints it."""
    parts = []
    for fmt in formats(kind):
        lines = [f"--format {fmt.name}: {fmt.title}"]
        lines += ["    " + line for line in (fmt.shape or "(shape not documented)").splitlines()]
        if fmt.example is not None:
            root = Path(__file__).resolve().parents[2]
            files = [
                str((fmt.example.folder / f).relative_to(root)) for f in fmt.example.files(fmt)
            ]
            usage = fmt.example.usage()
            lines.append("    example: " + ", ".join(files) + (f" ({usage})" if usage else ""))
        parts.append("\n".join(lines))
    return "\n\n".join(parts)


def example_of(kind: str, name: str, file: str) -> Path | None:
    """The path of one of a format's example files (None when it has no such file): the
    one lookup the download view uses, so no other path can be asked for."""
    fmt = FORMATS.get((kind, name))
    if fmt is None or fmt.example is None or file not in fmt.example.files(fmt):
        return None
    return fmt.example.folder / file


def no_writer(fmt: Format) -> str:
    """Why ``fmt`` cannot be exported and which writers export its data instead: the one
    sentence of the API, the Download page and ``export_format``."""
    said = f"{fmt.kind} {fmt.name} is read only: it has no writer"
    if fmt.read_only:
        said += f" ({fmt.read_only})"
    if fmt.written_as:
        ways = "; ".join(f"{kind} {name} (kind={kind}&file_format={name})"
                         for kind, name in fmt.written_as)  # fmt: skip
        said += f". What its import stores is exported by {ways}"
    return said


def writable() -> list[Format]:
    """The formats Concord can write back (``export_format``)."""
    return [f for f in FORMATS.values() if f.dump is not None]


@dataclass
class Choices:
    """Kinds and formats as form choices (computed when a form is built: the judges app
    registers its formats when it is ready)."""

    kinds: list[tuple[str, str]] = field(default_factory=list)
    formats: list[tuple[str, str]] = field(default_factory=list)
    help: str = ""


def choices() -> Choices:
    out = Choices(kinds=[(k, k) for k in KINDS])
    names = dict.fromkeys(f.name for f in FORMATS.values())
    out.formats = [("", "—")] + [(n, n) for n in names]
    parts = []
    for kind in KINDS.values():
        listed = " / ".join(format_names(kind.name))
        parts.append(f"{kind.name}: {listed}" + (" (or leave empty)" if kind.default else ""))
    out.help = "; ".join(parts)
    return out


# --- The kinds of the content layer (judges/formats adds pairwise and judge_scores) --------

REPORTS = register_kind(
    Kind(
        "reports",
        "one system's reports (sections, paragraphs, citations)",
        options=(
            Option(
                "system",
                "system name (DeepScholar: defaults to the folder name)",
                stored_as="annotation.System.name",
            ),
        ),
    )
)
QUESTIONS = register_kind(Kind("questions", "questions and their rubrics"))
