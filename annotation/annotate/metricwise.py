"""Metric-wise evaluation of 2–3 reports (ScholarQA-CS2 guidelines Parts 1–3).

Per report: paragraph relevance R/U/O marked while reading, citation validity on the claims
the annotator selects (3–5 by default), answer recall and the generalized 1–5 ratings. Then
the medal ranking over the reports. On submit the detail rows are written, and the METHODS
§3 scores (``scores.report_scores``) become HumanMetricScore rows.

Payload::

    {"relevance": {pid: {"3": "U", ...}},
     "claims": {pid: [{"id", "paragraph", "text", "citations": [key, ...],
                       "support": [label per citation], "coverage", "notes"}, ...]},
     "ratings": {pid: {dimension: 1..5}},
     "medals": {pid: medal}, "reasoning": str}
"""

from __future__ import annotations

import json
from functools import partial

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from annotation.models import (
    Citation,
    ClaimAssessment,
    HumanMetricScore,
    ParagraphRelevance,
    ReportRating,
)

from . import scores
from .base import Problems, TaskSpec, demote
from .medals import MEDALS, check_ranking, medal_rows, parse_medals, persist_ranking
from .page import TaskPage

RELEVANCE = ("R", "U", "O")
RELEVANCE_NAMES = tuple((v, escape(ParagraphRelevance.Label(v).label)) for v in RELEVANCE)
COVERAGE = ("fully", "partially", "none")
#: The support labels a citation of each kind can receive (guidelines, Part 1 step 2).
SUPPORT_BY_KIND = {
    Citation.Kind.SNIPPET: ("snippet_supports", "none"),
    Citation.Kind.TITLE_ONLY: ("title_likely_supports", "none"),
    Citation.Kind.BARE: ("none",),
}
DIMENSIONS = (
    ("answer_recall", "Answer recall", "Did the report cover all aspects of the answer you expected it to cover?"),
    ("citation_expectations", "Citations", "Did the report cite the works you would have expected?"),
    ("answer_quality", "Answer quality", "Does the report actually answer the question asked?"),
    ("content", "Content", "Does it cover what you expected a complete answer to cover?"),
    ("informativeness", "Informativeness", "Level of detail or depth on what matters most."),
    ("background", "Background", "Is the background useful to contextualize the answer?"),
    ("organization", "Organization", "Are sections meaningful and titles useful; are key parts highlighted?"),
    ("flow", "Flow", "Does each section or paragraph flow into the next?"),
)  # fmt: skip
DIMENSION_KEYS = tuple(d[0] for d in DIMENSIONS)
MAX_CLAIM_CHARS = 5000


def parse(data) -> dict:
    payload = {
        "relevance": {},
        "claims": {},
        "ratings": {},
        "medals": parse_medals(data),
        "reasoning": str(data.get("reasoning", "")),
    }
    claims: dict[str, dict[str, dict]] = {}
    for name, value in data.items():
        parts = name.split(".")
        value = str(value)
        if parts[0] == "rel" and len(parts) == 3:
            payload["relevance"].setdefault(parts[1], {})[parts[2]] = value
        elif parts[0] == "rate" and len(parts) == 3:
            payload["ratings"].setdefault(parts[1], {})[parts[2]] = _int(value)
        elif parts[0] == "claim" and len(parts) in (4, 5):
            pid, cid, field = parts[1], parts[2], parts[3]
            claim = claims.setdefault(pid, {}).setdefault(
                cid,
                {
                    "id": cid,
                    "paragraph": None,
                    "text": "",
                    "citations": [],
                    "support": {},
                    "coverage": "",
                    "notes": "",
                },
            )
            if field == "paragraph":
                claim["paragraph"] = _int(value)
            elif field == "citations":
                claim["citations"] = _json_list(value)
            elif field == "support" and len(parts) == 5:
                claim["support"][parts[4]] = value
            elif field in ("text", "coverage", "notes"):
                claim[field] = value
    for pid, by_id in claims.items():
        payload["claims"][pid] = []
        for claim in by_id.values():
            n = len(claim["citations"]) if isinstance(claim["citations"], list) else 0
            support = claim.pop("support")
            extra = [k for k in support if not (k.isdigit() and int(k) < n)]
            claim["support"] = [support.get(str(j), "") for j in range(n)] + [
                support[k] for k in extra
            ]
            payload["claims"][pid].append(claim)
    return payload


def _int(value: str):
    try:
        return int(value)
    except (TypeError, ValueError):
        return value


def _json_list(value: str):
    try:
        parsed = json.loads(value)
    except (ValueError, RecursionError):  # malformed, or nested past the stack: check() names it
        return value
    return parsed


