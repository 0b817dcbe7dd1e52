"""Rubric comparison (003 A.4, guidelines Part 4): after judging the reports, rank the
question's 2–3 rubrics with medals (ties as in the report ranking) and say, for each, its
strengths, the criteria it misses, and its weaknesses. Rubrics are blinded as "Rubric A/B/C"
in an order drawn per assignment.

Payload: ``{"medals": {rubric public id: medal}, "notes": {rubric public id: {"strengths",
"missing", "weaknesses"}}, "reasoning": str}``.
"""

from __future__ import annotations

from string import ascii_uppercase

from annotation.models import RubricAssessment, RubricComparison

from ..quality import labels as ql
from . import qc
from .base import Needs, Problems, TaskSpec, demote
from .form import Choices, Field, Form, Unit
from .medal_ranking import MEDALS, REASONING, ranking_problems, reasoning_problems
from .page import TaskPage

NOTE_FIELDS = (
    ("strengths", "What are its strengths?", True),
    ("missing", "Are there missing criteria you would have wanted?", False),
    ("weaknesses", "What are its weaknesses?", True),
)


def question_text(required: bool, question: str) -> str:
    """A required note's message names the rubric and asks its question; others are optional."""
    return f"{{rubric}}: {question}" if required else ""


def labels_of(page: TaskPage) -> dict[str, str]:
    return {r.public_id: f"Rubric {ascii_uppercase[i]}" for i, r in enumerate(page.rubrics)}


RUBRIC = Unit(
    "rubric",
    lambda page, ids: labels_of(page),
    unknown="Rubric comparison: a note names a rubric that is not in this task.",
)
FORM = Form(
    title="Rubric comparison",
    fields=(
        Field(
            "rmedal.<rubric>",
            "medals.<rubric>",
            skip_blank=True,
            choices=Choices(MEDALS, "a medal (gold, silver or bronze)"),
            invalid="Medals: {rubric} has {value!r}, which is not {choices}.",
            unknown={"rubric": "Medals: a medal was given to a rubric that is not in this task."},
        ),
        *(
            Field(f"rnote.<rubric>.{key}", f"notes.<rubric>.{key}", required=question_text(req, q))
            for key, q, req in NOTE_FIELDS
        ),
        REASONING,
    ),
    units=(RUBRIC,),
)


def check(payload: dict, page: TaskPage, *, final: bool) -> Problems:
    labels = labels_of(page)
    resolve = FORM.resolver(page)
    hard = FORM.problems(payload, resolve)
    if hard:
        return Problems(errors=hard)
    problems = ranking_problems(
        {str(k): str(v) for k, v in payload["medals"].items()},
        labels,
        ties_allowed=bool(page.study.setting("ties_allowed")),
        three_way_allowed=bool(page.study.setting("three_way_tie_allowed")),
        final=final,
    )
    if problems.errors and not final:
        return problems
    problems.extend(demote(Problems(errors=FORM.required_problems(payload, resolve)), final))
    problems.extend(reasoning_problems(str(payload.get("reasoning", "")), final))
    return problems


def stored(study, annotator=None):
    return RubricComparison.objects.filter(study=study, **qc.who(annotator))


def qc_rows(study, annotator=None):
    """The medal ranking of the question's rubrics, named by their kind; the notes are free
    text and no label."""
    rows = (
        stored(study, annotator)
        .select_related("assignment")
        .prefetch_related("assessments__rubric")
    )
    for c in rows.iterator(chunk_size=qc.CHUNK):  # prefetched per chunk, not by every id
        yield c, "", ql.medal_label({a.rubric.kind: a.medal for a in c.assessments.all()})


def qc_units(study, question):
    kinds = tuple(sorted(question.rubrics.values_list("kind", flat=True)))
    return {"": ql.Values(kinds, ranked=True)}


QC = ql.LabelSpec(
    unit="the question's rubrics as a whole (unit empty)",
    label="the ranking kindA=gold;kindB=silver;… over the rubrics' kinds",
    rows=qc_rows,
    held=qc.held(stored),
    units=qc_units,
    blind_as="Rubric",
    notation="answer expert=gold;hybrid=silver (unit empty)",
)


class RubricComparisonTask(TaskSpec):
    needs = Needs(rubrics=2)
    qc = QC
    key = "rubric_comparison"
    form = FORM

    def check(self, payload, page, *, final):
        return check(payload, page, final=final)

    def persist(self, payload, page):
        a = page.assignment
        comparison, _ = RubricComparison.objects.update_or_create(
            study=a.study,
            annotator=page.annotator,
            question=a.question,
            setting=a.setting,
            defaults={"assignment": a, "reasoning": payload["reasoning"].strip()},
        )
        for rubric in page.rubrics:
            notes = payload["notes"].get(rubric.public_id) or {}
            RubricAssessment.objects.update_or_create(
                comparison=comparison,
                rubric=rubric,
                defaults={
                    "medal": payload["medals"][rubric.public_id],
                    **{k: str(notes.get(k, "")).strip() for k, *_ in NOTE_FIELDS},
                },
            )

    def stored_answers(self, page):
        """The annotator's stored comparison of the question's rubrics (the page's or an
        import's): each shown rubric's medal and notes, and the comparison's reasoning. One
        query (the rubrics are the page's, read for its cards anyway)."""
        a = page.assignment
        ids = {rubric.pk: rubric.public_id for rubric in page.rubrics}
        keys = [k for k, *_ in NOTE_FIELDS]
        rows = RubricAssessment.objects.filter(
            comparison__study=a.study,
            comparison__annotator=page.annotator,
            comparison__question=a.question,
            comparison__setting=a.setting,
            rubric_id__in=ids,
        ).values_list("rubric_id", "medal", "comparison__reasoning", *keys)
        medals, notes, reasoning = {}, {}, None
        for rubric_id, medal, why, *texts in rows:
            medals[ids[rubric_id]] = medal
            notes[ids[rubric_id]] = dict(zip(keys, texts, strict=True))
            reasoning = why
        if reasoning is None:
            return None
        return {"medals": medals, "notes": notes, "reasoning": reasoning}

    def context(self, payload, page):
        labels = labels_of(page)
        medals, notes = payload.get("medals") or {}, payload.get("notes") or {}
        cards = []
        for i, rubric in enumerate(page.rubrics):
            given = notes.get(rubric.public_id) or {}
            cards.append(
                {
                    "rubric": rubric,
                    "label": labels[rubric.public_id],
                    "letter": ascii_uppercase[i],
                    "items": sorted(
                        rubric.items.all(), key=lambda item: (-item.weight, item.position)
                    ),
                    "medal": medals.get(rubric.public_id, ""),
                    "notes": [
                        {"key": k, "question": q, "required": req, "value": given.get(k, "")}
                        for k, q, req in NOTE_FIELDS
                    ],
                }
            )
        return {"cards": cards, "medal_values": MEDALS}


TASK = RubricComparisonTask()
