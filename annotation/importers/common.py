"""What every importer shares: reading a source, parsing JSON, collecting problems, keys.

Nothing here writes to the database except the small ``get_or_create_*`` helpers, which the
format modules call only from inside their write transaction.
"""

from __future__ import annotations

import gc
import hashlib
import io
import json
import math
import os
import re
import unicodedata
from collections.abc import Callable, Collection
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import partial
from operator import itemgetter
from pathlib import Path

import orjson
from django.conf import settings

from annotation import progress

from .base import ImportFailed, Problem
from .planner_statistics import note_written

#: File types an import accepts (by extension); anything else is refused before parsing.
ALLOWED_EXTENSIONS = {".json", ".jsonl", ".ndjson", ".csv", ".md", ".markdown", ".txt"}
#: Upload content types accepted besides ``text/*`` (browsers often send octet-stream).
ALLOWED_CONTENT_TYPES = {
    "",
    "application/json",
    "application/jsonl",
    "application/x-jsonlines",
    "application/x-ndjson",
    "application/ndjson",
    "application/octet-stream",
    "application/csv",
    "application/vnd.ms-excel",  # what some browsers call .csv
}


@dataclass
class Source:
    """One input: a display name and its text, or a directory (DeepScholar folders)."""

    name: str
    text: str | None = None
    directory: Path | None = None
    #: What keeps an unpacked zip's directory alive (removed when the Source is gone).
    keep: object = None


class Problems:
    """A collector: ``add`` many, ``raise_if_any`` once."""

    def __init__(self, file: str):
        self.file = file
        self.items: list[Problem] = []

    def add(self, record: int | None, field: str | None, message: str) -> None:
        self.items.append(Problem(self.file, record, field, message))

    def file_level(self, message: str) -> None:
        self.add(None, None, message)

    def __bool__(self) -> bool:
        return bool(self.items)

    def raise_if_any(self) -> None:
        if self.items:
            raise ImportFailed(list(self.items))


def fail(file: str, message: str, record: int | None = None, field: str | None = None):
    raise ImportFailed([Problem(file, record, field, message)])


def too_large(file: str, message: str, limit: int):
    """Refuse an upload over ``IMPORT_MAX_BYTES`` (``limit``): a :class:`TooLarge`."""
    from .base import TooLarge

    raise TooLarge([Problem(file, None, None, message)], limit)


def read_source(source, *, allow_directory: bool = False) -> Source:
    """Turn a path, an uploaded file or bytes into a :class:`Source`; enforce size and type."""
    limit = settings.IMPORT_MAX_BYTES
    if allow_directory:
        zipped = _unzipped(source, limit)
        if zipped is not None:
            return zipped
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        name = str(source)
        if path.is_dir():
            if not allow_directory:
                fail(name, "is a directory; this format reads one file")
            return Source(name=name, directory=path)
        if not path.is_file():
            fail(name, "no such file")
        _check_type(name, path.suffix.lower(), None)
        size = path.stat().st_size
        if size > limit:
            too_large(name, f"file is {size} bytes; the limit is {limit} (IMPORT_MAX_BYTES)", limit)
        data = path.read_bytes()
    elif isinstance(source, (bytes, bytearray)):
        name = "upload"
        data = bytes(source)
        if len(data) > limit:
            too_large(
                name, f"upload is {len(data)} bytes; the limit is {limit} (IMPORT_MAX_BYTES)", limit
            )
    elif hasattr(source, "read"):  # Django UploadedFile, or any file object
        name = os.path.basename(getattr(source, "name", "") or "upload")
        size = getattr(source, "size", None)
        if size is not None and size > limit:
            too_large(
                name, f"upload is {size} bytes; the limit is {limit} (IMPORT_MAX_BYTES)", limit
            )
        _check_type(name, Path(name).suffix.lower(), getattr(source, "content_type", None))
        if hasattr(source, "seek"):
            source.seek(0)
        data = source.read(limit + 1)
        if len(data) > limit:
            too_large(
                name, f"upload is larger than the limit of {limit} bytes (IMPORT_MAX_BYTES)", limit
            )
        if isinstance(data, str):
            if "\x00" in data:
                fail(
                    name, "binary content (a NUL byte); expected JSON, JSON lines, CSV or markdown"
                )
            return Source(name=name, text=data)
    else:
        raise TypeError(f"cannot import from {type(source).__name__}")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        fail(name, f"not UTF-8 text (byte {exc.start}); expected JSON, JSON lines, CSV or markdown")
    if "\x00" in text:
        fail(name, "binary content; expected JSON, JSON lines, CSV or markdown")
    return Source(name=name, text=text)


