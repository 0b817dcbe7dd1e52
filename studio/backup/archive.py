"""The backup file: one zip holding a manifest and one JSON-lines member per table.

Why this shape: a zip can be written and read one member at a time (a large study never
sits in memory), members are compressed, and a truncated file has no central directory, so
it is refused before anything is read. ``manifest.json`` records the format version, the
Concord version, when the file was made, the study, and per table its columns, row count
and SHA-256 of the member's bytes; ``checksum`` is the SHA-256 of the table list itself.
Each line of a member is one row: a JSON array of the columns' values.
"""

from __future__ import annotations

import datetime as dt
import decimal
import hashlib
import json
import os
import uuid
import zipfile
from collections.abc import Callable, Iterator
from importlib import metadata
from pathlib import Path

from annotation.importers.base import ImportFailed, Problem

FORMAT = "concord-study-backup"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"


def concord_version() -> str:
    try:
        return metadata.version("concord")
    except metadata.PackageNotFoundError:  # pragma: no cover - running from a bare checkout
        return "unknown"


def _default(value):
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, decimal.Decimal | uuid.UUID):
        return str(value)
    raise TypeError(f"cannot store {type(value).__name__} in a backup")


def encode(row) -> bytes:
    return (
        json.dumps(list(row), default=_default, ensure_ascii=False, separators=(",", ":")) + "\n"
    ).encode()


def tables_checksum(tables: list[dict]) -> str:
    return hashlib.sha256(json.dumps(tables, sort_keys=True).encode()).hexdigest()


class Writer:
    """Writes a backup to ``path`` through a temporary file, renamed only when complete, so
    a failed export never leaves something that looks like a backup."""

    def __init__(self, path, study: dict):
        self.path = Path(path)
        self.partial = self.path.with_name(self.path.name + ".partial")
        self.zip = zipfile.ZipFile(self.partial, "w", zipfile.ZIP_DEFLATED, compresslevel=6)
        self.manifest = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "concord_version": concord_version(),
            "created_at": dt.datetime.now(dt.UTC).isoformat(),
            "study": study,
            "tables": [],
            "notes": [],
        }

    def write_table(self, label: str, columns: list[str], rows) -> int:
        digest, count = hashlib.sha256(), 0
        name = f"tables/{label}.jsonl"
        with self.zip.open(name, "w", force_zip64=True) as member:
            buffer = []
            for row in rows:
                line = encode(row)
                digest.update(line)
                buffer.append(line)
                count += 1
                if len(buffer) >= 2000:
                    member.write(b"".join(buffer))
                    buffer.clear()
            member.write(b"".join(buffer))
        self.manifest["tables"].append(
            {"model": label, "file": name, "columns": columns, "count": count,
             "sha256": digest.hexdigest()}
        )  # fmt: skip
        return count

    def close(self) -> None:
        self.manifest["checksum"] = tables_checksum(self.manifest["tables"])
        self.zip.writestr(MANIFEST, json.dumps(self.manifest, indent=1))
        self.zip.close()
        os.replace(self.partial, self.path)

    def abort(self) -> None:
        self.zip.close()
        self.partial.unlink(missing_ok=True)


