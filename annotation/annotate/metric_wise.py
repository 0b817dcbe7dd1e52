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
    MedalRanking,
    ParagraphRelevance,
    ReportRating,
)
from concord.query import is_digits

from ..quality import labels as ql
from ..rendering import letters, selectable_letters, source_html, source_of
from . import qc, scores
from .base import Needs, Problems, TaskSpec, Unstored, demote, reports_of, spoken_list
from .form import Choices, Field, Form, Unit, as_int, json_list
from .medal_ranking import (
    MEDAL,
    MEDALS,
    REASONING,
    SIZES,
    check_ranking,
    medal_rows,
    persist_ranking,
    ranking_rows,
    stored_ranking,
)
from .page import TaskPage

RELEVANCE = ("R", "U", "O")
RELEVANCE_NAMES = tuple((v, escape(ParagraphRelevance.Label(v).label)) for v in RELEVANCE)
COVERAGE = ("fully", "partially", "none")
#: The support labels a citation can receive, by its source's scale (:attr:`Citation.scale`;
#: guidelines, Part 1 step 2). A source that is only an address is judged on the page it
#: opens, as one with snippets is on them (``snippet_supports``: the source's evidence
#: supports the claim); only a source with nothing to check is fixed at ``none``.
SUPPORT_BY_KIND = {
    "snippet": ("snippet_supports", "none"),
    "link": ("snippet_supports", "none"),
    "title_only": ("title_likely_supports", "none"),
    "bare": ("none",),
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
TITLES = {key: title for key, title, _ in DIMENSIONS}
MAX_CLAIM_CHARS = 5000


RATING = Choices((1, 2, 3, 4, 5), "a rating from 1 to 5")
REPORT = Unit("report", reports_of, unknown="An answer names a report that is not in this task.")
PARAGRAPH = Unit(
    "paragraph",
    lambda page, ids: {
        str(p.number): p.number for p in page.by_public_id[ids["report"]].paragraphs
    },
    unknown="Relevance ({report}): there is no paragraph {id}.",
)
DIMENSION = Unit(
    "dimension",
    lambda page, ids: {key: key for key in DIMENSION_KEYS},
    unknown="Ratings ({report}): unknown rating {id!r}.",
)
#: Claim ids are made by the page (a new claim gets one); ``_check_claim`` checks claims.
CLAIM = Unit("claim", None)
RELEVANCE_FIELD = Field(
    "rel.<report>.<paragraph>",
    "relevance.<report>.<paragraph>",
    blank_ok=False,
    choices=Choices(RELEVANCE, "R, U or O"),
    invalid="Relevance ({report} ¶{paragraph}): {value!r} is not {choices}.",
)
RATING_FIELD = Field(
    "rate.<report>.<dimension>",
    "ratings.<report>.<dimension>",
    convert=as_int,
    blank_ok=False,
    choices=RATING,
    invalid="Ratings ({report}, {dimension}): {value!r} is not {choices}.",
)


def _claim_field(part: str, **kwargs) -> Field:
    return Field(f"claim.<report>.<claim>.{part}", f"claims.<report>.<claim>.{part}", **kwargs)


FORM = Form(
    title="Metric-wise",
    fields=(
        RELEVANCE_FIELD,
        RATING_FIELD,
        _claim_field("paragraph", convert=as_int, default=None),
        _claim_field("text", default=""),
        _claim_field("citations", convert=json_list, default=[]),
        _claim_field("support.<cite>"),
        _claim_field("coverage", default=""),
        _claim_field("notes", default=""),
        MEDAL,
        REASONING,
    ),
    units=(REPORT, PARAGRAPH, DIMENSION, CLAIM),
    finish=lambda payload: {**payload, "claims": _claim_lists(payload["claims"])},
)


def _claim_lists(claims: dict[str, dict[str, dict]]) -> dict[str, list[dict]]:
    """Claims by report, in the order the page posted them; each claim's support answers
    as a list aligned with its citations (answers for citations it does not have kept after
    them, for ``check`` to refuse)."""
    lists: dict[str, list[dict]] = {}
    for pid, by_id in claims.items():
        lists[pid] = []
        for cid, claim in by_id.items():
            citations = claim["citations"]
            n = len(citations) if isinstance(citations, list) else 0
            support = claim.pop("support")
            extra = [k for k in support if not (is_digits(k) and int(k) < n)]
            claim["support"] = [support.get(str(j), "") for j in range(n)] + [
                support[k] for k in extra
            ]
            lists[pid].append({"id": cid, **claim})
    return lists


def check(payload: dict, page: TaskPage, *, final: bool) -> Problems:
    resolve = FORM.resolver(page)
    hard = FORM.problems(payload, resolve)
    if hard:
        return Problems(errors=hard)
    hard, rules = Problems(), Problems()
    # claim settings saved before the rule (or around it): the submit is refused, never a
    # server error; a draft still saves (rules are warnings there)
    rules.errors += [f"Study {page.study.name!r}: {p} Ask a researcher to correct the "
                     f"study's settings." for p in page.study.config_problems(page.study.config)]  # fmt: skip
    missing: dict[str, list[str]] = {}
    for where in FORM.missing(payload, RATING_FIELD, resolve):
        missing.setdefault(where["ids"]["report"], []).append(TITLES[where["ids"]["dimension"]])
    for pid, report in page.by_public_id.items():
        if missing.get(pid):
            rules.errors.append(f"Ratings ({report.label}): rate {', '.join(missing[pid])}.")
        _check_claims(payload["claims"].get(pid) or [], report, page, hard, rules)
    if hard.errors:
        return hard
    problems = demote(rules, final)
    problems.extend(check_ranking(payload, page, final=final))
    return problems


def _check_claims(claims: list, report, page: TaskPage, hard: Problems, rules: Problems) -> None:
    """The claims of one report: each checked against its paragraph's citations, and
    their number within the study's ``claims_min``–``claims_max``."""
    label = report.label
    paragraphs = {str(p.number): p for p in report.paragraphs}
    seen: dict[tuple[str, str], int] = {}
    for n, claim in enumerate(claims, start=1):
        _check_claim(claim, f"Claim {n} ({label})", paragraphs, report, hard, rules)
        if isinstance(claim, dict):
            # the same claim twice (Add claim pressed twice) is one claim: it would count
            # twice towards claims_min and in the citation scores
            same = (str(claim.get("paragraph")), letters(str(claim.get("text") or "")))
            if same[1] and same in seen:
                rules.errors.append(f"Claim {n} ({label}) repeats claim {seen[same]}: remove one.")
            seen.setdefault(same, n)
    low, high = int(page.study.setting("claims_min")), int(page.study.setting("claims_max"))
    if not low <= len(claims) <= high:
        rules.errors.append(
            f"Claims ({label}): select {low}–{high} claims; you have {len(claims)}."
        )


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
    twice = sorted({k for k in citations if citations.count(k) > 1})
    if twice:  # one answer per citation: the page lists each once (a forged post did not)
        hard.errors.append(f"{name}: citation {', '.join(twice)} is listed more than once.")
        return
    support = claim.get("support") or []
    if len(support) > len(citations):
        hard.errors.append(f"{name}: more support answers than citations.")
        return
    for key, value in zip(citations, support, strict=False):
        allowed = SUPPORT_BY_KIND[report.citations[key].scale]
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
    elif letters(text) not in selectable_letters(para.html):
        # the claim is what the annotator selected in the paragraph (claims.js): a text
        # that is not there was typed into a forged post, and would be stored as theirs.
        # A rule (the submit is refused), not a hard error: a draft is never lost to it
        rules.errors.append(
            f"{name}: the claim is not text of ¶{para.number}; select it in the report."
        )
    if not text.strip():
        rules.errors.append(f"{name}: the claim text is empty.")
    if not citations:
        rules.errors.append(f"{name}: a claim ends in at least one citation.")


def possible_claims(text: str, anchors, keys) -> int:
    """How many distinct claims one paragraph can give that the submit rule accepts
    (:func:`_check_claim`, :func:`_check_claims`), as the page makes them (``claims.js``):
    a claim is the text ending at a run of citation markers (markers with no letter or
    digit between them, ``[1] [1]`` or ``[1][2]``: one run, one claim citing each key
    once: a citation listed twice is refused), from the previous run or the paragraph's
    start; a run with no words before it ends no claim (the claim text is empty), and two
    runs after the same words are one claim (the same claim twice is refused).

    ``anchors``: the paragraph's ``[start, end, key]``; ``keys``: the report's source keys
    (an anchor of another key is no marker on the page). The planner counts a report's
    claims with it (``studio.studyadmin.planning``), so a task is never planned on a report
    that cannot hold the study's ``claims_min`` claims: counting markers planned ResearcherBench
    question 27's report whose ``[1] [1]`` is one claim, and its submit was refused."""
    claims, cursor = set(), 0
    for start, end, key in sorted(anchors or (), key=lambda a: a[0]):
        if key not in keys or start < cursor or end > len(text):
            continue  # not a marker on the page (``rendering.paragraph_html``)
        words = letters(text[cursor:start])
        if words:  # words since the previous marker: a run starts here and ends a claim
            claims.add(words)
        cursor = end
    return len(claims)


def stored_answers(page: TaskPage) -> dict | None:
    """The inverse of :func:`persist`: the annotator's stored relevance labels, claims,
    ratings and ranking of the assignment's reports (each part the rows stored; the demo
    and an import may hold only some), or None when none is stored."""
    a = page.assignment
    ids = {r.report.pk: r.public_id for r in page.reports}
    mine = {"study": a.study, "annotator": page.annotator, "setting": a.setting}
    relevance: dict = {}
    for report, number, label in ParagraphRelevance.objects.filter(
        **mine, paragraph__report_id__in=list(ids)
    ).values_list("paragraph__report_id", "paragraph__number", "label"):
        relevance.setdefault(ids[report], {})[str(number)] = label
    ratings: dict = {}
    for report, dimension, value in ReportRating.objects.filter(
        **mine, report_id__in=list(ids)
    ).values_list("report_id", "dimension", "value"):
        ratings.setdefault(ids[report], {})[dimension] = value
    claims: dict = {}
    for c in (
        ClaimAssessment.objects.filter(**mine, report_id__in=list(ids))
        .select_related("paragraph")
        .order_by("report_id", "position")
    ):
        cited = c.citations or []
        claims.setdefault(ids[c.report_id], []).append({
            "id": f"c{c.position}", "paragraph": c.paragraph.number if c.paragraph else None,
            "text": c.text, "citations": [k["key"] for k in cited],
            "support": [k["support"] for k in cited], "coverage": c.coverage, "notes": c.notes,
        })  # fmt: skip
    ranking = stored_ranking(page) or {}
    if not (relevance or ratings or claims or ranking):
        return None
    return {
        "relevance": relevance,
        "claims": {r.public_id: claims.get(r.public_id, []) for r in page.reports},
        "ratings": ratings,
        "medals": ranking.get("medals", {}),
        "reasoning": ranking.get("reasoning", ""),
    }


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
    relevance, claim_rows, rating_rows, scores_rows = [], [], [], []
    for report in page.reports:
        pid = report.public_id
        labels = payload["relevance"].get(pid) or {}
        relevance.extend(
            ParagraphRelevance(paragraph_id=p.pk, label=labels.get(str(p.number), "R"), **common)
            for p in report.paragraphs
        )
        claims = payload["claims"][pid]
        pk_of = {p.number: p.pk for p in report.paragraphs}
        claim_rows.extend(
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
        rating_rows.extend(
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
        scores_rows.extend(
            HumanMetricScore(report=report.report, metric=metric, value=value, **common)
            for metric, value in values.items()
        )
    # Each table written once for all the task's reports (a delete and an insert), not once
    # per report: a metric-wise submit's queries no longer grow with its reports (issue 29).
    ClaimAssessment.objects.filter(assignment=a).delete()
    ParagraphRelevance.objects.filter(
        annotator=page.annotator,
        setting=a.setting,
        paragraph_id__in=[p.pk for r in page.reports for p in r.paragraphs],
    ).delete()
    ParagraphRelevance.objects.bulk_create(relevance)
    ClaimAssessment.objects.bulk_create(claim_rows)
    ReportRating.objects.filter(
        annotator=page.annotator,
        setting=a.setting,
        report_id__in=[r.report.pk for r in page.reports],
    ).delete()
    ReportRating.objects.bulk_create(rating_rows)
    # every report's scores in one INSERT … ON CONFLICT: the same rows as an
    # update_or_create per score (a read, a write, two savepoints each), which was most of
    # a metric-wise submit's CPU (issue 29); ``created_at`` stays the first one's
    HumanMetricScore.objects.bulk_create(
        scores_rows,
        update_conflicts=True,
        unique_fields=["study", "annotator", "report", "setting", "metric"],
        update_fields=["value", "question", "assignment", "updated_at"],
    )
    persist_ranking(payload, page)


def _mine(model):
    return lambda study, annotator=None: model.objects.filter(study=study, **qc.who(annotator))


#: What metric-wise stores: ratings, paragraph relevance, and the rankings its assignments
#: wrote (medal ranking's own are medal ranking's).
STORED = (
    _mine(ReportRating),
    _mine(ParagraphRelevance),
    lambda study, annotator=None: _mine(MedalRanking)(study, annotator).filter(
        qc.of_task("metric_wise")
    ),
)


def qc_rows(study, annotator=None):
    """Three kinds of unit: each report's 1–5 rating of each dimension, each paragraph's
    relevance R/U/O, and the medal ranking. The selected claims are the annotator's own
    choice (two annotators rarely pick the same), so they are not labels."""
    ratings, relevance, rankings = (fn(study, annotator) for fn in STORED)
    for r in ratings.select_related("report__system", "assignment"):
        yield r, ql.on_report(ql.rating_unit(r.dimension), r.report.system.name), str(r.value)
    for p in relevance.select_related("paragraph__report__system", "assignment"):
        unit = ql.on_report(f"paragraph {p.paragraph.number}", p.paragraph.report.system.name)
        yield p, unit, p.label
    for row, _, label in ranking_rows(rankings):
        yield row, "medals", label


RATING_VALUES = ql.Values(tuple(str(v) for v in RATING.values), ordinal=True)


def qc_units(study, question):
    units = qc.per_report(question, {ql.rating_unit(d): RATING_VALUES for d in DIMENSION_KEYS})
    units.update(qc.paragraphs(question))
    units["medals"] = ql.Values(tuple(qc.systems(question)), ranked=True, sizes=SIZES)
    return units


QC = ql.LabelSpec(
    unit="rating <dimension>@System (1–5), paragraph <n>@System (R/U/O), or medals (the ranking)",
    label="the rating, the relevance letter, or SysA=gold;SysB=silver;…",
    rows=qc_rows,
    held=qc.held(*STORED),
    units=qc_units,
    notation="unit “rating clarity@SysA”, answer 4 · unit “medals”, answer SysA=gold;SysB=silver",
)


class MetricWiseTask(TaskSpec):
    ranks = True
    needs = Needs(
        reports=1, compares=max(SIZES), cited_claims=True
    )  # its ranking ranks 2-3 reports
    key = "metric_wise"
    qc = QC
    form = FORM

    def check(self, payload, page, *, final):
        return check(payload, page, final=final)

    def persist(self, payload, page):
        persist(payload, page)

    def stored_answers(self, page):
        return stored_answers(page)

    def unstored(self, stored, current, page):
        return unstored(stored, current, page)

    def context(self, payload, page):
        relevance = payload.get("relevance") or {}
        ratings = payload.get("ratings") or {}
        claims = payload.get("claims") or {}
        panels = []
        disabled = page.assignment.status == "submitted"
        # R preselected is the fresh page's default (the guidelines: "R — Relevant
        # (default)"; a paragraph left so is relevant). Work submitted once (shown, or
        # reopened) shows only the labels it holds: work stored without them (the demo,
        # an import of scores) showed every paragraph R, labels nobody gave.
        default = None if _was_submitted(page.assignment) else "R"
        for report in page.reports:
            labels = relevance.get(report.public_id) or {}
            for p in report.paragraphs:
                p.relevance = labels.get(str(p.number), default)
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
            "citation_kinds": Citation.SCALES,
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


def _was_submitted(assignment) -> bool:
    """Submitted, or reopened since (the page's ``with_review_state`` says so)."""
    return (
        assignment.status == "submitted" or getattr(assignment, "revision_reason", None) is not None
    )


def _missing(payload: dict, page: TaskPage) -> dict[str, list[str]]:
    """The reports (labels) each part of ``payload`` has no answer for."""
    relevance = payload.get("relevance") or {}
    ratings = payload.get("ratings") or {}
    claims = payload.get("claims") or {}
    needs_claims = int(page.study.setting("claims_min")) > 0
    missing: dict[str, list[str]] = {"relevance": [], "ratings": [], "claims": []}
    for r in page.reports:
        labels = relevance.get(r.public_id) or {}
        if any(str(p.number) not in labels for p in r.paragraphs):
            missing["relevance"].append(r.label)
        if set(DIMENSION_KEYS) - set(ratings.get(r.public_id) or {}):
            missing["ratings"].append(r.label)
        if needs_claims and not claims.get(r.public_id):
            missing["claims"].append(r.label)
    missing["ranking"] = [] if payload.get("medals") else ["the reports"]
    return missing


#: How the notice names each part.
PART_NAMES = {
    "relevance": "per-paragraph relevance labels",
    "ratings": "ratings",
    "claims": "claims",
    "ranking": "medal ranking",
}


def unstored(stored: dict, current: dict, page: TaskPage) -> Unstored | None:
    """The parts ``stored`` holds no answer for (:meth:`TaskSpec.unstored`). A part counts
    as not stored only when none of it is (a page-submitted answer holds every part: its
    relevance radios are all posted, its ratings and ranking required, its claims too when
    the study asks for some). What ``current`` still needs is named report by report."""
    gone = {k: v for k, v in _missing(stored, page).items() if v}
    if not gone:
        return None
    need = _missing(current, page)
    low, high = page.study.setting("claims_min"), page.study.setting("claims_max")
    to_give = []
    if need["relevance"]:
        to_give.append(f"mark the relevance of each paragraph of {spoken_list(need['relevance'])} "
                       "(a paragraph left unmarked is stored as R, relevant)")  # fmt: skip
    if need["ratings"]:
        to_give.append(f"rate {spoken_list(need['ratings'])} on all {len(DIMENSION_KEYS)} "
                       "dimensions")  # fmt: skip
    if need["claims"]:
        to_give.append(f"select {low}–{high} claims of {spoken_list(need['claims'])} and judge "
                       "their citations")  # fmt: skip
    if need["ranking"]:
        to_give.append("rank the reports with medals")
    # scores stored and none of the labels they are computed from (the ranking is the
    # annotator's one ranking of the question, which another task may have stored)
    scores_only = {"relevance", "ratings", "claims"} <= set(gone) and (
        HumanMetricScore.objects.filter(assignment=page.assignment).exists()
    )
    return Unstored(
        parts=tuple(PART_NAMES[k] for k in PART_NAMES if k in gone),
        to_give=tuple(to_give),
        scores_only=scores_only,
    )


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
                "kind": citation.scale if citation else "bare",
                "value": support[j] if j < len(support) else "",
                # the source as every task draws it, with its link (a link-only source
                # opened from its card, not only from the tip in the report text)
                "source_html": source_html(source_of(citation, key)),
            }
        )
    return {**claim, "keys_json": json.dumps(keys), "cites": cites}


TASK = MetricWiseTask()
