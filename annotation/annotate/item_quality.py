"""Rubric-item quality (ResearchQA 3.2, METHODS §2.2): per item, emphasis (how much of an
answer it deserves), necessity (answer quality if omitted), confidence 1–5, error flags.

Payload: ``{"items": {position: {"emphasis", "necessity", "confidence", "flags": [...]}}}``.
"""

from __future__ import annotations

from annotation.models import RubricItemQuality

from .base import Problems, TaskSpec, demote, item_numbers
from .widgets import as_int, checkboxes, likert, radio_group

EMPHASIS = [
    ("none", "None", "1"),
    ("lt_sentence", "Shorter than a sentence", "2"),
    ("sentence", "A sentence", "3"),
    ("few_sentences", "A few sentences", "4"),
    ("paragraph_plus", "A paragraph or more", "5"),
]
NECESSITY = [
    ("significant_improvement", "Significant improvement", "1"),
    ("minor_improvement", "Minor improvement", "2"),
    ("no_change", "No change", "3"),
    ("minor_degradation", "Minor degradation", "4"),
    ("moderate_degradation", "Moderate degradation", "5"),
    ("significant_degradation", "Significant degradation", "6"),
]
FLAGS = [
    ("difficult", "Difficult to judge"),
    ("unclear", "Unclear"),
    ("empty", "Empty or unspecific"),
    ("error", "Contains an error"),
]
EMPHASIS_VALUES = {v for v, *_ in EMPHASIS}
NECESSITY_VALUES = {v for v, *_ in NECESSITY}
FLAG_VALUES = {v for v, _ in FLAGS}


def item_problems(items: dict, positions: set[str], *, final: bool) -> Problems:
    hard, rules = Problems(), Problems()
    if not isinstance(items, dict):
        return Problems(errors=["Rubric items: malformed answer."])
    number = item_numbers(positions)
    for pos, answer in items.items():
        if pos not in positions or not isinstance(answer, dict):
            hard.errors.append(f"Rubric items: there is no item {pos!r}.")
            continue
        n = number[pos]
        if answer.get("emphasis") and answer["emphasis"] not in EMPHASIS_VALUES:
            hard.errors.append(f"Item {n}: {answer['emphasis']!r} is not an emphasis level.")
        if answer.get("necessity") and answer["necessity"] not in NECESSITY_VALUES:
            hard.errors.append(f"Item {n}: {answer['necessity']!r} is not a necessity level.")
        if answer.get("confidence") not in (None, "", 1, 2, 3, 4, 5):
            hard.errors.append(f"Item {n}: confidence {answer['confidence']!r} is not from 1 to 5.")
        flags = answer.get("flags") or []
        if not isinstance(flags, list) or not set(flags) <= FLAG_VALUES:
            hard.errors.append(f"Item {n}: unknown error flag.")
    if hard.errors:
        return hard
    for pos in sorted(positions, key=int):
        answer = items.get(pos) or {}
        missing = [k for k in ("emphasis", "necessity", "confidence") if not answer.get(k)]
        if missing:
            rules.errors.append(f"Item {number[pos]}: choose {', '.join(missing)}.")
    return demote(rules, final)


class RubricItemQualityTask(TaskSpec):
    key = "rubric_item_quality"
    template = "annotation/annotate/rubric_item_quality.html"

    def initial(self, page):
        return {"items": {}}

    def parse(self, data, page):
        items: dict[str, dict] = {}
        for name in data:
            parts = name.split(".")
            if parts[0] != "iq" or len(parts) != 3:
                continue
            answer = items.setdefault(
                parts[1], {"emphasis": "", "necessity": "", "confidence": None, "flags": []}
            )
            if parts[2] == "flag":
                answer["flags"] = [str(v) for v in data.getlist(name)]
            elif parts[2] == "confidence":
                answer["confidence"] = as_int(data.get(name) or None)
            elif parts[2] in ("emphasis", "necessity"):
                answer[parts[2]] = str(data.get(name))
        return {"items": items}

    def check(self, payload, page, *, final):
        positions = {str(i.position) for i in page.rubric_items}
        return item_problems(payload.get("items"), positions, final=final)

    def persist(self, payload, page):
        a = page.assignment
        RubricItemQuality.objects.filter(
            annotator=page.annotator, setting=a.setting, item__in=page.rubric_items
        ).delete()
        RubricItemQuality.objects.bulk_create(
            RubricItemQuality(
                study=a.study,
                annotator=page.annotator,
                question=a.question,
                setting=a.setting,
                assignment=a,
                item=item,
                emphasis=answer["emphasis"],
                necessity=answer["necessity"],
                confidence=answer["confidence"],
                flags=sorted(answer.get("flags") or []),
            )
            for item in page.rubric_items
            for answer in [payload["items"][str(item.position)]]
        )

    def context(self, payload, page):
        items = payload.get("items") or {}
        rows = []
        for n, item in enumerate(page.rubric_items, start=1):
            answer = items.get(str(item.position)) or {}
            pos = item.position
            rows.append(
                {
                    "item": item,
                    "n": n,
                    "emphasis": radio_group(
                        f"iq.{pos}.emphasis", EMPHASIS, answer.get("emphasis"), "Emphasis"
                    ),
                    "necessity": radio_group(
                        f"iq.{pos}.necessity",
                        NECESSITY,
                        answer.get("necessity"),
                        "Necessity (answer quality if omitted)",
                    ),
                    "confidence": likert(
                        f"iq.{pos}.confidence", answer.get("confidence"), "Confidence"
                    ),
                    "flags": checkboxes(
                        f"iq.{pos}.flag", FLAGS, answer.get("flags") or [], "Error flags"
                    ),
                }
            )
        return {"rows": rows}