class Reader:
    """Opens a backup and checks its manifest; :meth:`rows` streams one table and checks
    its count and checksum when the member has been read to the end."""

    def __init__(self, path):
        self.path = Path(path)
        self.name = self.path.name
        try:
            self.zip = zipfile.ZipFile(self.path)
            raw = self.zip.read(MANIFEST)
        except FileNotFoundError:
            self.fail(None, "no such file")
        except zipfile.BadZipFile:
            self.fail(None, "not a complete Concord backup (no zip directory: truncated?)")
        except KeyError:
            self.fail(None, f"not a Concord backup ({MANIFEST} is missing)")
        except (OSError, zipfile.LargeZipFile) as exc:
            self.fail(None, f"cannot be read: {exc}")
        try:
            self.manifest = json.loads(raw)
        except ValueError as exc:
            self.fail(MANIFEST, f"not valid JSON ({exc})")
        m = self.manifest
        if not isinstance(m, dict) or m.get("format") != FORMAT:
            self.fail(MANIFEST, f"'format' is not {FORMAT!r}: not a Concord study backup")
        if m.get("format_version") != FORMAT_VERSION:
            self.fail(
                MANIFEST,
                f"'format_version' is {m.get('format_version')!r}; this Concord reads "
                f"version {FORMAT_VERSION}",
            )
        tables = m.get("tables")
        if not isinstance(tables, list) or m.get("checksum") != tables_checksum(tables):
            self.fail(MANIFEST, "'checksum' does not match the table list: the file was changed")
        self.raw_entries = {t["model"]: t for t in tables}
        self.entries = dict(self.raw_entries)
        self.extend: dict[str, Callable[[int], list]] = {}
        self.change: dict[str, Callable[[list], list]] = {}
        self._upgrade()

    def _upgrade(self) -> None:
        """The current layout of a backup written by an earlier Concord
        (:mod:`.layouts`): :attr:`entries` and :meth:`rows` show today's tables and columns;
        what the file holds is :attr:`raw_entries` and :meth:`raw_rows`."""
        from .layouts import UPGRADES

        for find in UPGRADES:
            problems: list[Problem] = []
            upgrade = find(self, problems)
            if problems:
                raise ImportFailed(problems)
            if upgrade is None:
                continue
            for label in upgrade.dropped:
                self.entries.pop(label, None)
            for label, change in upgrade.changed.items():
                if label in self.entries:
                    self.change[label] = change
            for label, columns in upgrade.added.items():
                if label in self.entries:
                    entry = self.entries[label]
                    self.entries[label] = {**entry, "columns": [*entry["columns"], *columns]}
                    # a table two migrations added columns to (a question's ``released``,
                    # then its ``title``) takes the values of both, in that order
                    before, values = self.extend.get(label), upgrade.values[label]
                    self.extend[label] = values if before is None else (
                        lambda pk, before=before, values=values: [*before(pk), *values(pk)])  # fmt: skip

    def fail(self, member: str | None, message: str):
        where = self.name if member is None else f"{self.name} [{member}]"
        raise ImportFailed([Problem(where, None, None, message)])

    def rows(self, label: str, problems: list[Problem] | None = None) -> Iterator[tuple[int, list]]:
        """(line number, row) of one table in the current layout; a bad line, count or
        checksum is added to ``problems`` (or raised when no list is given)."""
        extend, change = self.extend.get(label), self.change.get(label)
        if extend is None and change is None:
            yield from self.raw_rows(label, problems)
            return
        pk = self.raw_entries[label]["columns"].index("id")
        for line, row in self.raw_rows(label, problems):
            if change is not None:
                row = change(row)
            yield line, row if extend is None else [*row, *extend(row[pk])]

    def raw_rows(
        self, label: str, problems: list[Problem] | None = None
    ) -> Iterator[tuple[int, list]]:
        """(line number, row) of one table as the file holds it (:meth:`rows`)."""
        entry = self.raw_entries.get(label)
        if entry is None:
            return
        where = f"{self.name} [{label}]"

        def problem(line, message):
            p = Problem(where, line, None, message)
            if problems is None:
                raise ImportFailed([p])
            problems.append(p)

        digest, count = hashlib.sha256(), 0
        try:
            with self.zip.open(entry["file"]) as member:
                for count, line in enumerate(member, 1):  # noqa: B007 - count used after
                    digest.update(line)
                    try:
                        row = json.loads(line)
                    except ValueError as exc:
                        problem(count, f"not a JSON row ({exc})")
                        continue
                    if not isinstance(row, list) or len(row) != len(entry["columns"]):
                        problem(count, f"expected {len(entry['columns'])} columns")
                        continue
                    yield count, row
        except KeyError:
            problem(None, f"member {entry['file']} is missing")
            return
        except (zipfile.BadZipFile, EOFError, OSError) as exc:
            problem(None, f"the data are damaged ({exc})")
            return
        if count != entry["count"]:
            problem(None, f"{count} rows, the manifest says {entry['count']}")
        elif digest.hexdigest() != entry["sha256"]:
            problem(None, "checksum mismatch: the rows were changed after the export")
