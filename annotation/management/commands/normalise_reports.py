"""Re-normalise stored reports with the current normaliser (issue 12).

    manage.py normalise_reports [--study NAME] [--dry-run]

Why a command and not a data migration: the normaliser (``annotation.normalise``) is code
that keeps evolving; a migration would freeze one version of it. Run it after deploying a
normaliser that changed; running it again changes nothing.

**Rebuilt from the kept record.** A report whose file's records are kept as released
(``Report.original["released"]``: ScholarQA-CS2, ResearcherBench, ResearchQA) is read again
from them by its format's reader (:attr:`~annotation.importers.registry.Format.reread`) and
normalised anew, and its whole structure is stored as a fresh import of the same record
would store it: sections, paragraphs, anchors *and* sources (a source the newer normaliser
finds is added, one it no longer invents removed, all renumbered), and the normaliser's
part of ``original``. It goes through the importers' one structure writer
(``write_structures``: paragraph rows kept by number, ``content_version`` bumped). Each
rebuilt report is listed with the number of its sections, paragraphs and sources changed.

**In place, without a kept record.** A report whose ``original`` is empty was stored raw;
it is normalised *in place*: paragraphs keep their ids (and their number), citations keep
their place in the report's list (their key becomes ``n``). A report normalised at import
before a system's boilerplate was declared (:mod:`annotation.boilerplate`: STORM's "Here is
a potential lead section…", Mita's memo header, …) and with no kept record (written through
the API, or in a format that keeps none) loses it here: only the boilerplate, in place (its
paragraph rows kept, an emptied one empty, anchors moved with the text; nothing else is
re-normalised, so its citations stay as stored). Neither can add a source: only a kept
record (or the file imported again) says what the system cited.

**Kept as they are.** A report that someone's work points at
(:func:`annotation.units.rebuild_work`: experts' judgments, claims, drafts, judges'
verdicts) is never changed, by any of the three: it is listed (its id and the work that
keeps it) when it would have changed. Its labels were given to the text as it reads.

``--dry-run`` lists and counts the same, and writes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from annotation.boilerplate import strip_boilerplate, strip_boilerplate_title
from annotation.importers import FORMATS, ImportFailed, ImportReport, released
from annotation.importers.structure import (
    ParsedCitation,
    ParsedParagraph,
    ParsedReport,
    ParsedSection,
    citations_json,
    stored_canonical,
    write_structures,
)
from annotation.models import (
    Paragraph,
    Report,
    Section,
    bump_content_version,
    cited,
)
from annotation.models.jsontext import same_text
from annotation.normalise import ORIGINAL_KEYS, normalise_report
from annotation.units import JudgedUnitRemoved, rebuild_work

#: Reports read, and their work looked up, this many at a time.
CHUNK = 500


class Command(BaseCommand):
    help = (
        "Re-normalise stored reports with the current normaliser: rebuild each from its "
        "kept record (sections, paragraphs, anchors and sources), except those someone's "
        "work points at (listed, kept as they are)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--study", help="Only this study (by name)")
        parser.add_argument("--dry-run", action="store_true", help="List and count, change nothing")

    def handle(self, *args, study=None, dry_run=False, **options):
        reports = Report.objects.all()
        if study:
            if not Report.objects.filter(question__study__name=study).exists():
                raise CommandError(f"no reports in a study named {study!r}")
            reports = reports.filter(question__study__name=study)
        ids = list(reports.order_by("id").values_list("id", flat=True))
        done = {"normalise": 0, "rebuild": 0, "boilerplate": 0}
        kept = 0
        for start in range(0, len(ids), CHUNK):
            chunk = ids[start : start + CHUNK]
            work = rebuild_work(chunk)
            for report in Report.objects.filter(pk__in=chunk).order_by("id"):
                with transaction.atomic():
                    step = renormalise(report, work.get(report.pk), dry_run=dry_run)
                if step is None:
                    continue
                self.stdout.write(step.line(dry_run))
                if step.kept:
                    kept += 1
                else:
                    done[step.kind] += 1
        verbs = ("would normalise", "would rebuild", "would remove") if dry_run else (
            "normalised", "rebuilt", "removed")  # fmt: skip
        self.stdout.write(f"{verbs[0]} {done['normalise']} reports")
        self.stdout.write(f"{verbs[1]} {done['rebuild']} reports from their kept records")
        self.stdout.write(f"{verbs[2]} a system's boilerplate from {done['boilerplate']} reports")
        self.stdout.write(f"kept {kept} reports as they are (listed above)")


@dataclass
class Step:
    """What re-normalising one report does (or would do): ``kind`` is ``normalise`` (a raw
    report, in place), ``rebuild`` (from its kept record) or ``boilerplate`` (removed in
    place); ``changed`` says how much; ``kept`` why it is left as it is instead (the work
    pointing at it, or a kept record that no longer reads)."""

    report: Report
    kind: str
    changed: str = ""
    kept: str = ""

    WHAT = {"normalise": "normalise in place", "rebuild": "rebuild from its kept record",
            "boilerplate": "remove a system's boilerplate"}  # fmt: skip
    DONE = {"normalise": "normalised in place", "rebuild": "rebuilt from its kept record",
            "boilerplate": "removed a system's boilerplate"}  # fmt: skip

    def line(self, dry_run: bool) -> str:
        name = f"report {self.report.pk} ({self.report.public_id})"
        what = self.WHAT[self.kind] + (f": {self.changed}" if self.changed else "")
        if self.kept:
            return f"kept {name} as it is: {self.kept} (would {what})"
        done = self.DONE[self.kind] + (f": {self.changed}" if self.changed else "")
        return f"{name}: {'would ' + what if dry_run else done}"


class UnreadableRecord(Exception):
    """A report's kept record no longer reads (its format refuses it): left as it is."""