def _unzipped(source, limit: int) -> Source | None:
    """A ``.zip`` (path, upload or bytes) unpacked as a folder source (``.archive``); None
    when ``source`` is no zip."""
    from .archive import UnsafeArchive, is_zip, unpack

    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if not (path.is_file() and is_zip(path.name, b"")):
            return None
        name, size, fileobj = str(source), path.stat().st_size, None
    elif isinstance(source, (bytes, bytearray)):
        if not is_zip("", bytes(source[:4])):
            return None
        name, size, fileobj = "upload", len(source), io.BytesIO(bytes(source))
    elif hasattr(source, "read"):
        name = os.path.basename(getattr(source, "name", "") or "upload")
        if hasattr(source, "seek"):
            source.seek(0)
        head = source.read(4)
        if isinstance(head, str) or not is_zip(name, head):
            if hasattr(source, "seek"):
                source.seek(0)
            return None
        size = getattr(source, "size", None) or 0
        fileobj = getattr(source, "file", source)
        fileobj.seek(0)
    else:
        return None
    if size > limit:
        too_large(name, f"upload is {size} bytes; the limit is {limit} (IMPORT_MAX_BYTES)", limit)
    stem = Path(name).name.removesuffix(".zip").removesuffix(".ZIP")
    try:
        if fileobj is None:
            with open(source, "rb") as fh:
                keep, folder = unpack(fh, stem)
        else:
            keep, folder = unpack(fileobj, stem)
    except UnsafeArchive as exc:
        fail(name, f"zip refused: {exc}")
    return Source(name=name, directory=folder, keep=keep)


def _check_type(name: str, suffix: str, content_type: str | None) -> None:
    if suffix == ".zip":
        fail(name, "a .zip is read by the folder formats only (DeepScholar-Bench system "
             "folders, nuggetizer output, exemplars); this format reads one .json, .jsonl, "
             ".csv or .md file")  # fmt: skip
    if suffix and suffix not in ALLOWED_EXTENSIONS:
        fail(name, f"file type {suffix!r} is not accepted; use .json, .jsonl, .csv or .md")
    if content_type is not None:
        base = content_type.split(";")[0].strip().lower()
        if not (base.startswith("text/") or base in ALLOWED_CONTENT_TYPES):
            fail(
                name,
                f"content type {base!r} is not accepted; use JSON, JSON lines, CSV or markdown",
            )


def parse_json_records(
    src: Source, *, allow_mapping: bool = False, numbers_as_floats: bool = False
):
    """A JSON list, JSON lines, or (``allow_mapping``) one JSON object, as Python data.

    Returns a list of records (JSON list / lines) or a dict (a mapping file). A syntax error
    becomes a file-level problem with line and column, or the line's record number in JSON
    lines. A file that is one JSON object per line but also parses as one object is read as
    the object only when ``allow_mapping``.

    ``numbers_as_floats``: the format reads every number of its records as a float (scores),
    so the file may be parsed by orjson, about twice as fast as ``json.loads`` on a large
    file (issue 29), which reads an integer beyond 64 bits as the nearest float instead of
    an ``int`` (the only difference for a file it accepts). A file orjson refuses is parsed
    again by ``json.loads``: NaN, infinities, lone surrogates and every message are as
    without it.
    """
    text = src.text or ""
    if not text.strip():
        fail(src.name, "the file is empty")
    stripped = text.lstrip()
    mapping = allow_mapping and stripped.startswith("{")
    outer: list = []
    try:
        data = _loads(src.name, text, fast=numbers_as_floats and not mapping,
                      pairs=outer if mapping else None)  # fmt: skip
    except json.JSONDecodeError as exc:
        if stripped.startswith("{"):
            return _json_lines(src, text)
        fail(src.name, _json_error(exc))
    if isinstance(data, list):
        reject_unstorable(src.name, data, text)
        return data
    if isinstance(data, dict):
        if mapping:
            _refuse_repeated_keys(src.name, data, outer[-1])
        reject_unstorable(src.name, [data], text)
        return data if allow_mapping else [data]
    fail(src.name, f"expected a JSON list or JSON lines of objects, found {type_name(data)}")


#: Longest run of digits a JSON number may have (Python refuses to convert more, issue 12).
MAX_DIGITS = 4300
_LONG_NUMBER = re.compile(r"\d{" + str(MAX_DIGITS + 1) + ",}")


def _refuse_repeated_keys(name: str, data: dict, pairs: list) -> None:
    """A mapping-shaped file (``{id: entry}``) is one JSON object, whose records are its
    keys: a key given twice is a record given twice, which ``json.loads`` would resolve by
    keeping the last without a word. Refused as a list file's repeated id is, naming the
    record (the key's place in the file) and the key."""
    if len(pairs) == len(data):
        return
    problems = Problems(name)
    seen: dict[str, int] = {}
    for n, (key, _) in enumerate(pairs, start=1):
        if key in seen:
            problems.add(n, key, f"{key!r} already given by record {seen[key]}")
        else:
            seen[key] = n
    problems.raise_if_any()


