"""Rubric-item quality (ResearchQA 3.2, METHODS §2.2): per item, emphasis (how much of an
answer it deserves), necessity (answer quality if omitted), confidence 1–5, error flags.

Payload: ``{"items": {position: {"emphasis", "necessity", "confidence", "flags": [...]}}}``.
"""

from __future__ import annotations

from annotation.models import RubricItemQuality

from ..quality import labels as ql
from . import qc
from .base import Needs, Problems, TaskSpec, rubric_items_of
from .form import Choices, Field, Form, Unit, optional_int
from .widgets import checkboxes, likert, radio_group

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


ITEM = Unit("item", rubric_items_of, unknown="Rubric items: there is no item {id!r}.")
FORM = Form(
    title="Rubric items",
    fields=(
        Field(
            "iq.<item>.emphasis",
            "items.<item>.emphasis",
            default="",
            choices=Choices(EMPHASIS_VALUES, "an emphasis level"),
            invalid="Item {item}: {value!r} is not {choices}.",
        ),
        Field(
            "iq.<item>.necessity",
            "items.<item>.necessity",
            default="",
            choices=Choices(NECESSITY_VALUES, "a necessity level"),
            invalid="Item {item}: {value!r} is not {choices}.",
        ),
        Field(
            "iq.<item>.confidence",
            "items.<item>.confidence",
            convert=optional_int,
            default=None,
            choices=Choices((1, 2, 3, 4, 5), "from 1 to 5"),
            invalid="Item {item}: confidence {value!r} is not {choices}.",
        ),
        Field(
            "iq.<item>.flag",
            "items.<item>.flags",
            many=True,
            default=[],
            choices=Choices(FLAG_VALUES, "an error flag"),
            invalid="Item {item}: unknown error flag.",
        ),
    ),
    units=(ITEM,),
)
#: Emphasis, necessity and confidence must be chosen for every item (one message per item).
REQUIRED = FORM.fields[:3]


QC_SCALES = {
    "emphasis": ql.Values(tuple(v for v, *_ in EMPHASIS), ordinal=True),
    "necessity": ql.Values(tuple(v for v, *_ in NECESSITY), ordinal=True),
}


def stored(study, annotator=None):
    return RubricItemQuality.objects.filter(study=study, **qc.who(annotator))


def qc_rows(study, annotator=None):
    """Two units per item, its emphasis and its necessity (ordinal scales). The confidence
    is the annotator's about themselves and the flags a free set: neither is a label."""
    rows = stored(study, annotator).select_related("item__rubric", "assignment")
    for r in rows:
        for scale in QC_SCALES:
            yield r, ql.scale_unit(scale, r.item.rubric.kind, r.item.position), getattr(r, scale)


def qc_units(study, question):
    items = qc.rubric_items(study, question)
    return {
        ql.scale_unit(s, i.rubric.kind, i.position): v for i in items for s, v in QC_SCALES.items()
    }


QC = ql.LabelSpec(
    unit="emphasis or necessity of one rubric item: emphasis item <kind>:<position>",
    label="the level (ordinal scales; exact match)",
    rows=qc_rows,
    held=qc.held(stored),
    units=qc_units,
    notation="unit “emphasis item expert:1”, answer sentence",
)


class RubricItemQualityTask(TaskSpec):
    needs = Needs(rubrics=1)
    qc = QC
    key = "rubric_item_quality"
    form = FORM

    def rules(self, payload, page, resolve):
        missing: dict[int, list[str]] = {}
        for f in REQUIRED:
            for where in FORM.missing(payload, f, resolve):
                missing.setdefault(where["item"], []).append(f.segments[-1])
        return Problems(
            errors=[f"Item {n}: choose {', '.join(keys)}." for n, keys in sorted(missing.items())]
        )

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

    def stored_answers(self, page):
        a = page.assignment
        rows = RubricItemQuality.objects.filter(
            annotator=page.annotator, setting=a.setting, item__in=page.rubric_items
        ).values_list("item__position", "emphasis", "necessity", "confidence", "flags")
        items = {
            str(position): {"emphasis": emphasis, "necessity": necessity,
                            "confidence": confidence, "flags": list(flags or [])}
            for position, emphasis, necessity, confidence, flags in rows
        }  # fmt: skip
        return {"items": items} if items else None

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


TASK = RubricItemQualityTask()
