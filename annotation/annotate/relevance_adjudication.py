"""Relevance adjudication (003 A.6): the annotator reviews each paragraph where their
metric-wise relevance label disagrees with a judge's verdict, sees the judge's rationale,
and keeps their label, switches to the judge's, or calls the difference subjective (with
an optional reason). The reports are shown in the annotator's order with the disputed
paragraphs marked; the judge is never named.

Payload: ``{"decisions": {disagreement public id: {"decision": "keep" | "switch" |
"subjective" | "", "reason": str}}}``.
"""

from __future__ import annotations

from django.utils.html import escape
from django.utils.safestring import mark_safe

from annotation import adjudication as rules
from annotation.models import ParagraphRelevance, RelevanceAdjudication, RelevanceDisagreement
from annotation.rendering import text_to_html

from ..quality import labels as ql
from . import qc
from .base import Needs, TaskSpec
from .form import Choices, Field, Form, Unit
from .page import TaskPage
from .widgets import radio_group

MAX_REASON_CHARS = 5000
LABEL_NAMES = dict(ParagraphRelevance.Label.choices)


def disagreements_of(page: TaskPage) -> list[RelevanceDisagreement]:
    """The assignment's disagreements with their paragraphs. One query (cached)."""
    cached = getattr(page, "_disagreements", None)
    if cached is None:
        cached = page._disagreements = list(
            RelevanceDisagreement.objects.filter(assignment=page.assignment)
            .select_related("paragraph")
            .order_by("position", "pk")
        )
    return cached


def _options(d: RelevanceDisagreement) -> list[tuple[str, str, str]]:
    switched = rules.judge_label(d.judge_relevant)
    return [
        (rules.KEEP, f"Keep my label ({d.annotator_label})", "k"),
        (rules.SWITCH, f"Switch to the judge's ({switched})", "s"),
        (rules.SUBJECTIVE, "Subjective: both are viable", "u"),
    ]


DISAGREEMENT = Unit(
    "disagreement",
    lambda page, ids: {d.public_id: n for n, d in enumerate(disagreements_of(page), start=1)},
    unknown="Adjudication: an answer names a paragraph that is not in this task.",
)
FORM = Form(
    title="Adjudication",
    fields=(
        Field(
            "adj.<disagreement>.decision",
            "decisions.<disagreement>.decision",
            default="",
            choices=Choices(rules.DECISIONS, "keep, switch or subjective"),
            invalid="Disagreement {disagreement}: {value!r} is not {choices}.",
            required="Disagreement {disagreement}: keep, switch or subjective?",
        ),
        Field(
            "adj.<disagreement>.reason",
            "decisions.<disagreement>.reason",
            default="",
            max_chars=MAX_REASON_CHARS,
            too_long="Disagreement {disagreement}: the reason is longer than {limit} characters.",
        ),
    ),
    units=(DISAGREEMENT,),
)


def stored(study, annotator=None):
    return RelevanceAdjudication.objects.filter(study=study, **qc.who(annotator))


def qc_rows(study, annotator=None):
    """The paragraph's relevance after the annotator's decision (``final_label``): the unit
    is the paragraph, so two annotators who both disputed the judge on it are compared."""
    rows = stored(study, annotator).select_related(
        "disagreement__paragraph__report__system", "assignment"
    )
    for r in rows:
        p = r.disagreement.paragraph
        yield r, ql.on_report(f"paragraph {p.number}", p.report.system.name), r.final_label


QC = ql.LabelSpec(
    unit="one paragraph of a report: paragraph <n>@System",
    label="its relevance after the decision, R / U / O (keep: the annotator's, switch: the "
    "judge's)",
    rows=qc_rows,
    held=qc.held(stored),
    units=lambda study, question: qc.paragraphs(question),
    notation="unit “paragraph 3@SysA”, answer U",
)


class RelevanceAdjudicationTask(TaskSpec):
    needs = Needs(reports=1)
    qc = QC
    key = "relevance_adjudication"
    form = FORM

    def persist(self, payload, page):
        a = page.assignment
        for d in disagreements_of(page):
            answer = payload["decisions"][d.public_id]
            RelevanceAdjudication.objects.update_or_create(
                disagreement=d,
                defaults={
                    "study": a.study,
                    "annotator": page.annotator,
                    "question": a.question,
                    "setting": a.setting,
                    "assignment": a,
                    "decision": answer["decision"],
                    "reason": str(answer.get("reason") or "").strip(),
                    "final_label": rules.final_label(
                        answer["decision"], d.annotator_label, d.judge_relevant
                    ),
                },
            )

    def stored_answers(self, page):
        disagreements = disagreements_of(page)
        stored = {
            r.disagreement_id: r
            for r in RelevanceAdjudication.objects.filter(disagreement__in=disagreements)
        }
        decisions = {
            d.public_id: {"decision": r.decision, "reason": r.reason}
            for d in disagreements
            if (r := stored.get(d.pk)) is not None
        }
        return {"decisions": decisions} if decisions else None

    def context(self, payload, page):
        answers = payload.get("decisions") or {}
        where = {p.pk: (r, p) for r in page.reports for p in r.paragraphs}
        cards, flagged = [], {}
        for n, d in enumerate(disagreements_of(page), start=1):
            report, paragraph = where.get(d.paragraph_id, (None, None))
            anchor = f"p-{report.letter}-{paragraph.number}" if report else ""
            flagged[d.paragraph_id] = (n, d.public_id)
            answer = answers.get(d.public_id) or {}
            cards.append(
                {
                    "n": n,
                    "d": d,
                    "where": f"{report.label}, paragraph {paragraph.number}"
                    if report
                    else f"Paragraph {d.paragraph.number}",
                    "anchor": anchor,
                    "text_html": text_to_html(d.paragraph.text),
                    "mine": f"{d.annotator_label} — {LABEL_NAMES.get(d.annotator_label, '')}",
                    "judge": "Relevant" if d.judge_relevant else "Irrelevant (flagged)",
                    "decision_html": radio_group(
                        f"adj.{d.public_id}.decision",
                        _options(d),
                        answer.get("decision"),
                        f"Disagreement {n}: your decision",
                    ),
                    "reason": answer.get("reason", ""),
                }
            )
        for report in page.reports:
            report.controls = lambda report, p: _flag(flagged.get(p.pk))
        return {"cards": cards}


def _flag(found) -> str:
    """A marker on a disputed paragraph, linking to its card in the panel."""
    if not found:
        return ""
    n, pid = found
    return mark_safe(  # noqa: S308 - n is an int, pid escaped
        f'<a class="adj-flag" href="#adj-{escape(pid)}">Disagreement {int(n)}</a>'
    )


TASK = RelevanceAdjudicationTask()
