"""Claim citation check (003 A.5): for each claim, is it fully supported by its citations
(yes / no), does each citation support it (yes / no) — or skip it when it is beyond your
expertise (please skip only when you must).

Payload: ``{"claims": {claim public id: {"skip": bool, "fully": "yes" | "no" | "",
"cites": {"0": "yes" | "no", ...}}}}``.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Q

from annotation.models import ClaimCheck, ReportClaim
from annotation.rendering import claim_spans, highlighted

from ..quality import labels as ql
from ..rendering import source_html, source_of
from . import qc
from .base import Needs, Problems, TaskSpec
from .form import Choices, Field, Form, Unit, checked
from .page import TaskPage
from .widgets import radio_group

YES_NO = [("yes", "Yes", "y"), ("no", "No", "n")]
YES_OR_NO = Choices(("yes", "no"), "yes or no")


@dataclass
class ClaimRow:
    claim: ReportClaim
    report: object  # RenderedReport
    n: int

    @property
    def citations(self):
        return [self.report.citations.get(key) for key in self.claim.citation_keys]


def claim_in_report(claim: ReportClaim, report, asked: str | None = None) -> dict:
    """What a reader of one claim sees besides the report (an adjudicator of a claim unit,
    ``studio.quality_views``): its text, its paragraph of ``report`` (a RenderedReport)
    with the claim marked where it stands (its stored paragraph, else the first whose
    selectable text holds it), and its cited sources as the claim check lists them, the
    one ``asked`` about (a unit "claim <id> cites <key>") marked."""
    paragraphs = report.paragraphs
    para = next((p for p in paragraphs if p.pk == claim.paragraph_id), None)
    if para is None:
        para = next((p for p in paragraphs if claim_spans(p.html, claim.text)), None)
    marked = highlighted(para.html, claim.text) if para is not None else None
    return {
        "claim": claim,
        "report": report,
        "paragraph": para,
        "paragraph_html": marked if marked is not None else getattr(para, "html", ""),
        "found": marked is not None,
        "cites": [
            {
                "key": key,
                "asked": key == asked,
                "source_html": source_html(source_of(report.citations.get(key), key)),
            }
            for key in claim.citation_keys
        ],
    }


def claims_of(page: TaskPage) -> list[ClaimRow]:
    """The claims of the assignment's reports, in report order. One query (cached)."""
    cached = getattr(page, "_claims", None)
    if cached is None:
        reports = {r.report.pk: r for r in page.reports}
        claims = ReportClaim.objects.filter(report_id__in=reports).order_by("position", "pk")
        by_report = sorted(
            claims, key=lambda c: (list(reports).index(c.report_id), c.position, c.pk)
        )
        cached = page._claims = [
            ClaimRow(claim=c, report=reports[c.report_id], n=i)
            for i, c in enumerate(by_report, start=1)
        ]
    return cached


def _rows(page: TaskPage) -> dict[str, ClaimRow]:
    return {row.claim.public_id: row for row in claims_of(page)}


CLAIM = Unit(
    "claim",
    lambda page, ids: {cid: row.n for cid, row in _rows(page).items()},
    unknown="Claims: an answer names a claim that is not in this task.",
)
CITE = Unit(
    "cite",
    lambda page, ids: {
        str(j): j for j in range(len(_rows(page)[ids["claim"]].claim.citation_keys))
    },
    unknown="Claim {claim}: it has no citation {id}.",
)
FORM = Form(
    title="Claims",
    fields=(
        Field("cc.<claim>.skip", "claims.<claim>.skip", convert=checked, default=False),
        Field(
            "cc.<claim>.fully",
            "claims.<claim>.fully",
            default="",
            choices=YES_OR_NO,
            invalid="Claim {claim}: {value!r} is not {choices}.",
        ),
        Field(
            "cc.<claim>.cite.<cite>",
            "claims.<claim>.cites.<cite>",
            blank_ok=False,
            choices=YES_OR_NO,
            invalid="Claim {claim}: {value!r} is not {choices}.",
        ),
    ),
    units=(CLAIM, CITE),
)


def stored(study, annotator=None):
    """Checks that give a label: a skipped claim, or one not yet decided, gives none."""
    checks = ClaimCheck.objects.filter(study=study, **qc.who(annotator))
    return checks.filter(skipped=False, fully_supported__isnull=False)


def qc_rows(study, annotator=None):
    """Per claim: fully supported yes / no, and each citation's support yes / no. A skipped
    claim (beyond the annotator's expertise) gives no label: a skip is not an answer."""
    rows = stored(study, annotator).select_related("claim__report__system", "assignment")
    for c in rows:
        system, pid = c.claim.report.system.name, c.claim.public_id
        yield c, ql.on_report(ql.claim_unit(pid), system), "yes" if c.fully_supported else "no"
        for key, ok in sorted((c.citation_supports or {}).items()):
            yield c, ql.on_report(ql.claim_unit(pid, key), system), "yes" if ok else "no"