def _loads(name: str, text: str, record: int | None = None, *, fast: bool = False,
           pairs: list | None = None):  # fmt: skip
    """``json.loads`` that turns what it cannot take into a problem naming the place: a
    number with thousands of digits (ValueError) and nesting deeper than Python's stack
    (RecursionError). Syntax errors stay ``JSONDecodeError`` for the caller to place.
    ``record``: the JSON-lines record ``text`` is. ``fast``: orjson first
    (:func:`parse_json_records`, ``numbers_as_floats``). ``pairs``: a list that gets the
    key-value pairs of every object as parsed, the outermost last (its repeated keys are
    there, which the dict keeps one of); a hook call per object, so only for a file that is
    one object (a mapping-shaped file's objects are mostly its entries' few)."""
    if fast:
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:
            pass  # json.loads below: its reading of what orjson refuses, its messages
    try:
        if pairs is not None:
            return json.loads(text, object_pairs_hook=_keeping_pairs(pairs))
        return json.loads(text)
    except json.JSONDecodeError:
        raise
    except RecursionError:
        fail(
            name,
            "invalid JSON: nested too deeply (lists or objects inside each other)",
            record=record,
        )
    except ValueError as exc:
        found = _LONG_NUMBER.search(text)
        if found is None:
            fail(name, f"invalid JSON: {exc}", record=record)
        line = text.count("\n", 0, found.start()) + 1
        column = found.start() - (text.rfind("\n", 0, found.start()) + 1) + 1
        where = f"column {column}" if record else f"line {line}, column {column}"
        fail(
            name,
            f"invalid JSON: a number of more than {MAX_DIGITS} digits at {where}",
            record=record,
        )


def _keeping_pairs(out: list):
    """An ``object_pairs_hook`` that builds each object's dict and leaves the pairs of the
    last object parsed (the outermost, which JSON closes last) in ``out``."""

    def hook(pairs):
        out[:] = (pairs,)
        return dict(pairs)

    return hook


#: A surrogate escape in JSON text (``\ud83d``): a pair stands for one character, a lone
#: one for none (JSON lets it through, UTF-8 cannot hold it).
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def may_hold_unstorable(text: str, start: int = 0, end: int | None = None) -> bool:
    """Whether ``text[start:end]`` (JSON text) may decode to a value
    :func:`reject_unstorable` refuses: it holds ``\\u0000`` or a surrogate escape."""
    end = len(text) if end is None else end
    return text.find("\\u0000", start, end) >= 0 or bool(_SURROGATE_ESCAPE.search(text, start, end))


def reject_unstorable(name: str, records: list, text: str | None = None) -> None:
    """A NUL character in a value (``\\u0000``): no database text column can hold it; a
    lone surrogate (``\\ud800`` unpaired): no UTF-8 text can (a crash further on, before).

    ``text``, the JSON the records were parsed from: a raw NUL was refused before parsing,
    so a NUL in a value can only come from the escape ``\\u0000`` (JSON writes ``\\u``
    in lower case only), a lone surrogate from a surrogate escape; without them in the text
    the walk over every value (1.2 M of them in a ResearchQA-scale coverage file) is
    skipped."""
    if text is not None and not may_hold_unstorable(text):
        return
    problems = Problems(name)

    def walk(value, n: int, path: str):
        if isinstance(value, str):
            if "\x00" in value:
                problems.add(n, path or None, "contains a NUL character (\\u0000)")
            lone = _LONE_SURROGATE.search(value)
            if lone:
                problems.add(
                    n, path or None,
                    f"contains a lone surrogate (\\u{ord(lone.group()):04x}): not a character",
                )  # fmt: skip
        elif isinstance(value, dict):
            for key, item in value.items():
                walk(item, n, f"{path}.{key}" if path else str(key))
        elif isinstance(value, list):
            for i, item in enumerate(value):
                walk(item, n, f"{path}[{i}]")

    for n, record in enumerate(records, start=1):
        walk(record, n, "")
    problems.raise_if_any()


def _json_error(exc: json.JSONDecodeError, *, line: bool = True) -> str:
    """``Expecting ',' delimiter at line 3, column 5``. Some of the decoder's messages end
    in "at" ("Unterminated string starting at"), which the position completes."""
    where = f"line {exc.lineno}, column {exc.colno}" if line else f"column {exc.colno}"
    text = f"{exc.msg.removesuffix(' at')} at {where}"
    return f"invalid JSON: {text}" if line else text


def _json_lines(src: Source, text: str) -> list:
    problems = Problems(src.name)
    records = []
    for n, line in enumerate((ln for ln in text.splitlines() if ln.strip()), start=1):
        try:
            records.append(_loads(src.name, line, record=n))
        except json.JSONDecodeError as exc:
            problems.add(n, None, f"invalid JSON line: {_json_error(exc, line=False)}")
    if problems and not records:
        # Not JSON lines at all: report it as the one JSON document it pretends to be.
        try:
            json.loads(text)
        except json.JSONDecodeError as exc:
            fail(src.name, _json_error(exc))
    problems.raise_if_any()
    reject_unstorable(src.name, records, text)
    return records


def json_lines_text(records) -> str:
    """``records`` as JSON lines (UTF-8 kept, one record per line): what the JSON-lines
    exports write and :func:`read_source` reads back."""
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