def check(payload: dict, page: TaskPage, *, final: bool) -> Problems:
    hard, rules = Problems(), Problems()
    reports = page.by_public_id
    for key in ("relevance", "claims", "ratings"):
        if not isinstance(payload.get(key), dict):
            return Problems(errors=[f"Malformed answer ({key})."])
    for section in ("relevance", "claims", "ratings"):
        for pid in payload[section]:
            if pid not in reports:
                hard.errors.append("An answer names a report that is not in this task.")
    if hard.errors:
        return hard
    claims_min, claims_max = (
        int(page.study.setting("claims_min")),
        int(page.study.setting("claims_max")),
    )
    for pid, report in reports.items():
        label = report.label
        paragraphs = {str(p.number): p for p in report.paragraphs}
        for number, value in (payload["relevance"].get(pid) or {}).items():
            if number not in paragraphs:
                hard.errors.append(f"Relevance ({label}): there is no paragraph {number}.")
            elif value not in RELEVANCE:
                hard.errors.append(f"Relevance ({label} ¶{number}): {value!r} is not R, U or O.")
        ratings = payload["ratings"].get(pid) or {}
        for dim, value in ratings.items():
            if dim not in DIMENSION_KEYS:
                hard.errors.append(f"Ratings ({label}): unknown rating {dim!r}.")
            elif value not in (1, 2, 3, 4, 5):
                hard.errors.append(
                    f"Ratings ({label}, {dim}): {value!r} is not a rating from 1 to 5."
                )
        missing = [title for key, title, _ in DIMENSIONS if key not in ratings]
        if missing:
            rules.errors.append(f"Ratings ({label}): rate {', '.join(missing)}.")
        claims = payload["claims"].get(pid) or []
        for n, claim in enumerate(claims, start=1):
            _check_claim(claim, f"Claim {n} ({label})", paragraphs, report, hard, rules)
        if not claims_min <= len(claims) <= claims_max:
            rules.errors.append(
                f"Claims ({label}): select {claims_min}–{claims_max} claims; you have {len(claims)}."
            )
    if hard.errors:
        return hard
    problems = demote(rules, final)
    problems.extend(check_ranking(payload, page, final=final))
    return problems


def _check_claim(claim, name, paragraphs, report, hard: Problems, rules: Problems) -> None:
    if not isinstance(claim, dict):
        hard.errors.append(f"{name}: malformed.")
        return
    para = paragraphs.get(str(claim.get("paragraph")))
    citations = claim.get("citations")
    if para is None:
        hard.errors.append(f"{name}: there is no paragraph {claim.get('paragraph')!r}.")
        return
    if not isinstance(citations, list) or not all(isinstance(k, str) for k in citations):
        hard.errors.append(f"{name}: malformed citation list.")
        return
    unknown = [k for k in citations if k not in para.citation_keys]
    if unknown:
        hard.errors.append(f"{name}: {', '.join(unknown)} is not a citation of ¶{para.number}.")
        return
    support = claim.get("support") or []
    if len(support) > len(citations):
        hard.errors.append(f"{name}: more support answers than citations.")
        return
    for key, value in zip(citations, support, strict=False):
        allowed = SUPPORT_BY_KIND[report.citations[key].kind]
        if value and value not in allowed:
            hard.errors.append(
                f"{name}, citation {key}: {value!r} is not allowed for this citation."
            )
        elif not value:
            rules.errors.append(f"{name}: say whether citation {key} supports the claim.")
    for key in citations[len(support) :]:
        rules.errors.append(f"{name}: say whether citation {key} supports the claim.")
    coverage = claim.get("coverage") or ""
    if coverage and coverage not in COVERAGE:
        hard.errors.append(f"{name}: {coverage!r} is not fully, partially or none.")
    elif not coverage:
        rules.errors.append(f"{name}: do the citations together cover the claim?")
    text = str(claim.get("text") or "")
    if len(text) > MAX_CLAIM_CHARS:
        hard.errors.append(f"{name}: the claim is longer than {MAX_CLAIM_CHARS} characters.")
    if not text.strip():
        rules.errors.append(f"{name}: the claim text is empty.")
    if not citations:
        rules.errors.append(f"{name}: a claim ends in at least one citation.")