def qc_unlabelled(study, question_ids, annotator=None):
    """The units of every claim left without a label in a stored check (skipped as beyond
    the annotator's expertise, or undecided): the claim and each of its citations. The form
    lets a submitted task skip single claims, so a known-answer claim skipped so would
    otherwise be neither answered nor skipped (docs/QUALITY.md). One query."""
    rows = (
        ClaimCheck.objects.filter(study=study, question_id__in=question_ids, **qc.who(annotator))
        .filter(Q(skipped=True) | Q(fully_supported__isnull=True))
        .select_related("claim__report__system", "assignment")
    )
    for c in rows:
        system, pid = c.claim.report.system.name, c.claim.public_id
        yield c, ql.on_report(ql.claim_unit(pid), system), ""
        for key in c.claim.citation_keys:
            yield c, ql.on_report(ql.claim_unit(pid, key), system), ""


YES_NO_VALUES = ql.Values(("yes", "no"))


def qc_units(study, question):
    units = {}
    claims = ReportClaim.objects.filter(report__question=question).select_related("report__system")
    for c in claims:
        system = c.report.system.name
        units[ql.on_report(ql.claim_unit(c.public_id), system)] = YES_NO_VALUES
        for key in c.citation_keys:
            units[ql.on_report(ql.claim_unit(c.public_id, key), system)] = YES_NO_VALUES
    return units


QC = ql.LabelSpec(
    unit="one claim (claim <id>@System: fully supported?) or one of its citations (claim <id> "
    "cites <key>@System: does it support the claim?)",
    label="yes / no (a skipped claim gives no label)",
    rows=qc_rows,
    held=qc.held(stored),
    units=qc_units,
    unlabelled=qc_unlabelled,
    notation="unit “claim k3x9@SysA”, answer yes",
)


class ClaimCheckTask(TaskSpec):
    needs = Needs(reports=1, claims=True)
    qc = QC
    key = "claim_check"
    form = FORM

    def rules(self, payload, page, resolve):
        """Every claim not skipped: is it fully supported, and does each citation support it."""
        rules = Problems()
        answers = payload["claims"]
        for cid, row in _rows(page).items():
            answer = answers.get(cid) or {}
            if answer.get("skip"):
                continue
            if not answer.get("fully"):
                rules.errors.append(f"Claim {row.n}: is it fully supported? (or skip it)")
            cites = answer.get("cites") or {}
            missing = [k for j, k in enumerate(row.claim.citation_keys) if str(j) not in cites]
            if missing:
                rules.errors.append(f"Claim {row.n}: does {', '.join(missing)} support it?")
        return rules

    def persist(self, payload, page):
        a = page.assignment
        for row in claims_of(page):
            answer = payload["claims"].get(row.claim.public_id) or {}
            skipped = bool(answer.get("skip"))
            ClaimCheck.objects.update_or_create(
                annotator=page.annotator,
                claim=row.claim,
                setting=a.setting,
                defaults={
                    "study": a.study,
                    "question": a.question,
                    "assignment": a,
                    "skipped": skipped,
                    "fully_supported": None if skipped else answer["fully"] == "yes",
                    "citation_supports": {}
                    if skipped
                    else {
                        k: answer["cites"][str(j)] == "yes"
                        for j, k in enumerate(row.claim.citation_keys)
                    },
                },
            )

    def stored_answers(self, page):
        """The annotator's stored checks of the assignment's claims (the page's or an
        import's): a skipped claim as skipped, else its "fully supported" and each
        citation's answer by the citation's place in the claim. One query (the claims are
        the page's, read for its cards anyway)."""
        rows = {row.claim.pk: row for row in claims_of(page)}
        checks = ClaimCheck.objects.filter(
            annotator=page.annotator, setting=page.assignment.setting, claim_id__in=rows
        ).values_list("claim_id", "skipped", "fully_supported", "citation_supports")
        answers = {}
        for claim_id, skipped, fully, supports in checks:
            keys = rows[claim_id].claim.citation_keys
            supports = {} if skipped else supports or {}
            answers[rows[claim_id].claim.public_id] = {
                "skip": skipped,
                "fully": "" if skipped or fully is None else ("yes" if fully else "no"),
                "cites": {
                    str(j): "yes" if supports[k] else "no"
                    for j, k in enumerate(keys)
                    if k in supports
                },
            }
        return {"claims": answers} if answers else None

    def context(self, payload, page):
        answers = payload.get("claims") or {}
        cards = []
        for row in claims_of(page):
            answer = answers.get(row.claim.public_id) or {}
            cid = row.claim.public_id
            cites = [
                {
                    "key": key,
                    "citation": citation,
                    # every source as the report's chips show it: its title (else its
                    # address's host and path) and snippets, and a link whenever it has an
                    # address (a Perplexity source is only one)
                    "source_html": source_html(source_of(citation, key)),
                    "html": radio_group(
                        f"cc.{cid}.cite.{j}",
                        YES_NO,
                        (answer.get("cites") or {}).get(str(j)),
                        f"Does {key} support the claim?",
                    ),
                }
                for j, (key, citation) in enumerate(
                    zip(row.claim.citation_keys, row.citations, strict=True)
                )
            ]
            cards.append(
                {
                    "row": row,
                    "skip": bool(answer.get("skip")),
                    "fully_html": radio_group(
                        f"cc.{cid}.fully",
                        YES_NO,
                        answer.get("fully"),
                        "Is every aspect of the claim fully supported by the cited sources?",
                    ),
                    "cites": cites,
                }
            )
        return {"cards": cards}


TASK = ClaimCheckTask()