def type_name(value) -> str:
    return {
        dict: "an object",
        list: "a list",
        str: "a string",
        bool: "a boolean",
        int: "a number",
        float: "a number",
        type(None): "null",
    }.get(type(value), type(value).__name__)


def is_number(value) -> bool:
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and math.isfinite(float(value))
    )


def max_chars(model, name: str) -> int | None:
    """The most characters ``model.name`` holds (its ``max_length``; None: unlimited). The
    one source of every importer's length check: PostgreSQL refuses a longer value with a
    DataError (a 500), SQLite stores it whole."""
    return model._meta.get_field(name).max_length


def fits(problems: Problems, n: int | None, label: str, value, model, name: str):
    """``value`` when it fits ``model.name``, else a problem naming the record and field
    (and None)."""
    limit = max_chars(model, name)
    if isinstance(value, str) and limit is not None and len(value) > limit:
        problems.add(n, label, f"longer than {limit} characters ({len(value)})")
        return None
    return value


def require(problems: Problems, n: int, record, key: str, kind, *, label: str | None = None):
    """``record[key]`` if present and of the expected kind, else a problem and ``None``.

    ``kind`` is ``str`` (non-empty), ``"number"``, ``list``, ``dict`` or ``"id"`` (string or
    integer, returned as a string).
    """
    field = label or key
    if not isinstance(record, dict):
        problems.add(n, None, f"expected an object, found {type_name(record)}")
        return None
    if key not in record or record[key] is None:
        problems.add(n, field, "missing required field")
        return None
    value = record[key]
    if kind is str:
        if not isinstance(value, str):
            problems.add(n, field, f"expected a string, found {type_name(value)}")
            return None
        if not value.strip():
            problems.add(n, field, "must not be empty")
            return None
        return value
    if kind == "id":
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            problems.add(n, field, f"expected a string or integer id, found {type_name(value)}")
            return None
        if not str(value).strip():
            problems.add(n, field, "must not be empty")
            return None
        return str(value)
    if kind == "number":
        if not is_number(value):
            problems.add(n, field, f"expected a number, found {type_name(value)}")
            return None
        return float(value)
    if not isinstance(value, kind):
        problems.add(n, field, f"expected {type_name(kind())}, found {type_name(value)}")
        return None
    return value


def optional_str(problems: Problems, n: int, record: dict, key: str) -> str:
    value = record.get(key)
    if value is None:
        return ""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str):
        problems.add(n, key, f"expected a string, found {type_name(value)}")
        return ""
    return value


# --- Question keys --------------------------------------------------------------------------


def normalize_question(text: str) -> str:
    """Unicode NFC, control characters dropped (as the importers store the text), whitespace
    collapsed, trimmed, case-folded: two spellings, one question."""
    from annotation.normalise import clean_text

    # " ".join(split()): the runs of whitespace (str.split's and re's \s are the same
    # characters) as one space, none at the ends
    return " ".join(unicodedata.normalize("NFC", clean_text(text)).split()).casefold()


def question_key(text: str) -> str:
    """The natural key of a question known only by its text (ScholarQA-CS2 files).

    Reports and pairwise records both compute this, so they meet on the same Question.
    """
    digest = hashlib.sha256(normalize_question(text).encode("utf-8")).hexdigest()
    return "sqa-" + digest[:16]


#: The question splits of the ScholarQA-CS2 release (``pairwise_<split>_*.json``): the one
#: declaration of the pairwise import's and export's ``split`` option and of the file names
#: (a split the export cannot name a file for is refused by the import too).
RELEASED_SPLITS = ("dev", "test")


def split_from_name(name: str) -> str:
    """The released split a file's name says (``pairwise_dev_assigned_ann1.json``), or ""."""
    base = os.path.basename(name).lower()
    for split in RELEASED_SPLITS:
        if base.startswith(f"pairwise_{split}_") or f"_{split}_" in base:
            return split
    return ""


#: Values a field's ``get_db_prep_save`` returns unchanged, by field type: a row whose
#: prepared columns all hold such values is written as it is (a judge coverage row's
#: ``covered`` is None or a bool; 2.9 M of them at ResearchQA scale, issue 16).
_FINAL = {"BooleanField": (bool, type(None))}
#: Values the JSON encoder takes as they are (anything else goes through the field).
_JSON_PLAIN = frozenset({dict, list, str, int, float, bool})


def _json_text(value) -> str:
    """The JSON text of ``value``, equal as JSON to ``json.dumps(value)`` (what Django's
    field would write), encoded by orjson: about six times faster on a report's released
    record and sources (~5 KB each, 15,000 per file: 0.8 of the import's 6 s, issue 29).

    Where orjson would write something else, ``json.dumps`` writes it: a value orjson
    refuses (a dict with non-string keys, an integer beyond 64 bits, a lone surrogate)
    and a value holding NaN or ±Infinity, which orjson writes as ``null`` where
    ``json.dumps`` keeps them (looked for only when the text holds a ``null``). The text
    may differ in spacing and escaping (orjson writes UTF-8, no spaces), never in value."""
    try:
        out = orjson.dumps(value)
    except TypeError:
        return json.dumps(value)
    if b"null" in out and _NON_FINITE_POSSIBLE.get() and _non_finite(value):
        return json.dumps(value)
    return out.decode()


