"""Question authoring (003 Setting 3): the annotator writes new questions on topics they know
intimately, ideally from their own research — each with its field, an optional subdomain
and optional notes on what a good answer must contain.

The assignment has no question (``Assignment.question`` is NULL for this task only); its
page offers ``authoring_max`` numbered slots (a study setting, 5 by default as in 003), of
which at least ``authoring_min`` must hold a question to submit. Drafts, versions, conflicts
and idempotent submit work as for every task. On submit each written slot becomes a
Question of the study: origin expert-authored, ``authored_by`` the annotator, review
pending; its external id is ``authored-<assignment>-<slot>``.

Payload: ``{"questions": {"1": {"text", "field", "subdomain", "notes"}, ...}}``.

It has no ``stored_answers`` reader: only this page's submit writes a slot's question and
marks the assignment submitted, so its draft always holds the answers (``registry``).
"""

from __future__ import annotations

from annotation.models import Question

from ..quality import labels as ql
from .base import Problems, TaskSpec
from .form import Field, Form, Unit
from .page import TaskPage

FIELDS = ("text", "field", "subdomain", "notes")
#: Longest values accepted (the model's column sizes for field and subdomain).
MAX_CHARS = {"text": 2000, "field": 200, "subdomain": 200, "notes": 5000}


def slots_of(page: TaskPage) -> range:
    return range(1, int(page.study.setting("authoring_max")) + 1)


def written(payload: dict) -> dict[str, dict]:
    """The slots that hold a question (non-blank text)."""
    return {
        n: q
        for n, q in (payload.get("questions") or {}).items()
        if isinstance(q, dict) and str(q.get("text") or "").strip()
    }


def external_id(page: TaskPage, slot: str) -> str:
    return f"authored-{page.assignment.pk}-{slot}"


SLOT = Unit(
    "slot",
    lambda page, ids: {str(n): n for n in slots_of(page)},
    unknown="Questions: there is no slot {id!r} in this task.",
)
FORM = Form(
    title="Questions",
    fields=tuple(
        Field(
            f"aq.<slot>.{key}",
            f"questions.<slot>.{key}",
            default="",
            max_chars=limit,
            too_long=f"Question {{slot}}: {key} is longer than {{limit}} characters.",
        )
        for key, limit in MAX_CHARS.items()
    ),
    units=(SLOT,),
)


def authoring_rules(questions: dict, page: TaskPage) -> Problems:
    """A slot with any text needs its question and field; no question twice; at least
    ``authoring_min`` questions."""
    rules = Problems()
    seen: dict[str, str] = {}
    for n, q in sorted(questions.items(), key=lambda item: int(item[0])):
        text = str(q.get("text") or "").strip()
        if not text:
            if any(str(q.get(k) or "").strip() for k in FIELDS):
                rules.errors.append(f"Question {n}: write the question, or clear its slot.")
            continue
        if not str(q.get("field") or "").strip():
            rules.errors.append(f"Question {n}: give its field.")
        key = " ".join(text.lower().split())
        if key in seen:
            rules.errors.append(f"Question {n}: the same as question {seen[key]}.")
        seen.setdefault(key, n)
    least = int(page.study.setting("authoring_min"))
    if len(seen) < least:
        rules.errors.append(
            f"Questions: write at least {least} question{'s' if least != 1 else ''}."
        )
    return rules


QC = ql.no_label(
    "free text: the annotator writes new questions. No two answers are meant to be equal, so "
    "there is no label to score against gold or compare; a researcher reviews each question "
    "instead (accept / reject on the question list)."
)


class QuestionAuthoringTask(TaskSpec):
    qc = QC
    key = "question_authoring"
    form = FORM

    def rules(self, payload, page, resolve):
        return authoring_rules(payload["questions"], page)

    def persist(self, payload, page):
        a = page.assignment
        for n, q in written(payload).items():
            Question.objects.update_or_create(
                study=a.study,
                external_id=external_id(page, n),
                defaults={
                    "text": str(q["text"]).strip(),
                    "field": str(q.get("field") or "").strip(),
                    "subdomain": str(q.get("subdomain") or "").strip(),
                    "author_notes": str(q.get("notes") or "").strip(),
                    "origin": Question.Origin.EXPERT_AUTHORED,
                    "authored_by": page.annotator,
                    "review": Question.Review.PENDING,
                },
            )

    def context(self, payload, page):
        questions = payload.get("questions") or {}
        fields = page.annotator.expertise_fields or []
        return {
            "slots": [
                {"n": n, **dict.fromkeys(FIELDS, ""), **(questions.get(str(n)) or {})}
                for n in slots_of(page)
            ],
            "authoring_min": page.study.setting("authoring_min"),
            "expertise_fields": fields,
        }


TASK = QuestionAuthoringTask()