def persist(payload: dict, page: TaskPage) -> None:
    a, study = page.assignment, page.study
    common = {
        "study": study,
        "annotator": page.annotator,
        "question": a.question,
        "setting": a.setting,
        "assignment": a,
    }
    relevance_credit = study.setting("relevance_credit")
    support_credit = study.setting("support_credit")
    coverage_credit = study.setting("coverage_credit")
    ClaimAssessment.objects.filter(assignment=a).delete()
    for report in page.reports:
        pid = report.public_id
        labels = payload["relevance"].get(pid) or {}
        ParagraphRelevance.objects.filter(
            annotator=page.annotator,
            setting=a.setting,
            paragraph_id__in=[p.pk for p in report.paragraphs],
        ).delete()
        ParagraphRelevance.objects.bulk_create(
            ParagraphRelevance(paragraph_id=p.pk, label=labels.get(str(p.number), "R"), **common)
            for p in report.paragraphs
        )
        claims = payload["claims"][pid]
        pk_of = {p.number: p.pk for p in report.paragraphs}
        ClaimAssessment.objects.bulk_create(
            ClaimAssessment(
                report=report.report,
                paragraph_id=pk_of[int(c["paragraph"])],
                position=i,
                text=c["text"].strip(),
                citation_count=len(c["citations"]),
                citations=[
                    {"key": k, "support": s}
                    for k, s in zip(c["citations"], c["support"], strict=True)
                ],
                supporting_credit=scores.supporting_credit(c["support"], support_credit),
                coverage=c["coverage"],
                notes=c["notes"].strip(),
                **common,
            )
            for i, c in enumerate(claims, start=1)
        )
        ratings = payload["ratings"][pid]
        ReportRating.objects.filter(
            annotator=page.annotator, setting=a.setting, report=report.report
        ).delete()
        ReportRating.objects.bulk_create(
            ReportRating(report=report.report, dimension=d, value=ratings[d], **common)
            for d in DIMENSION_KEYS
        )
        values = scores.report_scores(
            [labels.get(str(p.number), "R") for p in report.paragraphs],
            ratings["answer_recall"],
            [scores.Claim(tuple(c["support"]), c["coverage"]) for c in claims],
            relevance_credit=relevance_credit,
            support_credit=support_credit,
            coverage_credit=coverage_credit,
        )
        for metric, value in values.items():
            HumanMetricScore.objects.update_or_create(
                study=study,
                annotator=page.annotator,
                report=report.report,
                setting=a.setting,
                metric=metric,
                defaults={"value": value, "question": a.question, "assignment": a},
            )
    persist_ranking(payload, page)


class MetricWiseTask(TaskSpec):
    key = "metric_wise"
    template = "annotation/annotate/metric_wise.html"
    min_reports = 2
    max_reports = 3

    def initial(self, page):
        return {"relevance": {}, "claims": {}, "ratings": {}, "medals": {}, "reasoning": ""}

    def parse(self, data, page):
        return parse(data)

    def check(self, payload, page, *, final):
        return check(payload, page, final=final)

    def persist(self, payload, page):
        persist(payload, page)

    def context(self, payload, page):
        relevance = payload.get("relevance") or {}
        ratings = payload.get("ratings") or {}
        claims = payload.get("claims") or {}
        panels = []
        disabled = page.assignment.status == "submitted"
        for report in page.reports:
            labels = relevance.get(report.public_id) or {}
            for p in report.paragraphs:
                p.relevance = labels.get(str(p.number), "R")
            report.controls = partial(relevance_controls, disabled=disabled)
            given = ratings.get(report.public_id) or {}
            panels.append(
                {
                    "report": report,
                    "ratings": [
                        {"key": k, "title": t, "help": h, "value": given.get(k)}
                        for k, t, h in DIMENSIONS
                    ],
                    "claims": [_claim_view(c, report) for c in claims.get(report.public_id) or []],
                    "counts": {
                        x: sum(1 for p in report.paragraphs if p.relevance == x) for x in RELEVANCE
                    },
                }
            )
        return {
            "panels": panels,
            "medal_rows": medal_rows(payload, page),
            "medal_values": MEDALS,
            "likert": (1, 2, 3, 4, 5),
            "relevance_choices": ParagraphRelevance.Label.choices,
            "coverage_choices": ClaimAssessment.Coverage.choices,
            "citation_kinds": Citation.Kind.values,
            "claim_template": {
                "id": "__CID__",
                "paragraph": "",
                "text": "",
                "keys_json": "[]",
                "cites": [],
            },
            "cite_template": {"j": "__J__", "key": "", "value": ""},
            "claims_min": page.study.setting("claims_min"),
            "claims_max": page.study.setting("claims_max"),
        }


def relevance_controls(report, paragraph, *, disabled: bool = False) -> SafeString:
    """R / U / O radios of one paragraph. Built with plain string formatting from escaped
    values: there are hundreds per page and format_html would dominate the page's time."""
    pid, label, n = escape(report.public_id), escape(report.label), int(paragraph.number)
    off = " disabled" if disabled else ""
    radios = "".join(
        f'<label class="rel rel--{v}" title="{name}"><input type="radio" name="rel.{pid}.{n}" '
        f'value="{v}"{" checked" if paragraph.relevance == v else ""}{off}>'
        f'<span aria-hidden="true">{v}</span><span class="visually-hidden">{name}</span></label>'
        for v, name in RELEVANCE_NAMES
    )
    return mark_safe(  # noqa: S308 - values escaped above, the rest is constant
        f'<fieldset class="rel-controls"><legend class="visually-hidden">Relevance of {label} '
        f"paragraph {n}</legend>{radios}</fieldset>"
    )


def _claim_view(claim: dict, report) -> dict:
    keys = claim.get("citations") if isinstance(claim.get("citations"), list) else []
    support = claim.get("support") or []
    cites = []
    for j, key in enumerate(keys):
        citation = report.citations.get(key)
        cites.append(
            {
                "j": j,
                "key": key,
                "kind": citation.kind if citation else "bare",
                "value": support[j] if j < len(support) else "",
            }
        )
    return {**claim, "keys_json": json.dumps(keys), "cites": cites}