def renormalise(report: Report, work: list[str] | None, *, dry_run: bool) -> Step | None:
    """Re-normalise one report (module doc): the step taken, or None when nothing would
    change. Nothing is written with ``dry_run`` or when ``work`` (the kinds of work
    pointing at it) keeps it as it is."""
    kept = f"it has {', '.join(work)}" if work else ""
    write = not dry_run and not kept
    if not report.original:
        if write:
            normalise_stored(report)
        return Step(report, "normalise", kept=kept)
    try:
        rebuild = rebuilt(report)
    except UnreadableRecord as refused:
        return Step(report, "rebuild", kept=str(refused))
    if rebuild is None:
        if not without_boilerplate(report, dry_run=not write):
            return None
        return Step(report, "boilerplate", kept=kept)
    if not rebuild.differs():
        return None
    if write:
        try:
            with transaction.atomic():  # the writer's refusal leaves nothing written
                rebuild.write()
        except JudgedUnitRemoved as refused:  # work added since it was looked up
            kept = refused.message(report.pk)
    return Step(report, "rebuild", rebuild.describe(), kept)


@dataclass
class Rebuild:
    """One report read again from its kept record and normalised: what a fresh import of
    that record stores (``parsed``, ``original``), and what is stored now (``stored``, in
    :meth:`ParsedReport.canonical` form)."""

    report: Report
    parsed: ParsedReport
    original: dict
    stored: tuple

    def differs(self) -> bool:
        """Whether it is not what is stored (the original compared as a re-import does)."""
        return self.parsed.canonical() != self.stored or not same_text(
            self.report.original, self.original
        )

    def describe(self) -> str:
        """How many sections, paragraphs and sources change (sources: before -> after)."""
        (old_sections, old_sources), (new_sections, new_sources) = (
            self.stored,
            self.parsed.canonical(),
        )
        sections = _differing([s[:2] for s in old_sections], [s[:2] for s in new_sections])
        old_paras = [(pos, *p[1:]) for pos, s in enumerate(old_sections) for p in s[2]]
        new_paras = [(pos, *p[1:]) for pos, s in enumerate(new_sections) for p in s[2]]
        sources = _differing({c[0]: c for c in old_sources}, {c[0]: c for c in new_sources})
        text = (
            f"{sections} sections, {_differing(old_paras, new_paras)} paragraphs, "
            f"{sources} sources changed ({len(old_sources)} -> {len(new_sources)} sources)"
        )
        if not same_text(self.report.original, self.original):
            text += ", its original's record of the normalisation"
        return text

    def write(self) -> None:
        """Store it through the importers' one structure writer (module doc)."""
        where = {self.report.pk: (f"report id {self.report.pk}", "normalise_reports", None)}
        rep = ImportReport(kind="reports", dry_run=False)
        write_structures([(self.report, self.parsed, self.original)], rep, set(), where)


def _differing(old, new) -> int:
    """How many of two lists' places (or two dicts' keys) hold different values."""
    if isinstance(old, dict):
        return sum(old.get(k) != new.get(k) for k in old.keys() | new.keys())
    size = max(len(old), len(new))
    pad = [None] * size
    return sum(a != b for a, b in zip(old + pad[len(old) :], new + pad[len(new) :], strict=True))


def kept_records(report: Report):
    """The format (registered, with a ``reread``) and the kept records of one report, in
    record order; None when it has none to be read again (module doc)."""
    entries = [e for e in report.original.get(released.KEY) or () if isinstance(e, dict)]
    names = {e.get("format") for e in entries}
    if len(names) != 1:
        return None
    fmt = FORMATS.get(("reports", names.pop()))
    if fmt is None or fmt.reread is None:
        return None
    return fmt, sorted(entries, key=lambda e: e.get("record") or 0)


