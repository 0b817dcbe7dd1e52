"""The contract every importer follows (ARCHITECTURE.md, issue 2).

An importer reads a whole file, validates every record first and collects *all* problems
as :class:`Problem` (file, record number, field, message). Only when there is none does it
write, inside one transaction, updating by natural key so a re-import never duplicates.
The management commands, the API upload and the admin page all call :func:`annotation.importers.run`.

An oddity the format module can interpret with a documented rule (a released file's empty
citation id, a marker citing no listed source, a question given twice) is no problem: the
file is imported and the oddity is reported in :attr:`ImportReport.warnings`, as precisely
as a problem (record and field), so that nothing is changed silently.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field

from django.db import transaction


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an input file, precise enough to fix by hand."""

    file: str
    record: int | None  # 1-based record number; None for a file-level problem
    field: str | None
    message: str

    def __str__(self) -> str:
        where = self.file
        if self.record is not None:
            where += f", record {self.record}"
        if self.field:
            where += f", field '{self.field}'"
        return f"{where}: {self.message}"


@dataclass(frozen=True)
class Change:
    """One stored record an import changes (a dry run: would change), and which of its
    fields: what a dry run lists besides its counts, so that nothing is changed unseen.
    ``record`` is the file's record (None: not one record's), ``id`` names the stored row
    by its natural key (question ``'4'``, rubric item at position 3); ``detail`` the short
    values' old -> new (a judge's score ``value 0.5 -> 1.0``; long texts by name alone).

    ``action``: ``updated`` (the default: what every import lists), or ``created`` /
    ``unchanged`` for an import that lists each record it writes, not only those it
    changes (the human judgments import: a dry run names every judgment it would create,
    update or leave as stored); their ``detail`` holds the short values as stored."""

    table: str
    id: str
    fields: tuple[str, ...]
    file: str | None = None
    record: int | None = None
    detail: str = ""
    action: str = "updated"

    #: The actions, in the order :meth:`ImportReport.summary` lists them.
    ACTIONS = ("created", "updated", "unchanged")

    def __str__(self) -> str:
        where = f"{self.file}, record {self.record}: " if self.record is not None else ""
        detail = f" ({self.detail})" if self.detail else ""
        what = ", ".join(self.fields) if self.action == "updated" else self.action
        return f"{where}{self.table} {self.id}: {what}{detail}"


class ImportFailed(Exception):
    """Raised with every problem found; nothing was written."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


class TooLarge(ImportFailed):
    """An upload larger than the import takes (``IMPORT_MAX_BYTES``, ``limit`` bytes): the
    API answers it 413 with the limit, as it answers a body over ``UPLOAD_MAX_BYTES``
    (an oversized import was a 400 while an oversized JSON body was a 413)."""

    def __init__(self, problems: list[Problem], limit: int):
        super().__init__(problems)
        self.limit = limit


@dataclass
class ImportReport:
    """What an import did (or, with dry_run, would do): counts per table."""

    kind: str
    dry_run: bool
    created: dict[str, int] = field(default_factory=dict)
    updated: dict[str, int] = field(default_factory=dict)
    unchanged: dict[str, int] = field(default_factory=dict)
    records: int = 0
    #: Tasks this import enabled: those its data supports in a study that had none, and
    #: those whose judgments the study now holds (``readiness.enable_supported``).
    enabled_tasks: list[str] = field(default_factory=list)
    #: What was imported by a documented rule rather than as written (see module doc).
    warnings: list[Problem] = field(default_factory=list)
    #: Pseudonym -> which annotator it matched (an import that names people says whom).
    annotators: dict[str, str] = field(default_factory=dict)
    #: Each stored record changed (updated) and which fields: :class:`Change`.
    changes: list[Change] = field(default_factory=list)

    #: How many warnings and changes :meth:`summary` spells out (all are in
    #: :attr:`warnings` and :attr:`changes`).
    SUMMARY_WARNINGS = 20
    #: A change's action -> how :meth:`summary` heads its list (dry run, real run).
    _CHANGE_VERBS = {
        "created": ("would be created", "created"),
        "updated": ("would change", "changed"),
        "unchanged": ("would be left unchanged", "left unchanged"),
    }

    def change(self, table: str, id: str, fields, file: str | None = None,
               record: int | None = None, detail: str = "",
               action: str = "updated") -> None:  # fmt: skip
        self.changes.append(Change(table, id, tuple(fields), file, record, detail, action))

    def warn(self, file: str, record: int | None, field: str | None, message: str) -> None:
        self.warnings.append(Problem(file, record, field, message))

    def count(self, bucket: str, table: str, n: int = 1) -> None:
        target = getattr(self, bucket)
        target[table] = target.get(table, 0) + n

    def summary(self) -> str:
        verb = "would import" if self.dry_run else "imported"
        parts = [f"{verb} {self.records} records ({self.kind})"]
        for bucket in ("created", "updated", "unchanged"):
            counts = getattr(self, bucket)
            if counts:
                parts.append(
                    f"{bucket}: " + ", ".join(f"{n} {t}" for t, n in sorted(counts.items()))
                )
        if self.annotators:
            parts.append(
                "annotators: "
                + ", ".join(f"{p} = {what}" for p, what in sorted(self.annotators.items()))
            )
        if self.enabled_tasks:
            parts.append("tasks enabled for the data imported: " + ", ".join(self.enabled_tasks))
        text = "; ".join(parts)
        for action in Change.ACTIONS:
            listed = [c for c in self.changes if c.action == action]
            if not listed:
                continue
            shown = listed[: self.SUMMARY_WARNINGS]
            verb = self._CHANGE_VERBS[action][0 if self.dry_run else 1]
            text += f"\n{len(listed)} record(s) {verb}:" + "".join(f"\n- {c}" for c in shown)
            if len(listed) > len(shown):
                text += f"\n- … and {len(listed) - len(shown)} more"
        if self.warnings:
            shown = self.warnings[: self.SUMMARY_WARNINGS]
            text += f"\n{len(self.warnings)} warning(s):" + "".join(f"\n- {w}" for w in shown)
            if len(self.warnings) > len(shown):
                text += f"\n- … and {len(self.warnings) - len(shown)} more"
        return text


class _RolledBack(Exception):
    """Raised at the end of a dry run's transaction to undo it (never escapes)."""


@contextmanager
def dry_run_transaction(dry_run: bool):
    """One transaction around an import's writes; with ``dry_run`` it is rolled back at the
    end, so a dry run performs (and counts) exactly what a real import would, then undoes
    it. The one dry-run helper of every import and restore (issue 14)."""
    try:
        with transaction.atomic():
            yield
            if dry_run:
                raise _RolledBack
    except _RolledBack:
        pass
