"""Re-normalise reports stored before import normalised them (issue 12).

    manage.py normalise_reports [--study NAME] [--dry-run]

Why a command and not a data migration: the normaliser (``annotation.normalise``) is code
that keeps evolving; a migration would freeze one version of it. Reports whose
``original`` is empty were stored raw; each is rewritten *in place* so that experts' work
tied to its rows survives: paragraphs keep their ids (and their number), citations keep
their place in the report's list (their key becomes ``n``), and claims' citation keys and claim checks' per-citation
answers follow the renamed keys. Run it once after deploying; running it again changes
nothing.

A report normalised at import before a system's boilerplate was declared
(:mod:`annotation.boilerplate`: STORM's "Here is a potential lead section…", Mita's memo
header, …) loses it here too: only the boilerplate, in place (its paragraph rows kept, an
emptied one empty, anchors moved with the text; nothing else is re-normalised, so a
report's citations and their numbers stay as stored, and its ``original`` as released).
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from annotation.boilerplate import strip_boilerplate, strip_boilerplate_title
from annotation.importers.structure import (
    ParsedCitation,
    ParsedParagraph,
    ParsedReport,
    ParsedSection,
    citations_json,
)
from annotation.models import (
    ClaimCheck,
    Paragraph,
    Report,
    ReportClaim,
    Section,
    bump_content_version,
    cited,
)
from annotation.normalise import normalise_report


class Command(BaseCommand):
    help = "Normalise reports imported before normalisation (one citation style, no model tags)."

    def add_arguments(self, parser):
        parser.add_argument("--study", help="Only this study (by name)")
        parser.add_argument("--dry-run", action="store_true", help="Count, change nothing")

    def handle(self, *args, study=None, dry_run=False, **options):
        reports = Report.objects.filter(original={})
        if study:
            if not Report.objects.filter(question__study__name=study).exists():
                raise CommandError(f"no reports in a study named {study!r}")
            reports = reports.filter(question__study__name=study)
        done = 0
        for report in reports.order_by("id").iterator():
            with transaction.atomic():
                normalise_stored(report, dry_run=dry_run)
            done += 1
        verb = "would normalise" if dry_run else "normalised"
        self.stdout.write(f"{verb} {done} reports")
        stored = Report.objects.exclude(original={})
        if study:
            stored = stored.filter(question__study__name=study)
        cleaned = 0
        for report in stored.order_by("id").iterator():
            with transaction.atomic():
                cleaned += without_boilerplate(report, dry_run=dry_run)
        verb = "would remove" if dry_run else "removed"
        self.stdout.write(f"{verb} a system's boilerplate from {cleaned} reports")


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


def normalise_stored(report: Report, *, dry_run: bool = False) -> None:
    """Normalise one stored report in place (see module doc)."""
    parsed, sections, paragraphs = _parsed(report)
    normalised, original = normalise_report(parsed, keep_empty=True)
    renamed = {c["key"]: c["normalised_key"] for c in original["citations"]}
    if dry_run:
        return
    # the sources under their new keys, as an import of the report would store them
    report.citations = citations_json(normalised)
    for section, rows_, new_section in zip(sections, paragraphs, normalised.sections, strict=True):
        section.title, section.table = new_section.title, new_section.table
        section.save(update_fields=["title", "table"])
        for row, para in zip(rows_, new_section.paragraphs, strict=True):
            row.text = para.text
            row.anchors = [list(a) for a in sorted(para.anchors)]
        Paragraph.objects.bulk_update(rows_, ["text", "anchors"])
    for claim in ReportClaim.objects.filter(report=report):
        claim.citation_keys = [renamed.get(k, k) for k in claim.citation_keys]
        claim.save(update_fields=["citation_keys"])
    for check in ClaimCheck.objects.filter(claim__report=report):
        check.citation_supports = {renamed.get(k, k): v for k, v in check.citation_supports.items()}
        check.save(update_fields=["citation_supports"])
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
