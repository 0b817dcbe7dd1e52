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

from .base import Problems, TaskSpec, demote
from .medals import MEDALS, ranking_problems, reasoning_problems
from .page import TaskPage

NOTE_FIELDS = (
    ("strengths", "What are its strengths?", True),
    ("missing", "Are there missing criteria you would have wanted?", False),
    ("weaknesses", "What are its weaknesses?", True),
)


def labels_of(page: TaskPage) -> dict[str, str]:
    return {r.public_id: f"Rubric {ascii_uppercase[i]}" for i, r in enumerate(page.rubrics)}


def check(payload: dict, page: TaskPage, *, final: bool) -> Problems:
    labels = labels_of(page)
    medals, notes = payload.get("medals"), payload.get("notes")
    if not isinstance(medals, dict) or not isinstance(notes, dict):
        return Problems(errors=["Rubric comparison: malformed answer."])
    if any(pid not in labels for pid in notes):
        return Problems(
            errors=["Rubric comparison: a note names a rubric that is not in this task."]
        )
    problems = ranking_problems(
        {str(k): str(v) for k, v in medals.items()},
        labels,
        ties_allowed=bool(page.study.setting("ties_allowed")),
        three_way_allowed=bool(page.study.setting("three_way_tie_allowed")),
        final=final,
    )
    if problems.errors and not final:
        return problems
    rules = Problems()
    for pid, label in labels.items():
        given = notes.get(pid) or {}
        for key, question, required in NOTE_FIELDS:
            if required and not str(given.get(key, "")).strip():
                rules.errors.append(f"{label}: {question}")
    problems.extend(demote(rules, final))
    problems.extend(reasoning_problems(str(payload.get("reasoning", "")), final))
    return problems


class RubricComparisonTask(TaskSpec):
    key = "rubric_comparison"
    template = "annotation/annotate/rubric_comparison.html"

    def initial(self, page):
        return {"medals": {}, "notes": {}, "reasoning": ""}

    def parse(self, data, page):
        notes: dict[str, dict] = {}
        medals = {}
        for name, value in data.items():
            parts = name.split(".")
            if parts[0] == "rmedal" and len(parts) == 2 and value:
                medals[parts[1]] = str(value)
            elif (
                parts[0] == "rnote" and len(parts) == 3 and parts[2] in {k for k, *_ in NOTE_FIELDS}
            ):
                notes.setdefault(parts[1], {})[parts[2]] = str(value)
        return {"medals": medals, "notes": notes, "reasoning": str(data.get("reasoning", ""))}

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
