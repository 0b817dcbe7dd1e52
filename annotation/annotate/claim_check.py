"""Claim citation check (003 A.5): for each claim, is it fully supported by its citations
(yes / no), does each citation support it (yes / no) — or skip it when it is beyond your
expertise (please skip only when you must).

Payload: ``{"claims": {claim public id: {"skip": bool, "fully": "yes" | "no" | "",
"cites": {"0": "yes" | "no", ...}}}}``.
"""

from __future__ import annotations

from dataclasses import dataclass

from annotation.models import ClaimCheck, ReportClaim

from .base import Problems, TaskSpec, demote
from .page import TaskPage
from .widgets import radio_group

YES_NO = [("yes", "Yes", "y"), ("no", "No", "n")]


@dataclass
class ClaimRow:
    claim: ReportClaim
    report: object  # RenderedReport
    n: int

    @property
    def citations(self):
        return [self.report.citations.get(key) for key in self.claim.citation_keys]


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


def check(payload: dict, page: TaskPage, *, final: bool) -> Problems:
    answers = payload.get("claims")
    if not isinstance(answers, dict):
        return Problems(errors=["Claims: malformed answer."])
    rows = {row.claim.public_id: row for row in claims_of(page)}
    hard, rules = Problems(), Problems()
    for cid, answer in answers.items():
        row = rows.get(cid)
        if row is None or not isinstance(answer, dict):
            hard.errors.append("Claims: an answer names a claim that is not in this task.")
            continue
        if answer.get("fully") not in ("", None, "yes", "no"):
            hard.errors.append(f"Claim {row.n}: {answer['fully']!r} is not yes or no.")
        cites = answer.get("cites") or {}
        n_cites = len(row.claim.citation_keys)
        for j, value in cites.items():
            if not (str(j).isdigit() and int(j) < n_cites):
                hard.errors.append(f"Claim {row.n}: it has no citation {j}.")
            elif value not in ("yes", "no"):
                hard.errors.append(f"Claim {row.n}: {value!r} is not yes or no.")
    if hard.errors:
        return hard
    for cid, row in rows.items():
        answer = answers.get(cid) or {}
        if answer.get("skip"):
            continue
        if not answer.get("fully"):
            rules.errors.append(f"Claim {row.n}: is it fully supported? (or skip it)")
        missing = [
            k
            for j, k in enumerate(row.claim.citation_keys)
            if str(j) not in (answer.get("cites") or {})
        ]
        if missing:
            rules.errors.append(f"Claim {row.n}: does {', '.join(missing)} support it?")
    return demote(rules, final)


class ClaimCheckTask(TaskSpec):
    key = "claim_check"
    template = "annotation/annotate/claim_check.html"
    min_reports = 1

    def initial(self, page):
        return {"claims": {}}

    def parse(self, data, page):
        claims: dict[str, dict] = {}
        for name, value in data.items():
            parts = name.split(".")
            if parts[0] != "cc" or len(parts) not in (3, 4):
                continue
            answer = claims.setdefault(parts[1], {"skip": False, "fully": "", "cites": {}})
            if parts[2] == "skip":
                answer["skip"] = value == "on"
            elif parts[2] == "fully":
                answer["fully"] = str(value)
            elif parts[2] == "cite" and len(parts) == 4:
                answer["cites"][parts[3]] = str(value)
        return {"claims": claims}

    def check(self, payload, page, *, final):
        return check(payload, page, final=final)

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