#: Whether a value written now may hold NaN or ±Infinity: True unless the import's
#: source text holds neither word (:func:`finite_source`), then nothing it wrote can.
_NON_FINITE_POSSIBLE: ContextVar[bool] = ContextVar("non_finite_possible", default=True)


@contextmanager
def finite_source(text: str | None):
    """Within the block, values come from ``text`` (a JSON source): when it holds neither
    ``NaN`` nor ``Infinity``, no value can be non-finite and :func:`_json_text` need not
    look (a walk of every released record: 0.3 s per 15,000 reports, issue 29)."""
    token = _NON_FINITE_POSSIBLE.set(text is None or "NaN" in text or "Infinity" in text)
    try:
        yield
    finally:
        _NON_FINITE_POSSIBLE.reset(token)


def _non_finite(value) -> bool:
    """Whether a float of ``value`` (nested in lists and dicts) is NaN or infinite."""
    stack = [value]
    pop, many = stack.pop, stack.extend
    while stack:
        v = pop()
        cls = v.__class__
        if cls is str:
            continue
        if cls is dict:
            many(v.values())
        elif cls is list or cls is tuple:
            many(v)
        elif isinstance(v, float) and not math.isfinite(v):
            return True
    return False


def column_preparer(field, connection):
    """``value -> field.get_db_prep_save(value, connection)`` for the rows of
    :func:`insert_rows` / :func:`update_rows`, each JSON value encoded by one ``json.dumps``.

    Why: through the field, every JSON value costs a lookup of the connection's operations
    (a thread-local), a call chain and, on PostgreSQL, a ``Jsonb`` wrapper: ~330,000 values
    per 15,000 reports (a citation's snippets and metadata, a section's table, a report's
    original), a fifth of the report import's write (issue 29). The text is what the field
    would give: ``json.dumps`` with the field's encoder, None as SQL NULL; both writers send
    it as text (a parameter on SQLite, a COPY field PostgreSQL parses as ``jsonb``)."""
    if field.get_internal_type() != "JSONField":
        return lambda value: field.get_db_prep_save(value, connection)
    dumps = _json_text if field.encoder is None else partial(json.dumps, cls=field.encoder)

    def prepare_json(value):
        if value is None:
            return None
        if value.__class__ in _JSON_PLAIN:
            return dumps(value)
        return field.get_db_prep_save(value, connection)  # an expression, a lazy string…

    return prepare_json