def rebuilt(report: Report) -> Rebuild | None:
    """The report as a fresh import of its kept record stores it (:class:`Rebuild`), or
    None when it has no kept record to read again. Its ``original`` keeps the importer's
    keys as stored (the records as released, their layout, a set-aside report) and takes
    the normaliser's anew. :class:`UnreadableRecord` when its format refuses the record
    (naming the record and field)."""
    found = kept_records(report)
    if found is None:
        return None
    fmt, entries = found
    try:
        parsed = fmt.reread(entries)
    except ImportFailed as refused:
        raise UnreadableRecord(f"its kept {fmt.name} record does not read: {refused}") from None
    except (KeyError, TypeError, AttributeError, IndexError) as error:
        records = ", ".join(str(e.get("record")) for e in entries)
        raise UnreadableRecord(
            f"its kept {fmt.name} record {records} does not read: no {error} in it"
        ) from None
    normalised, original = normalise_report(parsed)
    for key, value in report.original.items():
        if key not in ORIGINAL_KEYS:
            original[key] = value
    stored = stored_canonical([report.pk])[report.pk]
    return Rebuild(report, normalised, original, stored)


def _parsed(report: Report) -> tuple[ParsedReport, list[Section], list[list[Paragraph]]]:
    sections = list(Section.objects.filter(report=report).order_by("position"))
    paragraphs = {s.pk: [] for s in sections}
    for p in Paragraph.objects.filter(report=report).order_by("number"):
        paragraphs[p.section_id].append(p)
    citations = {
        c.key: ParsedCitation(
            key=c.key, title=c.title, snippets=list(c.snippets), url=c.url,
            metadata=dict(c.metadata),
        )
        for c in cited(report.citations).values()
    }  # fmt: skip
    parsed = ParsedReport(
        sections=[
            ParsedSection(
                title=s.title,
                table=s.table,
                paragraphs=[
                    ParsedParagraph(p.text, [tuple(a) for a in p.anchors]) for p in paragraphs[s.pk]
                ],
            )
            for s in sections
        ],
        citations=citations,
    )
    return parsed, sections, [paragraphs[s.pk] for s in sections]


def normalise_stored(report: Report) -> None:
    """Normalise one stored raw report in place (see module doc)."""
    parsed, sections, paragraphs = _parsed(report)
    normalised, original = normalise_report(parsed, keep_empty=True)
    # the sources under their new keys, as an import of the report would store them
    report.citations = citations_json(normalised)
    for section, rows_, new_section in zip(sections, paragraphs, normalised.sections, strict=True):
        section.title, section.table = new_section.title, new_section.table
        section.save(update_fields=["title", "table"])
        for row, para in zip(rows_, new_section.paragraphs, strict=True):
            row.text = para.text
            row.anchors = [list(a) for a in sorted(para.anchors)]
        Paragraph.objects.bulk_update(rows_, ["text", "anchors"])
    report.original = original
    report.save(update_fields=["original", "citations"])
    bump_content_version([report.pk])


def without_boilerplate(report: Report, *, dry_run: bool = False) -> bool:
    """Remove a system's boilerplate (:mod:`annotation.boilerplate`) from one stored,
    normalised report in place, as normalisation would at import: each paragraph stripped
    of it (and of the spaces around what is left, anchors moved), each section's title.
    Rows are kept (an emptied paragraph is empty: experts' work is tied to its number).
    Whether anything changed (or would)."""
    sections = list(Section.objects.filter(report=report).order_by("position"))
    if not sections:
        return False
    first = sections[0].pk
    titled = []
    for section in sections:
        title = strip_boilerplate_title(section.title, first=section.pk == first)
        if title != section.title:
            section.title = title
            titled.append(section)
    rows = []
    for row in Paragraph.objects.filter(report=report).order_by("number"):
        anchors = [tuple(a) for a in row.anchors]
        text, anchors = strip_boilerplate(row.text, anchors, head=row.section_id == first)
        if text == row.text:
            continue
        stripped = text.lstrip()
        lead = len(text) - len(stripped)
        row.text = stripped.rstrip()
        row.anchors = [[a - lead, b - lead, *rest] for a, b, *rest in sorted(anchors)]
        rows.append(row)
    if not (titled or rows):
        return False
    if not dry_run:
        Section.objects.bulk_update(titled, ["title"])
        Paragraph.objects.bulk_update(rows, ["text", "anchors"])
        bump_content_version([report.pk])
    return True
