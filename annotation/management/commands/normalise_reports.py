"""Re-normalise reports stored before import normalised them (issue 12).

    manage.py normalise_reports [--study NAME] [--dry-run]

Why a command and not a data migration: the normaliser (``annotation.normalise``) is code
that keeps evolving; a migration would freeze one version of it. Reports whose
``original`` is empty were stored raw; each is rewritten *in place* so that experts' work
tied to its rows survives: paragraphs keep their ids (and their number), citations keep
their ids (their key becomes ``n``), and claims' citation keys and claim checks' per-citation
answers follow the renamed keys. Run it once after deploying; running it again changes
nothing.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from annotation.importers.structure import (
    ParsedCitation,
    ParsedParagraph,
    ParsedReport,
    ParsedSection,
)
from annotation.models import (
    Citation,
    CitationAnchor,
    ClaimCheck,
    Paragraph,
    Report,
    ReportClaim,
    Section,
    bump_content_version,
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


def _parsed(report: Report) -> tuple[ParsedReport, list[Section], list[list[Paragraph]]]:
    sections = list(Section.objects.filter(report=report).order_by("position"))
    paragraphs = {s.pk: [] for s in sections}
    for p in Paragraph.objects.filter(report=report).order_by("number"):
        paragraphs[p.section_id].append(p)
    anchors: dict[int, list] = {}
    for a in CitationAnchor.objects.filter(paragraph__report=report).select_related("citation"):
        anchors.setdefault(a.paragraph_id, []).append((a.start, a.end, a.citation.key))
    citations = {
        c.key: ParsedCitation(
            key=c.key, title=c.title, snippets=list(c.snippets or []), url=c.url,
            metadata=dict(c.metadata or {}),
        )
        for c in Citation.objects.filter(report=report).order_by("id")
    }  # fmt: skip
    parsed = ParsedReport(
        sections=[
            ParsedSection(
                title=s.title,
                table=s.table,
                paragraphs=[
                    ParsedParagraph(p.text, anchors.get(p.pk, [])) for p in paragraphs[s.pk]
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
    rows = {c.key: c for c in Citation.objects.filter(report=report)}
    # Two steps, so that renaming "2" -> "1" while "1" -> "2" never collides.
    for c in rows.values():
        c.key = f"\ue000{c.pk}"
    Citation.objects.bulk_update(list(rows.values()), ["key"])
    new_rows = []
    for old, new in renamed.items():
        target = normalised.citations[new]
        row = rows.get(old) or Citation(report=report)
        row.key, row.title, row.snippets = new, target.title, target.snippets
        row.url, row.metadata = target.url, target.metadata
        (new_rows.append(row) if row.pk is None else row.save())
    Citation.objects.bulk_create(new_rows)
    by_key = {c.key: c for c in Citation.objects.filter(report=report)}
    CitationAnchor.objects.filter(paragraph__report=report).delete()
    anchors = []
    for section, rows_, new_section in zip(sections, paragraphs, normalised.sections, strict=True):
        section.title, section.table = new_section.title, new_section.table
        section.save(update_fields=["title", "table"])
        for row, para in zip(rows_, new_section.paragraphs, strict=True):
            row.text = para.text
            anchors += [
                CitationAnchor(paragraph=row, citation=by_key[k], start=a, end=b)
                for a, b, k in para.anchors
            ]
        Paragraph.objects.bulk_update(rows_, ["text"])
    CitationAnchor.objects.bulk_create(anchors)
    for claim in ReportClaim.objects.filter(report=report):
        claim.citation_keys = [renamed.get(k, k) for k in claim.citation_keys]
        claim.save(update_fields=["citation_keys"])
    for check in ClaimCheck.objects.filter(claim__report=report):
        check.citation_supports = {renamed.get(k, k): v for k, v in check.citation_supports.items()}
        check.save(update_fields=["citation_supports"])
    report.original = original
    report.save(update_fields=["original"])
    bump_content_version([report.pk])