@contextmanager
def gc_paused():
    """Python's cyclic garbage collector off for the block, back on after it (when it was on).

    Why: an import of a ResearchQA-scale coverage file allocates about a million
    containers that are not garbage (the parsed JSON's 160,000 dicts, the index's 21,000
    per-question dicts and 160,000 lists, the rows' tuples); every 700 allocations a
    collection walks the young ones and, as they survive, the older ones again, finding
    nothing: a quarter of the import's Python CPU (0.9 -> 0.7 s per file, issue 16).
    Reference counting still frees everything as usual; only cycles wait until the block
    ends. The switch is process-wide: another thread's import in the block is not slowed,
    and whichever block ends last with the collector found on turns it back on.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


class TooLong(Exception):
    """A value longer than its column holds reached a write (``run`` names the field)."""

    def __init__(self, model, field, value: str):
        self.model, self.field, self.value = model, field, value
        super().__init__(
            f"{model._meta.verbose_name} {field.name}: longer than {field.max_length} "
            f"characters ({len(value)}): {value[:40]!r}…"
        )


def check_lengths(model, fields: list[str], rows, offset: int = 0) -> None:
    """Every value of a bounded text column of ``rows`` fits it, else :class:`TooLong`.
    The last line of defence of :func:`insert_rows` and :func:`update_rows` (a format
    checks its own fields first, naming the record): PostgreSQL would refuse the whole COPY
    with a DataError, SQLite store the value whole."""
    bounded = [
        (i + offset, model._meta.get_field(name))
        for i, name in enumerate(fields)
        if getattr(model._meta.get_field(name), "max_length", None)
        and model._meta.get_field(name).get_internal_type() in ("CharField", "SlugField")
    ]
    for i, field in bounded:
        limit = field.max_length
        for row in rows:
            value = row[i]
            if value.__class__ is str and len(value) > limit:
                raise TooLong(model, field, value)


def insert_rows(
    model, fields: list[str], rows: list[tuple], batch_size: int = 1000, *,
    encoded: frozenset[str] = frozenset(),
) -> int:  # fmt: skip
    """INSERT many rows of ``model`` without building model instances.

    Why: ``bulk_create`` spends ~50 µs per object constructing and preparing instances;
    the scale benchmark inserts about a million judge scores and medals, where that alone
    would exceed the import budget. One multi-row ``INSERT … VALUES (…), (…)`` per batch
    (not ``executemany``, which PostgreSQL runs as one statement per row). Values are
    prepared with each field's own ``get_db_prep_save`` (JSON, dates), so the database sees
    exactly what the ORM would write. No signals are sent (none are connected to these
    models).

    ``encoded``: JSON fields whose values are already their JSON text (``None`` for SQL
    NULL), written as they are: a report prepared in another process arrives encoded
    (:mod:`.new_reports`), and encoding it again here would store a JSON string.
    """
    from django.db import connection

    if not rows:
        return 0
    check_lengths(model, fields, rows)
    opts = model._meta
    note_written(opts.db_table)  # COPY passes no execute wrapper
    columns = [opts.get_field(name) for name in fields]
    quote = connection.ops.quote_name
    table = quote(opts.db_table)
    names = ", ".join(quote(f.column) for f in columns)
    plain_types = {"IntegerField", "BigIntegerField", "PositiveIntegerField", "FloatField",
                   "CharField", "TextField", "ForeignKey", "OneToOneField", "AutoField",
                   "BigAutoField", "SmallIntegerField", "PositiveSmallIntegerField",
                   "PositiveBigIntegerField"}  # fmt: skip
    unknown = set(encoded) - {f.name for f in columns if f.get_internal_type() == "JSONField"}
    if unknown:
        raise ValueError(f"encoded names no JSON field written here: {sorted(unknown)}")
    prepared = [(i, column_preparer(f, connection), _FINAL.get(f.get_internal_type(), ()))
                for i, f in enumerate(columns)
                if f.get_internal_type() not in plain_types and f.name not in encoded]  # fmt: skip

    #: Per prepared column, the last value and its preparation: one object in every row
    #: (``insert_new``'s timestamp of the insert) is prepared once, not per row.
    last: dict[int, tuple] = {}

    def prepare(row: tuple):
        for i, _, final in prepared:
            if row[i].__class__ not in final:
                break
        else:  # every value already what its field's preparation would give
            return row
        row = list(row)
        for i, prep, _ in prepared:
            value = row[i]
            seen = last.get(i)
            if seen is not None and seen[0] is value:
                row[i] = seen[1]
            else:
                row[i] = prep(value)
                last[i] = (value, row[i])
        return row

    shown = progress.bar(len(rows), f"writing {opts.verbose_name_plural}", "row")
    with shown, connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # COPY: Django's psycopg cursor binds parameters client-side, parsing each
            # query in Python, which dominates for statements with thousands of values.
            with cursor.cursor.copy(f"COPY {table} ({names}) FROM STDIN") as copy:
                for i, row in enumerate(rows, 1):
                    copy.write_row(prepare(row))
                    if not i % 10_000:
                        shown.update(10_000)
            shown.update(len(rows) % 10_000)
            return len(rows)
        one = "(" + ", ".join(["%s"] * len(columns)) + ")"
        if connection.vendor == "sqlite":
            # One prepared statement run per row inside SQLite (no SQL text per batch to
            # build, parse, and, with DEBUG on, format into connection.queries).
            for start in range(0, len(rows), 10 * batch_size):
                chunk = rows[start : start + 10 * batch_size]
                cursor.executemany(
                    f"INSERT INTO {table} ({names}) VALUES {one}", [prepare(row) for row in chunk]
                )
                shown.update(len(chunk))
            return len(rows)
        for start in range(0, len(rows), batch_size):
            chunk = rows[start : start + batch_size]
            params = [value for row in chunk for value in prepare(row)]
            cursor.execute(
                f"INSERT INTO {table} ({names}) VALUES " + ", ".join([one] * len(chunk)), params
            )
            shown.update(len(chunk))
    return len(rows)


def update_rows(model, fields: list[str], rows: list[tuple]) -> int:
    """UPDATE ``fields`` of many rows given as ``(pk, *values)``, without model instances.

    Why: ``bulk_update`` builds one ``CASE WHEN pk = … THEN …`` expression per row and
    field (≈ 0.7 ms per report on the scale benchmark's 378,000 reports, issue 16). Here
    PostgreSQL gets the rows by COPY into a temporary table and one ``UPDATE … FROM``;
    SQLite one prepared ``UPDATE`` run per row. Values are prepared with each field's own
    ``get_db_prep_save``, as :func:`insert_rows` does."""
    from django.db import connection

    if not rows:
        return 0
    check_lengths(model, fields, rows, offset=1)
    opts = model._meta
    note_written(opts.db_table)
    columns = [opts.get_field(name) for name in fields]
    quote = connection.ops.quote_name
    table, pk = quote(opts.db_table), quote(opts.pk.column)

    preparers = [column_preparer(f, connection) for f in columns]

    def prepare(row: tuple) -> list:
        return [row[0], *(prep(v) for prep, v in zip(preparers, row[1:], strict=True))]

    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            names = ", ".join(quote(f.column) for f in columns)
            temp = quote(f"_update_{opts.db_table}")
            cursor.execute(f"DROP TABLE IF EXISTS {temp}")  # left by a failed autocommit call
            cursor.execute(f"CREATE TEMPORARY TABLE {temp} AS SELECT {pk}, {names} FROM {table} "
                           "WITH NO DATA")  # fmt: skip
            with cursor.cursor.copy(f"COPY {temp} ({pk}, {names}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(prepare(row))
            sets = ", ".join(f"{quote(f.column)} = u.{quote(f.column)}" for f in columns)
            cursor.execute(f"UPDATE {table} SET {sets} FROM {temp} u WHERE {table}.{pk} = u.{pk}")
            cursor.execute(f"DROP TABLE {temp}")
            return len(rows)
        sets = ", ".join(f"{quote(f.column)} = %s" for f in columns)
        sql = f"UPDATE {table} SET {sets} WHERE {pk} = %s"
        for start in range(0, len(rows), 10_000):
            cursor.executemany(
                sql, [[*r[1:], r[0]] for r in map(prepare, rows[start : start + 10_000])]
            )
    return len(rows)


def insert_new(model, rows: list[dict], *, encoded: frozenset[str] = frozenset()) -> int:
    """INSERT rows given as ``{field name: value}`` through :func:`insert_rows`.

    Every other concrete field gets what ``Model.save()`` would give it: its default
    (callable defaults called per row, e.g. a report's random ``public_id``), or the
    current time for ``auto_now`` / ``auto_now_add``. Why: the scale benchmark creates
    ~10⁵ questions, reports and assignments per file; building model instances for them
    costs more than the insert, and listing the fields here keeps working when a model
    gains a field with a default.
    """
    from django.utils import timezone

    if not rows:
        return 0
    fields = [f for f in model._meta.concrete_fields if not f.primary_key]
    now = timezone.now()
    fixed = {}
    for f in fields:
        if getattr(f, "auto_now", False) or getattr(f, "auto_now_add", False):
            fixed[f.name] = now
        elif not callable(f.default):
            fixed[f.name] = f.get_default()
    callables = {f.name: f.get_default for f in fields if f.name not in fixed}
    for name in encoded:  # a default is a value: given as text like the rows' own
        if fixed.get(name) is not None:
            fixed[name] = _json_text(fixed[name])
        elif name in callables:
            callables[name] = lambda get=callables[name]: _json_text(get())
    names = [f.name for f in fields]
    # one dict merge and one itemgetter per row (not a Python call per value: 2.5 M values
    # per 15,000 reports, issue 29)
    pick = itemgetter(*names) if len(names) > 1 else (lambda row: (row[names[0]],))
    out = []
    for row in rows:
        merged = {**fixed, **row}
        for name, default in callables.items():
            if name not in row:
                merged[name] = default()
        out.append(pick(merged))
    return insert_rows(model, names, out, encoded=encoded)


def insert_whole(model, fields, rows: list[tuple], *, encoded: frozenset[str] = frozenset()) -> int:
    """INSERT rows given as tuples of ``fields`` (:func:`insert_rows`) when ``fields`` are
    every column a new row has (no default to fill in), else through :func:`insert_new`.

    Why: the report structure's four tables (sections, paragraphs, citations, anchors:
    ~28 rows per report) are written as the tuples their writer builds, without a dict per
    row and its merge with the defaults (issue 29). Should a model gain a field, its rows
    still get what ``insert_new`` gives it."""
    names = {f.name for f in model._meta.concrete_fields if not f.primary_key}
    if set(fields) == names and len(fields) == len(names):
        return insert_rows(model, list(fields), rows, encoded=encoded)
    return insert_new(model, [dict(zip(fields, row, strict=True)) for row in rows], encoded=encoded)


def sync_rows(
    model, rep, *, stored: dict, wanted: dict, fields: list[str], new_row,
    same=None, touch: dict | Callable | None = None, table: str | None = None,
    describe: Callable | None = None, every: bool = False, where: Callable | None = None,
    opaque: Collection[str] = (),
) -> tuple[int, int, int]:  # fmt: skip
    """Bring the rows of ``model`` to ``wanted``: the one diff-then-count writer of the
    importers (issue 14).

    ``stored`` maps a natural key to ``(pk, values)`` and ``wanted`` a natural key to
    ``values``, both tuples in ``fields`` order. A wanted key that is not stored is inserted
    (``new_row(key, values)`` gives its ``{field: value}``, :func:`insert_new`); a stored one
    whose values differ (``same(stored, wanted)``, default ``==``) is updated in place with
    ``fields`` and ``touch`` (e.g. ``updated_at``: ``update_rows`` runs no ``auto_now``),
    which is ``{field: value}`` for every such row or ``touch(key)`` for each; an equal one
    is counted unchanged. Stored keys not wanted are left alone (the caller decides what a
    missing row means). Returns (created, updated, unchanged), also counted in ``rep`` under
    ``table``. With ``describe`` (the keys updated -> {key: the row's name}, asked once),
    each updated row is listed in ``rep.changes`` too (:func:`list_changes`), as the report
    and rubric imports list theirs: a dry run says which rows it would change, not only
    how many. With ``every`` too, each row created and each left unchanged is listed as
    well (``describe`` asked once for all the wanted keys, listed in their order), and
    ``where(key)`` gives the ``(file, record)`` of each listed row. ``opaque``: the
    fields whose values are database ids (a claim's paragraph), listed by name alone.
    """
    same = same or (lambda old, new: old == new)
    stamp = touch if callable(touch) else (lambda _key: touch or {})
    name = table or model.__name__
    create, update, unchanged, updated = [], {}, 0, []
    actions: dict = {}  # key -> its action, in wanted order (``every`` lists them all)
    for key, values in wanted.items():
        old = stored.get(key)
        if old is None:
            create.append(new_row(key, values))
            actions[key] = "created"
        elif same(old[1], values):
            unchanged += 1
            actions[key] = "unchanged"
        else:
            extra = stamp(key)
            updated.append(key)
            actions[key] = "updated"
            update.setdefault(tuple(extra), []).append((old[0], *values, *extra.values()))
    if create:
        insert_new(model, create)
    for touched, rows in update.items():  # one UPDATE per set of columns touched
        update_rows(model, [*fields, *touched], rows)
    n_updated = sum(map(len, update.values()))
    if describe is not None and every and actions:
        names = describe(list(actions))
        list_changes(rep, name, fields, {k: names[k] for k in actions}, stored, wanted,
                     actions=actions, where=where, opaque=opaque)  # fmt: skip
    elif describe is not None and updated:
        list_changes(rep, name, fields, describe(updated), stored, wanted, where=where,
                     opaque=opaque)  # fmt: skip
    for bucket, n in (("created", len(create)), ("updated", n_updated), ("unchanged", unchanged)):
        if n:
            rep.count(bucket, name, n)
    return len(create), n_updated, unchanged


def listed(by_key: dict, group: bool = False) -> dict:
    """:func:`sync_rows`' arguments that list every row it writes, created, updated or
    unchanged (``every``), each named by the record it comes from: ``by_key`` maps a key
    to the record read (``name``, ``file`` and record number ``n``; ``group``: named by
    its ``group`` instead, a medal's ranking). What a dry run of the human judgments import
    shows, as a judge-score import lists the verdicts it changes."""
    return {
        "describe": lambda keys: {k: by_key[k].group if group else by_key[k].name for k in keys},
        "every": True,
        "where": lambda k: (by_key[k].file, by_key[k].n),
    }


#: The longest value a change spells out as old -> new; a longer one (a rationale, a kept
#: record) is named by its field alone.
SHOWN_VALUE = 40


def _shown(value) -> str | None:
    """``value`` as a change's detail writes it, or None when it is too long to."""
    text = repr(value)
    return text if len(text) <= SHOWN_VALUE else None


def _differs(old, new) -> bool:
    """A field's change: a JSON record's as the text stored (``2`` vs ``2.0``, key order:
    what a writer's ``same`` counts as a change, ``same_text``), any other value's by ``!=``."""
    from annotation.models.jsontext import same_text

    if isinstance(old, (dict, list)) or isinstance(new, (dict, list)):
        return not same_text(old, new)
    return old != new


def list_changes(rep, table: str, fields, names: dict, stored: dict, wanted: dict, *,
                 actions: dict | None = None, where: Callable | None = None,
                 opaque: Collection[str] = ()) -> None:  # fmt: skip
    """One :class:`~.base.Change` per key of ``names`` (key -> the row's name): the fields
    whose stored value (``stored[key][1]``) differs from the wanted one, and the short
    ones' old -> new as its detail. ``actions`` (key -> ``created`` / ``updated`` /
    ``unchanged``; default: every key updated): a row created or unchanged is listed with
    its fields and their short values (``value 0.5``). ``where(key)``: its
    ``(file, record)``. ``opaque``: fields whose values (database ids) are not shown."""
    for key, name in names.items():
        action = actions[key] if actions is not None else "updated"
        file, record = where(key) if where is not None else (None, None)
        if action != "updated":
            shown = [f"{f} {a}" for f, v in zip(fields, wanted[key], strict=True)
                     if f not in opaque and (a := _shown(v)) is not None]  # fmt: skip
            rep.change(table, name, list(fields), file, record, "; ".join(shown), action)
            continue
        diff = [(f, old, new) for f, old, new in zip(fields, stored[key][1], wanted[key],
                                                       strict=True) if _differs(old, new)]  # fmt: skip
        shown = [f"{f} {a} -> {b}" for f, old, new in diff if f not in opaque
                 and (a := _shown(old)) is not None and (b := _shown(new)) is not None]  # fmt: skip
        rep.change(table, name, [f for f, _, _ in diff] or list(fields), file, record,
                   "; ".join(shown))  # fmt: skip
